// mbir-project: simulates a scan, the forward projection of a volume, with optional Gaussian noise.

#include "itkMBIRForwardProjectionFilter.h"
#include "mbirToolSupport.h"

#include <random>

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-project",
    "--geometry FILE --input FILE --output FILE [--snr-db DB [--seed N]] [--devices SPEC] [--use-gpu POLICY]",
    "Forward-projects a volume (float, [x, y, z], the geometry's volume size and voxel pitch, e.g. from mbir-phantom) "
    "with a geometry and writes the projections, float, indexed [channel, row, view], spacing the detector pitch. "
    "With --snr-db it adds white Gaussian noise of standard deviation rms(projections) * 10^(-SNR/20).");
  std::string geometryPath, input, output;
  double      snrDb = 0.0;
  int         seed = 0;
  cl.required("--geometry", "FILE", "geometry JSON file (see mbir-geometry)", geometryPath);
  cl.required("--input", "FILE", "the volume to project; any ITK 3-D image format", input);
  cl.required(
    "--output", "FILE", "the projections; any ITK format, chosen by extension (.nrrd, .mha, .tif ...)", output);
  cl.custom("--snr-db", "DB", "add Gaussian noise at this signal-to-noise ratio in dB", "no noise", [&](auto & v) {
    snrDb = mbirtool::parseNumber("--snr-db", v, -100, 300);
  });
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
