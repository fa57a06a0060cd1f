#pragma once
// Cone-beam scan and recon grid (spec/projectors.md §3): a point source circling the slice axis at
// distance S from it, a flat or curved (cylindrical, centred on the source) detector at distance D from
// the source, and optional per-view helical shifts of the scanner along the slice axis.

#include "mbir/DetectorAndGrid.h"
#include "mbir/kernels/ConeBeam.h"

#include <vector>

namespace mbir {

struct ConeBeamGeometry : DetectorAndGrid
{
  std::vector<float> angles;                    // view angles [rad], one per view
  float              sourceDetectorDist = 0.0f; // D; may be +infinity (parallel rays, cone vertical model)
  float              sourceIsoDist = 0.0f;      // S: source to the rotation axis
  std::vector<float> helicalZShifts;            // per-view height of the scanner; empty means a circular scan
  bool               curvedDetector = false;    // true: cylinder of radius D, delta_det_channel is an arc length
  float              reconSliceOffset = 0.0f;   // object height of the centre of the slice range (+: larger rows)

  ConeBeamGeometry() = default;
  // Sets the default recon grid from the detector.
  ConeBeamGeometry(SinogramShape      shape,
                   std::vector<float> viewAngles,
                   float              sourceDetectorDistance,
                   float              sourceIsoDistance,
                   std::vector<float> zShifts = {},
                   bool               curved = false);

  // The default grid: voxel pitch = channel pitch / magnification, rows and columns cover the detector
  // width at iso, slices cover the detector height at iso plus the helical travel, centred on the travel.
  void
  autoSetReconGeometry();

  // Throws std::invalid_argument naming the parameter and the fix when the geometry is unusable,
  // including a source that lies inside the recon grid.
  void
  validate() const;

  // D / S, or 1 when D is infinite.
  float
  magnification() const;

  bool
  isHelical() const;

  kernels::ConeBeamParams
  kernelParams() const;

  std::vector<kernels::ConeBeamView>
  viewTable() const;

  // Its parameters as the registry, the JSON files and the bindings see them (GeometryDescription.h).
  static const GeometryDescription<ConeBeamGeometry> &
  description();
};

} // namespace mbir
