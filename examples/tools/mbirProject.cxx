// mbir-project: simulates a scan, the forward projection of a volume, with optional Gaussian noise; built a
// second time as mbir-back-project (MBIR_BACK_PROJECTION), the adjoint, a Slicer module of its own.

#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "mbirToolSupport.h"

#include <random>

#ifdef MBIR_BACK_PROJECTION

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-back-project",
    "--geometry FILE --input FILE --output FILE [--devices SPEC] [--use-gpu POLICY]",
    "Back-projects projections (float, [channel, row, view], spacing the detector pitch) with a geometry: the exact "
    "adjoint of mbir-project's forward projection, unfiltered (not a reconstruction; see mbir-direct-recon). Writes "
    "a volume, float, [x, y, z], with the geometry's voxel pitch and origin.",
    { "Reconstruction.MBIR", "Back Projection" });
  std::string geometryPath, input, output;
  cl.group("Input and output");
  mbirtool::geometryOption(cl, geometryPath);
  mbirtool::projectionsToVolumeOptions(cl, input, output);
  const mbirtool::DeviceOptions devices(cl);
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    devices.Check();
    const itk::MBIRGeometry::Pointer   geometry = mbirtool::readGeometry("--geometry", geometryPath);
    const mbirtool::ImageType::Pointer projections = mbirtool::readProjections("--input", input, false);
    auto                               projector = itk::MBIRBackProjectionFilter<mbirtool::ImageType>::New();
    projector->SetInput(projections);
    projector->SetGeometry(geometry);
    devices.Apply(projector.GetPointer());
    const mbirtool::ToolProgress progress(projector.GetPointer(), "Back projection", "adjoint of the projector");
    projector->Update();
    mbirtool::writeImage("--output", output, projector->GetOutput());
    const auto size = projector->GetOutput()->GetLargestPossibleRegion().GetSize();
    std::cout << "volume " << size[0] << " x " << size[1] << " x " << size[2] << " voxels on "
              << projector->GetDeviceSummary() << " -> " << output << "\n";
  });
}

#else

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-project",
    "--geometry FILE --input FILE --output FILE [--snr-db DB [--seed N]] [--devices SPEC] [--use-gpu POLICY]",
    "Forward-projects a volume (float, [x, y, z], the geometry's volume size and voxel pitch, e.g. from mbir-phantom) "
    "with a geometry and writes the projections, float, indexed [channel, row, view], spacing the detector pitch. "
    "With --snr-db it adds white Gaussian noise of standard deviation rms(projections) * 10^(-SNR/20).",
    { "Reconstruction.MBIR", "Forward Projection" });
  std::string geometryPath, input, output;
  double      snrDb = 0.0;
  int         seed = 0;
  cl.group("Input and output");
  mbirtool::geometryOption(cl, geometryPath);
  cl.required("--input", "FILE", "the volume to project; any ITK 3-D image format", input)
    .image(mbirtool::Channel::Input)
    .label("Volume");
  cl.required(
    "--output", "FILE", "the projections; any ITK format, chosen by extension (.nrrd, .mha, .tif ...)", output)
    .image(mbirtool::Channel::Output)
    .label("Output projections");
  cl.group("Noise");
  // No XML default: Slicer passes an empty text box as nothing, so no noise.
  cl.custom("--snr-db", "DB", "add Gaussian noise at this signal-to-noise ratio in dB", "no noise", [&](auto & v) {
      snrDb = mbirtool::parseNumber("--snr-db", v, -100, 300);
    }).label("SNR (dB), empty for none");
  cl.integer("--seed", "N", "seed of the noise generator (the same seed gives the same noise)", seed, 0, 2147483647);
  const mbirtool::DeviceOptions devices(cl);
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    devices.Check();
    if (cl.given("--seed") && !cl.given("--snr-db"))
    {
      throw mbirtool::UsageError("--seed needs --snr-db (without noise there is nothing to seed)");
    }
    const itk::MBIRGeometry::Pointer   geometry = mbirtool::readGeometry("--geometry", geometryPath);
    const mbirtool::ImageType::Pointer volume = mbirtool::readImage("--input", input);

    auto projector = itk::MBIRForwardProjectionFilter<mbirtool::ImageType>::New();
    projector->SetInput(volume);
    projector->SetGeometry(geometry);
    devices.Apply(projector.GetPointer());
    const mbirtool::ToolProgress progress(projector.GetPointer(), "Forward projection", "simulated scan");
    projector->Update();
    const mbirtool::ImageType::Pointer projections = projector->GetOutput();
    projections->DisconnectPipeline();

    std::ostringstream noiseText;
    if (cl.given("--snr-db"))
    {
      float * const     values = projections->GetBufferPointer();
      const std::size_t n = projections->GetLargestPossibleRegion().GetNumberOfPixels();
      double            power = 0.0;
      for (std::size_t i = 0; i < n; ++i)
      {
        power += double(values[i]) * values[i];
      }
      const double sigma = std::sqrt(power / static_cast<double>(n)) * std::pow(10.0, -snrDb / 20.0);
      std::mt19937 engine(static_cast<std::mt19937::result_type>(seed));
      std::normal_distribution<double> normal(0.0, sigma);
      for (std::size_t i = 0; i < n; ++i)
      {
        values[i] += static_cast<float>(normal(engine));
      }
      noiseText << ", Gaussian noise of sigma " << sigma << " (SNR " << snrDb << " dB, seed " << seed << ")";
    }
    mbirtool::writeImage("--output", output, projections.GetPointer());
    const auto size = projections->GetLargestPossibleRegion().GetSize();
    std::cout << "projections " << size[0] << " channels x " << size[1] << " rows x " << size[2] << " views on "
              << projector->GetDeviceSummary() << noiseText.str() << " -> " << output << "\n";
  });
}

#endif
