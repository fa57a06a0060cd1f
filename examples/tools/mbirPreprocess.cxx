// mbir-preprocess: raw transmission counts to line integrals and weights, and the centre of rotation
// estimated from the data (README "Real scanner data: preprocessing").

#include "itkMBIRTransmissionPreprocessingFilter.h"
#include "mbirToolSupport.h"
#include "mbir/Preprocessing.h"

namespace {

// Reads dark or bright field files, each a 2-D image [channel, row] or a 3-D stack [channel, row, n], into one
// stack; null when none are given.
mbirtool::ImageType::Pointer
readFields(const std::string & option, const std::vector<std::string> & paths)
{
  if (paths.empty())
  {
    return nullptr;
  }
  std::vector<mbirtool::ImageType::Pointer> images;
  for (const std::string & path : paths)
  {
    images.push_back(mbirtool::readImage(option, path, true));
  }
  if (images.size() == 1)
  {
    return images.front();
  }
  auto size = images.front()->GetLargestPossibleRegion().GetSize();
  size[2] = 0;
  for (std::size_t k = 0; k < images.size(); ++k)
  {
    const auto s = images[k]->GetLargestPossibleRegion().GetSize();
    if (s[0] != size[0] || s[1] != size[1])
    {
      throw std::runtime_error(option + " '" + paths[k] + "' is " + std::to_string(s[0]) + " x " +
                               std::to_string(s[1]) + " but '" + paths[0] + "' is " + std::to_string(size[0]) + " x " +
                               std::to_string(size[1]) + " (channels x rows)");
    }
    size[2] += s[2];
  }
  auto stack = mbirtool::ImageType::New();
  stack->SetRegions(mbirtool::ImageType::RegionType(size));
  stack->Allocate();
  float * out = stack->GetBufferPointer();
  for (const auto & image : images)
  {
    const std::size_t n = image->GetLargestPossibleRegion().GetNumberOfPixels();
    out = std::copy(image->GetBufferPointer(), image->GetBufferPointer() + n, out);
  }
  return stack;
}

} // namespace

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-preprocess",
    "--input FILE --output FILE [--dark FILE ...] [--bright FILE ...] [--bright-after FILE ...] [--weights-output "
    "FILE] [--estimate-center [--geometry FILE [--write-geometry]] [--correct-tilt]] [options]",
    "Turns raw transmission counts [channel, row, view] into line integrals -log((I - D) / (B - D)) and weights: dark "
    "and bright field correction (bright fields before and after the scan interpolated over the views), dead, hot "
    "and non-finite detector cells found, weighted 0 and interpolated, the background offset removed, optionally "
    "rings suppressed. With --estimate-center it also estimates the centre of rotation (det_channel_offset) from "
    "the line integrals and, with --write-geometry, writes it into the --geometry file.",
    { "Reconstruction.MBIR", "Transmission Preprocessing" });
  std::string              input, output, weightsOutput, geometryPath, weightType = "transmission";
  std::vector<std::string> darks, brights, brightsAfter;
  bool                     noOffset = false, perView = false, rings = false, noBadPixels = false;
  bool                     estimateCenter = false, writeGeometry = false, correctTilt = false;
  mbir::PreprocessParams   defaults;
  double                   minTransmission = defaults.minTransmission, saturation = 0.0;
  double                   badThreshold = defaults.badPixelThreshold, angleRange = 2 * M_PI;
  int                      edgeWidth = defaults.edgeWidth, ringWidth = defaults.ringWidth;
  cl.group("Input and output");
  cl.required("--input", "FILE", "raw counts [channel, row, view]; any ITK 3-D image format", input)
    .image(mbirtool::Channel::Input)
    .label("Raw counts");
  cl.required("--output", "FILE", "the line integrals, float, [channel, row, view]", output)
    .image(mbirtool::Channel::Output)
    .label("Line integrals");
  cl.repeated("--dark", "FILE", "dark fields: a 2-D image or a 3-D stack; repeat for more (all averaged)", darks)
    .image(mbirtool::Channel::Input)
    .label("Dark field");
  cl.repeated("--bright", "FILE", "bright (flat) fields taken before the scan; repeatable, averaged", brights)
    .image(mbirtool::Channel::Input)
    .label("Bright field");
  cl.repeated("--bright-after",
              "FILE",
              "bright fields taken after the scan; the bright field is interpolated linearly over the views",
              brightsAfter)
    .image(mbirtool::Channel::Input)
    .label("Bright field after the scan");
  cl.text("--weights-output", "FILE", "write the weights (0 for bad cells and entries)", weightsOutput)
    .image(mbirtool::Channel::Output)
    .label("Weights");
  cl.group("Corrections");
  cl.custom("--weight-type", "TYPE", "transmission, transmission_root, emission or unweighted", weightType, [&](auto & v) {
      weightType = v;
    }).choices({ "transmission", "transmission_root", "emission", "unweighted" });
  cl.number("--min-transmission",
            "T",
            "transmissions below T (zero or negative counts) are clamped to T before -log",
            minTransmission,
            1e-30,
            0.999);
  cl.number("--saturation", "COUNTS", "counts at or above this are saturated (0: no check)", saturation, 0, 1e30);
  cl.flag("--no-bad-pixels", "do not look for dead and hot cells (non-finite ones are still excluded)", noBadPixels);
  cl.number("--bad-pixel-threshold",
            "K",
            "a cell is dead or hot when its median deviation from its neighbours exceeds K robust standard deviations",
            badThreshold,
            1e-3,
            1e6);
  cl.flag("--no-offset", "keep the background offset (the air value of the line integrals)", noOffset);
  cl.flag("--offset-per-view", "estimate and remove one background offset per view", perView);
  cl.integer(
    "--edge-width", "N", "channels of each detector edge used for the background offset", edgeWidth, 1, 1 << 20);
  cl.flag("--rings", "suppress rings: remove per-cell deviations of the view-averaged sinogram", rings);
  cl.integer(
    "--ring-width", "N", "channels of the median that ring suppression compares with (odd)", ringWidth, 3, 1001);
  cl.group("Centre of rotation");
  cl.flag("--estimate-center",
          "estimate the centre of rotation (det_channel_offset) from the line integrals",
          estimateCenter);
  cl.text("--geometry", "FILE", "the scan's geometry JSON (angles, pitch) for --estimate-center", geometryPath)
    .file(mbirtool::Channel::Input, ".json")
    .label("Geometry file");
  cl.flag("--write-geometry", "write the estimated det_channel_offset into the --geometry file", writeGeometry);
  cl.flag("--correct-tilt",
          "with --estimate-center: rotate the projections and weights to undo a measured detector tilt, rewrite "
          "--output and --weights-output, and estimate the centre again",
          correctTilt);
  cl.custom("--angle-range",
            "RAD",
            "without --geometry: parallel beam, views evenly over this range (e.g. pi or 2pi)",
            "2pi",
            [&](auto & v) { angleRange = mbirtool::parseAngle("--angle-range", v); })
    .xmlDefault("2pi");
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    if (correctTilt && !estimateCenter)
    {
      throw mbirtool::UsageError("--correct-tilt needs --estimate-center");
    }
    if (writeGeometry && geometryPath.empty())
    {
      throw mbirtool::UsageError("--write-geometry needs --geometry");
    }
    if ((cl.given("--geometry") || cl.given("--angle-range")) && !estimateCenter)
    {
      throw mbirtool::UsageError(std::string(cl.given("--geometry") ? "--geometry" : "--angle-range") +
                                 " is for --estimate-center");
    }
    if (ringWidth % 2 == 0)
    {
      throw mbirtool::UsageError("--ring-width must be odd, got " + std::to_string(ringWidth));
    }
    if (!brightsAfter.empty() && brights.empty())
    {
      throw mbirtool::UsageError("--bright-after needs --bright (the fields taken before the scan)");
    }
    try
    {
      mbir::parseWeightType(weightType);
    }
    catch (const std::invalid_argument &)
    {
      throw mbirtool::UsageError(
        "--weight-type must be transmission, transmission_root, emission or unweighted, got '" + weightType + "'");
    }
    const itk::MBIRGeometry::Pointer geometry =
      geometryPath.empty() ? nullptr : mbirtool::readGeometry("--geometry", geometryPath);
    const mbirtool::ImageType::Pointer counts = mbirtool::readImage("--input", input);

    using FilterType = itk::MBIRTransmissionPreprocessingFilter<mbirtool::ImageType>;
    auto filter = FilterType::New();
    filter->SetCounts(counts);
    if (const auto dark = readFields("--dark", darks))
      filter->SetDarkField(dark.GetPointer());
    if (const auto bright = readFields("--bright", brights))
      filter->SetBrightField(bright.GetPointer());
    if (const auto after = readFields("--bright-after", brightsAfter))
      filter->SetBrightFieldAfter(after.GetPointer());
    filter->SetMinimumTransmission(static_cast<float>(minTransmission));
    filter->SetSaturationLevel(static_cast<float>(saturation));
    filter->SetDetectBadPixels(!noBadPixels);
    filter->SetBadPixelThreshold(static_cast<float>(badThreshold));
    filter->SetRemoveOffset(!noOffset);
    filter->SetOffsetPerView(perView);
    filter->SetEdgeWidth(edgeWidth);
    filter->SetSuppressRings(rings);
    filter->SetRingWidth(ringWidth);
    filter->SetWeightType(weightType);
    const mbirtool::ToolProgress progress(filter.GetPointer(), "Preprocessing", "raw counts to line integrals");
    filter->Update();
    const mbirtool::ImageType::Pointer lineIntegrals = filter->GetOutput();
    mbirtool::writeImage("--output", output, lineIntegrals.GetPointer());
    if (!weightsOutput.empty())
    {
      mbirtool::writeImage("--weights-output", weightsOutput, filter->GetWeightsOutput());
    }
    const auto size = lineIntegrals->GetLargestPossibleRegion().GetSize();
    std::cout << "line integrals " << size[0] << " channels x " << size[1] << " rows x " << size[2] << " views -> "
              << output << (weightsOutput.empty() ? "" : ", weights (" + weightType + ") -> " + weightsOutput) << "\n";
    for (const std::string & note : filter->GetNotes())
    {
      std::cout << "  " << note << "\n";
    }

    if (!estimateCenter)
    {
      return;
    }
    mbir::Geometry            scan;
    const mbir::SinogramShape shape{ static_cast<int>(size[2]), static_cast<int>(size[1]), static_cast<int>(size[0]) };
    if (geometry)
    {
      scan = geometry->GetEngineGeometry();
    }
    else
    {
      std::vector<float> angles(shape.views);
      for (int v = 0; v < shape.views; ++v)
      {
        angles[v] = static_cast<float>(angleRange * v / shape.views);
      }
      mbir::ParallelBeamGeometry parallel(shape, angles);
      parallel.deltaDetChannel = static_cast<float>(lineIntegrals->GetSpacing()[0]);
      parallel.deltaDetRow = static_cast<float>(lineIntegrals->GetSpacing()[1]);
      parallel.autoSetReconGeometry();
      scan = parallel;
    }
    const mbir::SinogramShape expected = mbir::sinogramShapeOf(scan);
    if (!(expected == shape))
    {
      throw std::runtime_error("the projections are [" + std::to_string(shape.channels) + ", " +
                               std::to_string(shape.rows) + ", " + std::to_string(shape.views) +
                               "] (channels, rows, views) but the geometry has [" + std::to_string(expected.channels) +
                               ", " + std::to_string(expected.rows) + ", " + std::to_string(expected.views) + "]");
    }
    const mbir::ArrayView3 sino(lineIntegrals->GetBufferPointer(), { shape.views, shape.rows, shape.channels });
    const mbir::ArrayView3 weights(filter->GetWeightsOutput()->GetBufferPointer(),
                                   { shape.views, shape.rows, shape.channels });
    mbir::CenterEstimate   centre = mbir::estimateRotationCenter(scan, sino, weights);
    if (correctTilt && centre.tiltMeasured)
    {
      // Rotated in place; bilinear weights near a bad cell are reduced, not zero.
      const double             channelPitch = lineIntegrals->GetSpacing()[0], rowPitch = lineIntegrals->GetSpacing()[1];
      const std::vector<float> rotated = mbir::correctDetectorTilt(sino, centre.tiltDegrees, channelPitch, rowPitch);
      const std::vector<float> rotatedWeights =
        mbir::correctDetectorTilt(weights, centre.tiltDegrees, channelPitch, rowPitch);
      std::copy(rotated.begin(), rotated.end(), lineIntegrals->GetBufferPointer());
      std::copy(rotatedWeights.begin(), rotatedWeights.end(), filter->GetWeightsOutput()->GetBufferPointer());
      std::cout << "detector tilt " << centre.tiltDegrees << " degrees corrected -> " << output
                << (weightsOutput.empty() ? "" : ", " + weightsOutput) << "\n";
      mbirtool::writeImage("--output", output, lineIntegrals.GetPointer());
      if (!weightsOutput.empty())
      {
        mbirtool::writeImage("--weights-output", weightsOutput, filter->GetWeightsOutput());
      }
      centre = mbir::estimateRotationCenter(scan, sino, weights);
    }
    std::cout << "centre of rotation: det_channel_offset " << centre.channels
              << " channels = " << centre.detChannelOffset << " ALU (mm) (" << centre.method << ")";
    if (centre.tiltMeasured)
    {
      std::cout << ", detector tilt " << centre.tiltDegrees << " degrees";
    }
    std::cout << "\n";
    for (const std::string & note : centre.notes)
    {
      std::cout << "  " << note << "\n";
    }
    if (writeGeometry)
    {
      itk::MBIRGeometry::DetectorVectorType offset = geometry->GetDetectorOffset();
      offset[0] = centre.detChannelOffset;
      geometry->SetDetectorOffset(offset);
      try
      {
        geometry->WriteJSON(geometryPath);
      }
      catch (const itk::ExceptionObject & e)
      {
        throw std::runtime_error("--geometry '" + geometryPath + "': cannot write it: " + mbirtool::description(e));
      }
      std::cout << "det_channel_offset " << offset[0] << " written to " << geometryPath << "\n";
    }
  });
}
