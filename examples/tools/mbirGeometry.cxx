// mbir-geometry: writes a geometry JSON file from a few options, so that nobody writes one by hand.

#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRMultiAxisParallelGeometry.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRTranslationGeometry.h"
#include "mbir/GeometryJson.h"
#include "mbir/GeometryRegistry.h"
#include "mbirToolSupport.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace {

using mbirtool::UsageError;

struct Options
{
  std::string              output;
  std::string              type = "parallel";
  int                      views = 128, rows = 64, channels = 128;
  double                   pitch = 1.0, channelPitch = 0.0, rowPitch = 0.0;
  double                   channelOffset = 0.0, rowOffset = 0.0;
  double                   angleStart = 0.0, angleRange = 0.0; // 0: a half turn, a full turn for cone beam
  std::vector<double>      angles;
  double                   sourceIso = 0.0, sourceDetector = 0.0; // 0: the defaults, which depend on the detector
  bool                     curved = false;
  double                   helicalPitch = 0.0;
  std::vector<double>      helicalShifts;
  double                   elevation = 0.0;
  std::vector<double>      elevations;
  std::vector<double>      raster{ 8, 8 }, rasterStep;
  std::vector<double>      volumeSize, volumeSpacing;
  double                   sliceOffset = 0.0;
  bool                     sliceOffsetGiven = false;
  std::string              ror;
  std::vector<std::string> sets; // --set NAME=VALUE, applied last
};

