// mbir-recon: MBIR or the direct recon (FBP, FDK, ...) of projections with a geometry.

#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRReconstructionFilter.h"
#include "mbirToolSupport.h"

#include <chrono>
#include <iomanip>

namespace {

// The direct recon of each geometry type, by its JSON name.
std::string
directReconName(const itk::MBIRGeometry & geometry)
{
  const std::string type = mbir::geometryTypeName(geometry.GetEngineGeometry());
  return type == "parallel"      ? "FBP"
         : type == "cone"        ? "FDK"
         : type == "translation" ? "normalised back projection"
                                 : "directional FBP";
}

} // namespace

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-recon",
    "--geometry FILE --input FILE --output FILE [--direct] [options]",
    "Reconstructs projections (float, [channel, row, view], spacing the detector pitch, e.g. from mbir-project) "
    "with a geometry: MBIR (weighted least squares with a qGGMRF prior, automatic regularisation from --snr-db and "
    "--sharpness) by default, or with --direct the geometry's direct recon (FBP for parallel beam, FDK for cone "
    "beam, directional FBP for multi-axis, normalised back projection for translation). Writes the volume, float, "
    "[x, y, z], with the geometry's voxel pitch and origin, and prints a summary line with the devices used (and the "
    "MBIR log with --verbose).");
  std::string geometryPath, input, output, weightType = "unweighted", weightsPath, initialPath, referencePath;
  bool        direct = false, positivity = false, verbose = false;
  double      sharpness = 1.0, snrDb = 30.0, stopThreshold = 0.2;
  int         maxIterations = 15, seed = 0;
  cl.required("--geometry", "FILE", "geometry JSON file (see mbir-geometry)", geometryPath);
  cl.required("--input", "FILE", "the projections; any ITK 3-D image format", input);
  cl.required("--output", "FILE", "the volume; any ITK format, chosen by extension (.nrrd, .mha, .tif ...)", output);
  cl.flag("--direct", "the direct recon instead of MBIR (the options below are MBIR's)", direct);
  cl.number("--sharpness", "S", "MBIR: larger is sharper and noisier", sharpness, -100, 100);
  cl.number("--snr-db",
            "DB",
            "MBIR: the assumed signal-to-noise ratio of the projections (default: 30 dB, with sigma_y raised when "
            "the projections show model mismatch that the recon's fit test confirms)",
            snrDb,
            -100,
            300);
  cl.custom("--weight-type",
            "TYPE",
            "MBIR: weights made from the projections: unweighted, transmission, transmission_root or emission",
            weightType,
            [&](const std::string & v) {
              if (v != "unweighted" && v != "transmission" && v != "transmission_root" && v != "emission")
              {
                throw mbirtool::UsageError(
                  "--weight-type must be unweighted, transmission, transmission_root or emission, got '" + v + "'");
              }
              weightType = v;
            });
  cl.text("--weights", "FILE", "MBIR: weights (>= 0) of the projections' size, instead of --weight-type", weightsPath);
  cl.integer("--max-iterations", "N", "MBIR: most iterations", maxIterations, 0, 100000);
  cl.number("--stop-threshold",
            "PCT",
            "MBIR: stop once an iteration changes the volume by less than this percentage",
            stopThreshold,
            0,
            100);
  cl.flag("--positivity", "MBIR: keep every voxel >= 0", positivity);
  cl.integer(
    "--seed", "N", "MBIR: seed of the subset order (the same seed gives the same result)", seed, 0, 2147483647);
  cl.text("--initial", "FILE", "MBIR: start from this volume instead of the scaled direct recon", initialPath);
  cl.flag("--verbose", "MBIR: print the log, one line per iteration", verbose);
  cl.text("--reference", "FILE", "a volume of the output's size to print the NRMSE against", referencePath);
  const mbirtool::DeviceOptions devices(cl);
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    devices.Check();
    if (direct)
    {
      for (const char * option : { "--sharpness",
                                   "--snr-db",
                                   "--weight-type",
                                   "--weights",
                                   "--max-iterations",
                                   "--stop-threshold",
                                   "--positivity",
                                   "--seed",
                                   "--initial",
                                   "--verbose" })
      {
        if (cl.given(option))
        {
          throw mbirtool::UsageError(std::string(option) + " applies to MBIR, not to --direct");
        }
      }
    }
    if (cl.given("--weights") && cl.given("--weight-type"))
    {
      throw mbirtool::UsageError("--weights and --weight-type exclude each other");
    }
    const itk::MBIRGeometry::Pointer   geometry = mbirtool::readGeometry("--geometry", geometryPath);
    const mbirtool::ImageType::Pointer projections = mbirtool::readImage("--input", input);
    // Read every input before the long computation, so that a bad file fails at once.
    const mbirtool::ImageType::Pointer weights =
      weightsPath.empty() ? nullptr : mbirtool::readImage("--weights", weightsPath);
    const mbirtool::ImageType::Pointer initial =
      initialPath.empty() ? nullptr : mbirtool::readImage("--initial", initialPath);
    const mbirtool::ImageType::Pointer reference =
      referencePath.empty() ? nullptr : mbirtool::readImage("--reference", referencePath);

    const auto                   start = std::chrono::steady_clock::now();
    mbirtool::ImageType::Pointer volume;
    std::ostringstream           line;
    std::string                  deviceSummary;
    if (direct)
    {
      auto filter = itk::MBIRDirectReconstructionFilter<mbirtool::ImageType>::New();
      filter->SetInput(projections);
      filter->SetGeometry(geometry);
      devices.Apply(filter.GetPointer());
      filter->Update();
      volume = filter->GetOutput();
      deviceSummary = filter->GetDeviceSummary();
      line << directReconName(*geometry) << ":";
    }
    else
    {
      auto filter = itk::MBIRReconstructionFilter<mbirtool::ImageType>::New();
      filter->SetInput(projections);
      filter->SetGeometry(geometry);
      if (weights)
      {
        filter->SetWeights(weights);
      }
      if (initial)
      {
        filter->SetInitialImage(initial);
      }
      filter->SetSharpness(sharpness);
      filter->SetSNRdB(snrDb);
      filter->SetEstimateNoise(!cl.given("--snr-db")); // an explicit SNR is used as given
      filter->SetWeightType(weightType);
      filter->SetMaxIterations(maxIterations);
      filter->SetStopThresholdChangePercent(stopThreshold);
      filter->SetPositivity(positivity);
      filter->SetSeed(static_cast<unsigned long>(seed));
      filter->SetVerbose(verbose ? 1 : 0);
      devices.Apply(filter.GetPointer());
      filter->Update();
      volume = filter->GetOutput();
      deviceSummary = filter->GetDeviceSummary();
      const mbir::ReconReport & report = filter->GetReconstructionReport();
      line << "MBIR: " << report.log.size() << " iterations"
           << (report.stoppedOnThreshold ? " (stop threshold reached)" : "") << ",";
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    line << std::fixed << std::setprecision(2) << " " << seconds << " s on " << deviceSummary;
    if (reference)
    {
      line << std::setprecision(4) << ", NRMSE "
           << mbirtool::nrmse(volume, "the reconstruction", reference, "--reference '" + referencePath + "'")
           << " against " << referencePath;
    }
    mbirtool::writeImage("--output", output, volume.GetPointer());
    std::cout << line.str() << " -> " << output << "\n";
  });
}
