#pragma once
// Geometry files: one JSON object that describes a scan and its recon grid, read and written by every
// tool, so that a geometry set up once (in C++, ITK, Python or by hand) is reused without retyping it.
//
// Format, version 1 (keys in snake_case, as the validation messages name them):
//
//   {
//     "format": "mbir-geometry",              required
//     "version": 1,                           required; an integer, readers reject versions they do not know
//     "geometry": "cone",                     required; "parallel", "cone", "translation" or "multi_axis_parallel"
//     "sinogram_shape": [64, 40, 128],        required; [views, rows, channels], positive integers
//     "delta_det_channel": 1.0,               detector channel pitch (default 1)
//     "delta_det_row": 1.0,                   detector row pitch (default 1)
//     "det_channel_offset": 0.0,              central ray at channel (C-1)/2 + offset / pitch (default 0)
//     "det_row_offset": 0.0,                  central ray at row (R-1)/2 + offset / pitch (default 0)
//     "delta_voxel": 0.5,                     voxel pitch along columns; give both or neither of
//     "recon_shape": [128, 128, 80],          delta_voxel and recon_shape ([rows, cols, slices]): without
//                                             them the default grid of autoSetReconGeometry() is used
//     "voxel_row_aspect": 1.0,                row pitch / column pitch (default 1)
//     "voxel_slice_aspect": 1.0,              slice pitch / column pitch (default 1)
//     "ror_mask": "ellipse",                  "ellipse", "none", or {"rows": r, "cols": c, "mask": [0, 1, ...]}
//                                             with r x c entries 0/1, row-major; default "ellipse", but
//                                             "none" for translation
//     ... the fields of the geometry ...
//   }
//
// Geometry fields (per-view arrays have one entry per view; angles in radians). The registry
// (GeometryRegistry.h) lists every field of every type with its kind, default, unit and doc; the reader and
// writer are driven by it, so this summary is a convenience:
//   parallel:            "angles" (required).
//   cone:                "angles", "source_detector_dist" (a number or the string "infinity" for parallel
//                        rays) and "source_iso_dist" (required); "helical_z_shifts" (per view; omitted or
//                        [] for a circular scan), "curved_detector" (bool, default false),
//                        "recon_slice_offset" (default: with the default grid the centre of the helical
//                        travel, with a given grid 0).
//   translation:         "translation_vectors" ([[tx, ty, tz], ...]), "source_detector_dist" and
//                        "source_iso_dist" (required).
//   multi_axis_parallel: "angles" and "elevations" (required); "recon_slice_offset" (default 0).
//
// Lengths are in ALU, one unit of the user's choice shared by every length. Numbers are stored as
// float32, as in the geometry structs: the writer prints the shortest decimal that reads back to the same
// float, so a write-read round trip is exact. Unknown keys, duplicate keys, non-finite numbers and
// non-integer shapes are errors, and a file is validated as a whole, so a file that reads is usable.

#include "mbir/Geometry.h"

#include <string>
#include <utility>
#include <vector>

namespace mbir {

// The file text, pretty-printed with a 2-space indent (short number arrays on one line, long ones
// wrapped, a custom ROR mask one grid row per line). Throws std::invalid_argument when the geometry
// does not validate, since such a file could not be read back.
std::string
geometryToJson(const Geometry & geometry);

// Parses and validates; throws std::invalid_argument naming the field and the problem.
Geometry
geometryFromJson(const std::string & text);

// `geometry` with some parameters replaced, each given by its registry name and its value as JSON text
// (e.g. {"curved_detector", "true"}, {"ror_mask", "\"none\""}); the result is read and validated as a file
// would be, and errors are those of geometryFromJson. The grid is kept unless the values give it.
Geometry
withParameters(const Geometry & geometry, const std::vector<std::pair<std::string, std::string>> & values);

// Throws std::runtime_error naming the path when the file cannot be written, and std::invalid_argument
// as geometryToJson does.
void
writeGeometryFile(const Geometry & geometry, const std::string & path);

// Errors start with the path: std::runtime_error when the file cannot be read, std::invalid_argument
// as geometryFromJson throws it.
Geometry
readGeometryFile(const std::string & path);

} // namespace mbir