// The tool's name of each registered geometry type: the JSON name with dashes, multi-axis for short.
std::string
toolTypeName(const mbir::GeometryType & type)
{
  if (type.name == "multi_axis_parallel")
  {
    return "multi-axis";
  }
  std::string name = type.name;
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

const mbir::GeometryType *
typeOfTool(const std::string & toolName)
{
  for (const mbir::GeometryType & type : mbir::geometryTypes())
  {
    std::string dashed = type.name;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    if (toolName == toolTypeName(type) || toolName == type.name || toolName == dashed)
    {
      return &type;
    }
  }
  return nullptr;
}

// "parallel, cone, translation or multi-axis", with `separator` between the names.
std::string
toolTypeNames(const std::string & separator, const std::string & last)
{
  const std::vector<mbir::GeometryType> & types = mbir::geometryTypes();
  std::string                             names;
  for (std::size_t i = 0; i < types.size(); ++i)
  {
    names += (i == 0 ? "" : i + 1 == types.size() ? last : separator) + toolTypeName(types[i]);
  }
  return names;
}

// A comma-separated list of `count` numbers (or 1 when `one` is allowed) for a vector option.
std::function<void(const std::string &)>
listOf(const std::string & option, std::vector<double> & target, std::size_t count, bool one = false)
{
  return [&target, option, count, one](const std::string & value) {
    target = mbirtool::parseList(option, value);
    if (target.size() != count && !(one && target.size() == 1))
    {
      throw UsageError(option + " needs " + (one ? "1 or " : "") + std::to_string(count) +
                       " comma-separated numbers, got '" + value + "'");
    }
  };
}

// Every parameter name of the registry, each once, for --set's help.
std::string
parameterNames()
{
  std::vector<std::string> names;
  for (const mbir::GeometryType & type : mbir::geometryTypes())
  {
    for (const mbir::GeometryParameter & parameter : type.parameters)
    {
      if (std::find(names.begin(), names.end(), parameter.name) == names.end())
      {
        names.push_back(parameter.name);
      }
    }
  }
  std::string text;
  for (const std::string & name : names)
  {
    text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

Options
parse(mbirtool::CommandLine & cl, int argc, char ** argv)
{
  Options o;
  std::vector<std::string> typeNames;
  for (const mbir::GeometryType & type : mbir::geometryTypes())
    typeNames.push_back(toolTypeName(type));
  cl.group("Output");
  cl.required("--output", "FILE", "the geometry JSON file to write", o.output)
    .file(mbirtool::Channel::Output, ".json")
    .label("Geometry file");
  cl.group("Scan", "The kind of scan and its views");
  cl.custom("--type",
            "TYPE",
            "parallel, cone (point source, flat or curved detector, circular or helical), translation (fixed source, "
            "the object moves on a raster) or multi-axis (parallel rays with an elevation, e.g. laminography)",
            o.type,
            [&o](const std::string & v) {
              const mbir::GeometryType * type = typeOfTool(v);
              if (!type)
              {
                throw UsageError("--type must be " + toolTypeNames(", ", " or ") + ", got '" + v + "'");
              }
              o.type = toolTypeName(*type);
            })
    .choices(typeNames);
  cl.integer("--views", "N", "number of views, evenly spaced over the angular range", o.views, 1, 1 << 20);
  cl.group("Detector");
  cl.integer("--rows", "N", "detector rows", o.rows, 1, 1 << 20);
  cl.integer("--channels", "N", "detector channels per row", o.channels, 1, 1 << 20);
  cl.number("--pitch", "MM", "detector pitch, channels and rows", o.pitch, 1e-9, 1e9);
  cl.custom("--channel-pitch", "MM", "channel pitch (an arc length on a curved detector)", "--pitch", [&o](auto & v) {
    o.channelPitch = mbirtool::parseNumber("--channel-pitch", v, 1e-9, 1e9);
  });
  cl.custom("--row-pitch", "MM", "row pitch", "--pitch", [&o](auto & v) {
    o.rowPitch = mbirtool::parseNumber("--row-pitch", v, 1e-9, 1e9);
  });
  cl.number("--channel-offset",
            "MM",
            "the central ray hits channel (C-1)/2 + offset / channel pitch",
            o.channelOffset,
            -1e9,
            1e9);
  cl.number("--row-offset",
            "MM",
            "the central ray hits row (R-1)/2 + offset / row pitch (not for parallel beam)",
            o.rowOffset,
            -1e9,
            1e9);
  cl.custom("--angle-start",
            "RAD",
            "first view angle (azimuth for multi-axis); also 'pi', '-pi/2', '2pi'",
            "0",
            [&o](auto & v) { o.angleStart = mbirtool::parseAngle("--angle-start", v); })
    .xmlDefault("0");
  cl.custom("--angle-range",
            "RAD",
            "angles start + range * v / views, v = 0 .. views-1 (the end is excluded)",
            "pi, 2pi for cone",
            [&o](auto & v) {
              o.angleRange = mbirtool::parseAngle("--angle-range", v);
              if (o.angleRange == 0.0)
              {
                throw UsageError("--angle-range must not be 0");
              }
            });
  cl.custom("--angles",
            "LIST",
            "the view angles themselves (radians): comma-separated, or @FILE with one or more per line; sets the "
            "number of views",
            "",
            [&o](auto & v) { o.angles = mbirtool::parseList("--angles", v); });
  cl.group("Cone beam and translation");
  cl.custom("--source-iso",
            "MM",
            "cone, translation: source to rotation axis (translation: to the volume centre)",
            "2 x detector width",
            [&o](auto & v) { o.sourceIso = mbirtool::parseNumber("--source-iso", v, 1e-9, 1e12); });
  cl.custom("--source-detector",
            "MM",
            "cone, translation: source to detector; 'inf' gives parallel rays (cone only)",
            "2 x source-iso",
            [&o](const std::string & v) {
              o.sourceDetector = v == "inf" || v == "infinity"
                                   ? std::numeric_limits<double>::infinity()
                                   : mbirtool::parseNumber("--source-detector", v, 1e-9, 1e12);
            });
  cl.flag("--curved", "cone: a cylindrical detector centred on the source instead of a flat one", o.curved);
  cl.number("--helical-pitch",
            "P",
            "cone: helical scan whose scanner rises P x the detector height at iso per turn (2 pi of angle), centred "
            "on z = 0; 0 is a circular scan",
            o.helicalPitch,
            -100,
            100);
  cl.custom("--helical-shifts", "LIST", "cone: the scanner height (MM, +z) per view, as --angles", "", [&o](auto & v) {
    o.helicalShifts = mbirtool::parseList("--helical-shifts", v);
  });
  cl.group("Multi-axis and translation");
  cl.custom("--elevation", "RAD", "multi-axis: the elevation of every view, |elevation| < pi/2", "0", [&o](auto & v) {
      o.elevation = mbirtool::parseAngle("--elevation", v);
    }).xmlDefault("0");
  cl.custom("--elevations", "LIST", "multi-axis: the elevation per view, as --angles", "", [&o](auto & v) {
    o.elevations = mbirtool::parseList("--elevations", v);
  });
  cl.custom("--raster",
            "NX,NZ",
            "translation: NX x NZ views on a raster in x and z centred on 0, z in the outer loop",
            "8,8",
            listOf("--raster", o.raster, 2))
    .xmlDefault("8,8");
  cl.custom("--raster-step",
            "DX,DZ",
            "translation: the raster's steps (MM) in x and z",
            "the detector size at the volume centre / (NX, NZ)",
            listOf("--raster-step", o.rasterStep, 2));
  cl.group("Volume", "The volume grid (by default it covers the detector's field of view)");
  cl.custom("--volume-size",
            "X,Y,Z",
            "volume size in voxels [x = column, y = row, z = slice] (parallel beam: z = rows)",
            "covers the detector",
            listOf("--volume-size", o.volumeSize, 3));
  cl.custom("--volume-spacing",
            "X[,Y,Z]",
            "voxel pitch (MM) in x, y, z, or one number for all three (parallel beam: z is the row pitch); without "
            "--volume-size the default field of view is kept",
            "detector pitch / magnification",
            listOf("--volume-spacing", o.volumeSpacing, 3, true));
  cl.number("--slice-offset", "MM", "cone, multi-axis: z of the centre of the slice range", o.sliceOffset, -1e12, 1e12);
  cl.custom("--ror",
            "REGION",
            "region of reconstruction: ellipse (inscribed in the x-y grid) or all (every pixel)",
            "ellipse, all for translation",
            [&o](const std::string & v) {
              if (v != "ellipse" && v != "all")
              {
                throw UsageError("--ror must be ellipse or all, got '" + v + "'");
              }
              o.ror = v;
            })
    .label("Region of reconstruction (ellipse or all; empty: the geometry's default)");
  cl.repeated("--set",
              "NAME=VALUE",
              "any parameter of the geometry file by its JSON name, the value as JSON, applied last (the grid is "
              "kept unless given): e.g. curved_detector=true, recon_slice_offset=2.5, 'ror_mask=\"none\"'. "
              "Names: " +
                parameterNames(),
              o.sets)
    .notInSlicer(); // Slicer's panel has the typed options
  cl.parse(argc, argv);

  // Options that set a parameter some geometry types lack are refused for those rather than ignored.
  const mbir::GeometryType &               type = *typeOfTool(o.type);
  const std::map<std::string, std::string> parameterOf = {
    { "--views", "angles" },
    { "--angle-start", "angles" },
    { "--angle-range", "angles" },
    { "--angles", "angles" },
    { "--row-offset", "det_row_offset" },
    { "--source-iso", "source_iso_dist" },
    { "--source-detector", "source_detector_dist" },
    { "--curved", "curved_detector" },
    { "--helical-pitch", "helical_z_shifts" },
    { "--helical-shifts", "helical_z_shifts" },
    { "--elevation", "elevations" },
    { "--elevations", "elevations" },
    { "--raster", "translation_vectors" },
    { "--raster-step", "translation_vectors" },
    { "--slice-offset", "recon_slice_offset" },
  };
  for (const auto & [option, parameter] : parameterOf)
  {
    // Parallel beam has det_row_offset but fixes it at 0 (slice k is detector row k).
    const bool fixed = option == "--row-offset" && type.name == "parallel";
    if (cl.given(option) && (!type.find(parameter) || fixed))
    {
      throw UsageError(option + " does not apply to --type " + o.type);
    }
  }
  const std::pair<const char *, const char *> exclusive[] = { { "--angles", "--views" },
                                                              { "--angles", "--angle-start" },
                                                              { "--angles", "--angle-range" },
                                                              { "--helical-pitch", "--helical-shifts" },
                                                              { "--elevation", "--elevations" } };
  for (const auto & [a, b] : exclusive)
  {
    if (cl.given(a) && cl.given(b))
    {
      throw UsageError(std::string(a) + " and " + b + " exclude each other");
    }
  }
  if (o.type == "translation" && (o.raster[0] < 1 || o.raster[1] < 1 || o.raster[0] != std::floor(o.raster[0]) ||
                                  o.raster[1] != std::floor(o.raster[1])))
  {
    throw UsageError("--raster needs two whole numbers >= 1");
  }
  if (const mbir::GeometryParameter * sdd = type.find("source_detector_dist");
      std::isinf(o.sourceDetector) && sdd && !sdd->infinityAllowed)
  {
    throw UsageError("--source-detector must be finite for a " + type.name + " geometry");
  }
  o.sliceOffsetGiven = cl.given("--slice-offset");
  o.channelPitch = o.channelPitch > 0 ? o.channelPitch : o.pitch;
  o.rowPitch = o.rowPitch > 0 ? o.rowPitch : o.pitch;
  if (!o.angles.empty())
  {
    o.views = static_cast<int>(o.angles.size());
  }
  if (o.angleRange == 0.0)
  {
    o.angleRange = o.type == "cone" ? 2 * M_PI : M_PI;
  }
  // Magnification 2 with the source two detector widths from the axis: the demo's cone beam.
  o.sourceIso = o.sourceIso > 0 ? o.sourceIso : 2.0 * o.channels * o.channelPitch;
  o.sourceDetector = o.sourceDetector > 0 ? o.sourceDetector : 2.0 * o.sourceIso;
  return o;
}

std::vector<double>
viewAngles(const Options & o)
{
  if (!o.angles.empty())
  {
    return o.angles;
  }
  std::vector<double> angles(o.views);
  for (int v = 0; v < o.views; ++v)
  {
    angles[v] = o.angleStart + o.angleRange * v / o.views;
  }
  return angles;
}

// A per-view list must have one entry per view.
std::vector<double>
perView(const std::string & option, const std::vector<double> & values, std::size_t views)
{
  if (values.size() != views)
  {
    throw UsageError(option + " has " + std::to_string(values.size()) + " values for " + std::to_string(views) +
                     " views");
  }
  return values;
}

// Runs `set`, naming `option` in the error of a value that the geometry refuses.
template<typename TSet>
void
namingOption(const std::string & option, TSet set)
{
  try
  {
    set();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw UsageError(option + ": " + mbirtool::description(e));
  }
}

itk::MBIRGeometry::Pointer
makeGeometry(const Options & o)
{
  itk::MBIRGeometry::Pointer            geometry;
  itk::MBIRGeometry::DetectorVectorType pitch, offset;
  pitch[0] = o.channelPitch;
  pitch[1] = o.rowPitch;
  offset[0] = o.channelOffset;
  offset[1] = o.rowOffset;
  const std::vector<double> angles = viewAngles(o);
  if (o.type == "parallel")
  {
    auto parallel = itk::MBIRParallelBeamGeometry::New();
    parallel->SetAngles(angles);
    geometry = parallel.GetPointer();
  }
  else if (o.type == "cone")
  {
    auto cone = itk::MBIRConeBeamGeometry::New();
    cone->SetAngles(angles);
    cone->SetSourceToIsocenterDistance(o.sourceIso);
    cone->SetSourceToDetectorDistance(o.sourceDetector);
    cone->SetCurvedDetector(o.curved);
    if (!o.helicalShifts.empty())
    {
      cone->SetHelicalShifts(perView("--helical-shifts", o.helicalShifts, angles.size()));
    }
    else if (o.helicalPitch != 0.0)
    {
      const double magnification = std::isinf(o.sourceDetector) ? 1.0 : o.sourceDetector / o.sourceIso;
      const double risePerRadian = o.helicalPitch * o.rows * o.rowPitch / magnification / (2 * M_PI);
      const double mean = std::accumulate(angles.begin(), angles.end(), 0.0) / static_cast<double>(angles.size());
      std::vector<double> shifts(angles.size());
      for (std::size_t v = 0; v < angles.size(); ++v)
      {
        shifts[v] = risePerRadian * (angles[v] - mean);
      }
      cone->SetHelicalShifts(shifts);
    }
    geometry = cone.GetPointer();
  }
  else if (o.type == "translation")
  {
    const int nx = static_cast<int>(o.raster[0]), nz = static_cast<int>(o.raster[1]);
    // By default the raster's travel about equals the detector's field of view at the volume centre.
    const double magnification = o.sourceDetector / o.sourceIso;
    const double dx = o.rasterStep.empty() ? o.channels * o.channelPitch / magnification / nx : o.rasterStep[0];
    const double dz = o.rasterStep.empty() ? o.rows * o.rowPitch / magnification / nz : o.rasterStep[1];
    itk::MBIRTranslationGeometry::TranslationsType translations;
    for (int k = 0; k < nz; ++k)
    {
      for (int i = 0; i < nx; ++i)
      {
        itk::MBIRTranslationGeometry::TranslationType t;
        t[0] = (i - 0.5 * (nx - 1)) * dx;
        t[1] = 0.0;
        t[2] = (k - 0.5 * (nz - 1)) * dz;
        translations.push_back(t);
      }
    }
    auto translation = itk::MBIRTranslationGeometry::New();
    translation->SetTranslations(translations);
    translation->SetSourceToIsocenterDistance(o.sourceIso);
    translation->SetSourceToDetectorDistance(o.sourceDetector);
    geometry = translation.GetPointer();
  }
  else if (o.type == "multi-axis")
  {
    auto multiAxis = itk::MBIRMultiAxisParallelGeometry::New();
    multiAxis->SetAngles(angles);
    multiAxis->SetElevations(o.elevations.empty() ? std::vector<double>(angles.size(), o.elevation)
                                                  : perView("--elevations", o.elevations, angles.size()));
    geometry = multiAxis.GetPointer();
  }
  else
  {
    // A registered geometry that this tool has no scan options for yet.
    throw UsageError("--type " + o.type + " has no scan options in mbir-geometry yet");
  }
  geometry->SetDetectorSize(o.channels, o.rows);
  geometry->SetDetectorSpacing(pitch);
  geometry->SetDetectorOffset(offset);
  geometry->AutoSetVolumeGeometry();

  if (!o.volumeSpacing.empty())
  {
    const itk::MBIRGeometry::VolumeSpacingType autoSpacing = geometry->GetVolumeSpacing();
    itk::MBIRGeometry::VolumeSpacingType       spacing;
    for (unsigned int d = 0; d < 3; ++d)
    {
      spacing[d] = o.volumeSpacing[o.volumeSpacing.size() == 1 ? 0 : d];
    }
    if (o.type == "parallel" && o.volumeSpacing.size() == 1)
    {
      spacing[2] = autoSpacing[2]; // slice k is detector row k
    }
    itk::MBIRGeometry::VolumeSizeType size = geometry->GetVolumeSize();
    for (unsigned int d = 0; d < 3; ++d)
    {
      // Keep the default field of view: the number of voxels follows the pitch.
      size[d] =
        std::max<itk::SizeValueType>(1, std::lround(static_cast<double>(size[d]) * autoSpacing[d] / spacing[d]));
    }
    namingOption("--volume-spacing", [&] { geometry->SetVolumeSpacing(spacing); });
    geometry->SetVolumeSize(size);
  }
  if (!o.volumeSize.empty())
  {
    itk::MBIRGeometry::VolumeSizeType size;
    for (unsigned int d = 0; d < 3; ++d)
    {
      if (!(o.volumeSize[d] >= 1 && o.volumeSize[d] == std::floor(o.volumeSize[d])))
      {
        throw UsageError("--volume-size needs three whole numbers >= 1");
      }
      size[d] = static_cast<itk::SizeValueType>(o.volumeSize[d]);
    }
    geometry->SetVolumeSize(size);
  }
  if (!o.ror.empty())
  {
    geometry->SetRegionOfReconstruction(o.ror == "all" ? itk::MBIRGeometry::RegionOfReconstructionEnum::All
                                                       : itk::MBIRGeometry::RegionOfReconstructionEnum::Ellipse);
  }
  if (auto * cone = dynamic_cast<itk::MBIRConeBeamGeometry *>(geometry.GetPointer()); cone && o.sliceOffsetGiven)
  {
    cone->SetVolumeSliceOffset(o.sliceOffset);
  }
  if (auto * multiAxis = dynamic_cast<itk::MBIRMultiAxisParallelGeometry *>(geometry.GetPointer());
      multiAxis && o.sliceOffsetGiven)
  {
    multiAxis->SetVolumeSliceOffset(o.sliceOffset);
  }
  const mbir::Geometry engine = geometry->GetEngineGeometry(); // throws the engine's message, naming the field
  if (o.sets.empty())
  {
    return geometry;
  }
  std::vector<std::pair<std::string, std::string>> values;
  for (const std::string & set : o.sets)
  {
    const std::size_t equals = set.find('=');
    if (equals == std::string::npos || equals == 0)
    {
      throw UsageError("--set needs NAME=VALUE, got '" + set + "'");
    }
    values.emplace_back(set.substr(0, equals), set.substr(equals + 1));
  }
  try
  {
    return itk::MBIRGeometry::FromEngineGeometry(mbir::withParameters(engine, values));
  }
  catch (const std::invalid_argument & e)
  {
    throw UsageError(std::string("--set: ") + e.what());
  }
}

// One line: the scan, the detector and the volume.
std::string
summary(const Options & o, const itk::MBIRGeometry & g)
{
  std::ostringstream out;
  const auto         n = [](double v) { return mbirtool::CommandLine::shortest(v); };
  out << o.type << ", " << g.GetNumberOfViews() << " views";
  if (o.type == "translation")
  {
    out << " on a " << o.raster[0] << " x " << o.raster[1] << " raster";
  }
  else
  {
    const std::vector<double> angles = viewAngles(o);
    const auto [low, high] = std::minmax_element(angles.begin(), angles.end());
    out << ", angles " << n(*low) << " to " << n(*high) << " rad";
  }
  if (o.type == "cone" || o.type == "translation")
  {
    out << ", source-iso " << n(o.sourceIso) << " mm, source-detector " << n(o.sourceDetector) << " mm"
        << (o.curved ? " (curved)" : "") << (o.helicalPitch != 0.0 || !o.helicalShifts.empty() ? ", helical" : "");
  }
  const auto pitch = g.GetDetectorSpacing();
  const auto size = g.GetVolumeSize();
  const auto spacing = g.GetVolumeSpacing();
  for (const std::string & set : o.sets)
  {
    out << ", " << set;
  }
  out << "; detector " << g.GetNumberOfRows() << " rows x " << g.GetNumberOfChannels() << " channels of " << n(pitch[1])
      << " x " << n(pitch[0]) << " mm; volume " << size[0] << " x " << size[1] << " x " << size[2] << " voxels of "
      << n(spacing[0]) << " x " << n(spacing[1]) << " x " << n(spacing[2]) << " mm";
  return out.str();
}

} // namespace

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-geometry",
    "--output FILE [--type " + toolTypeNames("|", "|") + "] [options]",
    "Writes a scan geometry and its volume grid as a geometry JSON file, the file that mbir-phantom, mbir-project "
    "and mbir-recon read. Lengths are in mm and angles in radians. The volume grid is the default one (it covers the "
    "detector's field of view) unless --volume-size or --volume-spacing say otherwise. Prints a one-line summary.",
    { "Reconstruction.MBIR", "Create Scan Geometry" });
  return mbirtool::run(cl.tool(), [&] {
    const Options                    o = parse(cl, argc, argv);
    const itk::MBIRGeometry::Pointer geometry = makeGeometry(o);
    try
    {
      geometry->WriteJSON(o.output);
    }
    catch (const itk::ExceptionObject & e)
    {
      throw std::runtime_error("--output: " + mbirtool::description(e)); // the message names the file
    }
    std::cout << summary(o, *geometry) << " -> " << o.output << "\n";
  });
}
