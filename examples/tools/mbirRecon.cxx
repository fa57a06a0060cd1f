// mbir-recon: MBIR or the direct recon (FBP, FDK, ...) of projections with a geometry; built a second time as
// mbir-direct-recon (MBIR_DIRECT_ONLY), the direct recon alone, a Slicer module of its own.

#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRReconstructionFilter.h"
#include "mbirToolSupport.h"
#ifdef MBIR_HAVE_VTK
#  include "mbirPictures.h"
#endif

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
#ifdef MBIR_DIRECT_ONLY // mbir-direct-recon: the same program with the direct recon only (its own Slicer module)
  constexpr bool directOnly = true;
  mbirtool::CommandLine cl(
    "mbir-direct-recon",
    "--geometry FILE --input FILE --output FILE [options]",
    "Reconstructs projections (float, [channel, row, view], spacing the detector pitch) with the geometry's direct "
    "recon: FBP for parallel beam, FDK for cone beam, directional FBP for multi-axis, normalised back projection for "
    "translation. Writes the volume, float, [x, y, z], with the geometry's voxel pitch and origin. The same as "
    "mbir-recon --direct.",
    { "Reconstruction.MBIR", "Direct Reconstruction (FBP/FDK)" });
#else
  constexpr bool directOnly = false;
  mbirtool::CommandLine cl(
    "mbir-recon",
    "--geometry FILE --input FILE --output FILE [--direct] [options]",
    "Reconstructs projections (float, [channel, row, view], spacing the detector pitch, e.g. from mbir-project) "
    "with a geometry: MBIR (weighted least squares with a qGGMRF prior, automatic regularisation from --snr-db and "
    "--sharpness) by default, or with --direct the geometry's direct recon (FBP for parallel beam, FDK for cone "
    "beam, directional FBP for multi-axis, normalised back projection for translation). Writes the volume, float, "
    "[x, y, z], with the geometry's voxel pitch and origin, and prints a summary line with the devices used (and the "
    "MBIR log with --verbose).",
    { "Reconstruction.MBIR", "MBIR Reconstruction" });
