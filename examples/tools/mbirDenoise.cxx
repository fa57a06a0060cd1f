// mbir-denoise: qGGMRF denoising of a volume.

#include "itkQGGMRFDenoiseFilter.h"
#include "mbirToolSupport.h"
#ifdef MBIR_HAVE_VTK
#  include "mbirPictures.h"
#endif

#include <chrono>
#include <iomanip>

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-denoise",
    "--input FILE --output FILE [options]",
    "Denoises a volume (float, any ITK 3-D image) with the qGGMRF prior of MBIR: the MAP estimate under white "
    "Gaussian noise. The output has the input's size, spacing and origin. Prints a summary line with the devices "
    "used.",
    { "Reconstruction.MBIR", "qGGMRF Denoising" });
  std::string input, output, referencePath;
  double      sharpness = 0.0, sigmaNoise = 0.0, stopThreshold = 0.2;
  int         maxIterations = 15, seed = 0;
  bool        verbose = false;
  cl.group("Input and output");
  cl.required("--input", "FILE", "the volume to denoise", input).image(mbirtool::Channel::Input).label("Volume");
  cl.required(
    "--output", "FILE", "the denoised volume; any ITK format, chosen by extension (.nrrd, .mha, .tif ...)", output)
    .image(mbirtool::Channel::Output)
    .label("Denoised volume");
  cl.text("--reference", "FILE", "a volume of the input's size to print the NRMSE against", referencePath)
    .image(mbirtool::Channel::Input)
    .label("Reference volume (for the NRMSE)");
  cl.group("Denoising");
  cl.number("--sharpness", "S", "larger is sharper and noisier", sharpness, -100, 100).constraints(-3, 3, 0.25);
  cl.number(
    "--sigma-noise", "SIGMA", "standard deviation of the noise; 0 estimates it from the volume", sigmaNoise, 0, 1e30);
  cl.integer("--max-iterations", "N", "most iterations", maxIterations, 0, 100000).constraints(1, 100, 1);
  cl.number("--stop-threshold",
            "PCT",
            "stop once an iteration changes the volume by less than this percentage",
            stopThreshold,
            0,
            100);
  cl.integer("--seed", "N", "seed of the subset order (the same seed gives the same result)", seed, 0, 2147483647);
  cl.flag("--verbose", "print the log, one line per iteration", verbose);
  std::string plotPath;
  cl.text("--plot",
          "FILE",
          "draw the log to FILE.png: % change (with the stop threshold), loss and step size per iteration",
          plotPath)
    .file(mbirtool::Channel::Output, ".png")
    .label("Convergence plot");
  const mbirtool::DeviceOptions devices(cl);
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    devices.Check();
    if (!plotPath.empty())
      mbirtool::requirePictures("--plot");
    const mbirtool::ImageType::Pointer volume = mbirtool::readImage("--input", input);
    const mbirtool::ImageType::Pointer reference =
      referencePath.empty() ? nullptr : mbirtool::readImage("--reference", referencePath);

    const auto start = std::chrono::steady_clock::now();
    auto       filter = itk::QGGMRFDenoiseFilter<mbirtool::ImageType>::New();
    filter->SetInput(volume);
    filter->SetSharpness(sharpness);
    filter->SetSigmaNoise(sigmaNoise);
    filter->SetMaxIterations(maxIterations);
    filter->SetStopThresholdChangePercent(stopThreshold);
    filter->SetSeed(static_cast<unsigned long>(seed));
    filter->SetVerbose(verbose ? 1 : 0);
    devices.Apply(filter.GetPointer());
    mbirtool::ToolProgress progress(filter.GetPointer(), "qGGMRF denoising", "MAP denoising", verbose);
    progress.ShowIterations(filter.GetPointer());
    filter->Update();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const mbir::DenoiseReport & report = filter->GetDenoiseReport();
#ifdef MBIR_HAVE_VTK
    if (!plotPath.empty())
      mbirtool::writeConvergencePlot("--plot", plotPath, "qGGMRF denoising", report.log, stopThreshold);
#endif

    std::ostringstream line;
    line << "qGGMRF denoise: " << report.log.size() << " iterations, sigma noise " << report.sigmaNoise << ", "
         << std::fixed << std::setprecision(2) << seconds << " s on " << filter->GetDeviceSummary();
    if (reference)
    {
      line << std::setprecision(4) << ", NRMSE "
           << mbirtool::nrmse(
                filter->GetOutput(), "the denoised volume", reference, "--reference '" + referencePath + "'")
           << " against " << referencePath;
    }
    mbirtool::writeImage("--output", output, filter->GetOutput());
    std::cout << line.str() << " -> " << output << "\n";
  });
}