#endif
  std::string geometryPath, input, output, weightType = "unweighted", weightsPath, initialPath, referencePath;
  std::string checkpointPath, resumePath, plotPath;
  bool        direct = directOnly, positivity = false, verbose = false, noNoiseEstimate = false;
  double      sharpness = 1.0, snrDb = 30.0, stopThreshold = 0.2;
  int         maxIterations = 15, seed = 0, checkpointEvery = 1;
  cl.group("Input and output");
  mbirtool::geometryOption(cl, geometryPath);
  mbirtool::projectionsToVolumeOptions(cl, input, output);
  cl.text("--reference", "FILE", "a volume of the output's size to print the NRMSE against", referencePath)
    .image(mbirtool::Channel::Input)
    .label("Reference volume (for the NRMSE)");
  if (!directOnly)
  {
    cl.flag("--direct", "the direct recon instead of MBIR (the options below are MBIR's)", direct).notInSlicer();
    cl.text("--weights", "FILE", "MBIR: weights (>= 0) of the projections' size, instead of --weight-type", weightsPath)
      .image(mbirtool::Channel::Input)
      .label("Weights");
    cl.text("--initial", "FILE", "MBIR: start from this volume instead of the scaled direct recon", initialPath)
      .image(mbirtool::Channel::Input)
      .label("Initial volume");
    cl.group("Regularisation", "How smooth the volume is and how closely it fits the projections");
    cl.number("--sharpness", "S", "MBIR: larger is sharper and noisier", sharpness, -100, 100)
      .constraints(-3, 3, 0.25);
    cl.number("--snr-db",
              "DB",
              "MBIR: the assumed signal-to-noise ratio of the projections; a value other than 30 is used as given, "
              "30 with sigma_y raised when the projections show model mismatch that the recon's fit test confirms "
              "(README \"Automatic regularisation\")",
              snrDb,
              -100,
              300)
      .constraints(0, 60, 1)
      .label("SNR (dB)");
    cl.flag("--no-noise-estimate", "MBIR: sigma_y from --snr-db alone, as MBIRJAX (no raise for model mismatch)",
            noNoiseEstimate);
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
              })
      .choices({ "unweighted", "transmission", "transmission_root", "emission" });
    cl.flag("--positivity", "MBIR: keep every voxel >= 0", positivity);
    cl.group("Iterations");
    cl.integer("--max-iterations", "N", "MBIR: most iterations", maxIterations, 0, 100000).constraints(1, 100, 1);
    cl.number("--stop-threshold",
              "PCT",
              "MBIR: stop once an iteration changes the volume by less than this percentage",
              stopThreshold,
              0,
              100)
      .constraints(0, 5, 0.05);
    cl.integer(
      "--seed", "N", "MBIR: seed of the subset order (the same seed gives the same result)", seed, 0, 2147483647);
    cl.flag("--verbose", "MBIR: print the log, one line per iteration", verbose);
    cl.text("--plot",
            "FILE",
            "MBIR: draw the log to FILE.png: % change (with the stop threshold), forward loss, prior loss and step "
            "size per iteration",
            plotPath)
      .file(mbirtool::Channel::Output, ".png")
      .label("Convergence plot");
    cl.group("Checkpoint and resume", "Save a long recon's state to continue it after a stop or a crash");
    cl.text("--checkpoint",
            "FILE",
            "MBIR: save the recon's state to FILE (atomically) every --checkpoint-every iterations and at SIGINT / "
            "SIGTERM, to continue with --resume",
            checkpointPath)
      .file(mbirtool::Channel::Output, ".mbirckpt")
      .label("Checkpoint file");
    cl.integer("--checkpoint-every", "N", "MBIR: iterations between two checkpoints", checkpointEvery, 1, 100000)
      .constraints(1, 20, 1);
    cl.text("--resume",
            "FILE",
            "MBIR: continue the recon saved in FILE by --checkpoint; the projections, geometry and MBIR options must be "
            "those of the saved run",
            resumePath)
      .file(mbirtool::Channel::Input, ".mbirckpt")
      .label("Resume from");
  }
  const mbirtool::DeviceOptions devices(cl);
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    devices.Check();
    if (direct && !directOnly)
    {
      // Slicer passes every option with its default: only other values are refused.
      for (const char * option : { "--sharpness",
                                   "--snr-db",
                                   "--no-noise-estimate",
                                   "--weight-type",
                                   "--weights",
                                   "--max-iterations",
                                   "--stop-threshold",
                                   "--positivity",
                                   "--seed",
                                   "--initial",
                                   "--verbose",
                                   "--plot",
                                   "--checkpoint",
                                   "--checkpoint-every",
                                   "--resume" })
      {
        if (cl.given(option))
        {
          throw mbirtool::UsageError(std::string(option) + " applies to MBIR, not to --direct");
        }
      }
    }
    if (!plotPath.empty())
      mbirtool::requirePictures("--plot");
    if (!directOnly && cl.given("--weights") && cl.given("--weight-type"))
    {
      throw mbirtool::UsageError("--weights and --weight-type exclude each other");
    }
    if (!directOnly && cl.given("--initial") && cl.given("--resume"))
    {
      throw mbirtool::UsageError("--initial and --resume exclude each other (a resume starts from its checkpoint)");
    }
    if (!directOnly && cl.given("--checkpoint-every") && checkpointPath.empty())
    {
      throw mbirtool::UsageError("--checkpoint-every needs --checkpoint FILE");
    }
    const itk::MBIRGeometry::Pointer   geometry = mbirtool::readGeometry("--geometry", geometryPath);
    const mbirtool::ImageType::Pointer projections = mbirtool::readProjections("--input", input, verbose);
    // Read every input before the long computation, so that a bad file fails at once.
    const mbirtool::ImageType::Pointer weights =
      weightsPath.empty() ? nullptr : mbirtool::readProjections("--weights", weightsPath, verbose);
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
      const mbirtool::ToolProgress progress(filter.GetPointer(), "Direct recon", directReconName(*geometry));
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
      filter->SetEstimateNoise(!cl.given("--snr-db") && !noNoiseEstimate); // an explicit SNR is used as given
      filter->SetWeightType(weightType);
      filter->SetMaxIterations(maxIterations);
      filter->SetStopThresholdChangePercent(stopThreshold);
      filter->SetPositivity(positivity);
      filter->SetSeed(static_cast<unsigned long>(seed));
      filter->SetVerbose(verbose ? 1 : 0);
      filter->SetComputePriorLoss(!plotPath.empty()); // a pass over the volume per iteration, for the plot only
      filter->SetCheckpointFileName(checkpointPath);
      filter->SetCheckpointEvery(checkpointEvery);
      filter->SetResumeFileName(resumePath);
      if (!checkpointPath.empty())
        mbirtool::noteSavedState(checkpointPath, "--resume");
      devices.Apply(filter.GetPointer());
      mbirtool::ToolProgress progress(filter.GetPointer(), "MBIR", "MBIR reconstruction", verbose);
      progress.ShowIterations(filter.GetPointer());
      filter->Update();
      volume = filter->GetOutput();
      deviceSummary = filter->GetDeviceSummary();
      const mbir::ReconReport & report = filter->GetReconstructionReport();
      line << "MBIR: " << report.log.size() << " iterations"
           << (report.stoppedOnThreshold ? " (stop threshold reached)" : "") << ",";
#ifdef MBIR_HAVE_VTK
      if (!plotPath.empty())
        mbirtool::writeConvergencePlot("--plot", plotPath, "MBIR", report.log, stopThreshold);
#endif
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    line << std::fixed << std::setprecision(2) << " " << seconds << " s on " << deviceSummary;
    if (reference)
    {
      line << std::setprecision(4) << ", NRMSE "
           << mbirtool::nrmse(volume, "the reconstruction", reference, "--reference '" + referencePath + "'")
           << " against " << referencePath;
    }
    mbirtool::reportVolumeHeld("--output", output, volume.GetPointer(), verbose);
    mbirtool::writeImage("--output", output, volume.GetPointer());
    std::cout << line.str() << " -> " << output << "\n";
  });
}
