// The main job: simulate a noisy parallel-beam scan of the 3D Shepp-Logan phantom, reconstruct it with
// FBP and with MBIR, and write the volumes and a picture comparing them.

#include "itkImageFileWriter.h"
#include "itkMBIRImageConversion.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>

namespace {

struct Options
{
  std::string output = "demo-output";
  int         views = 128;
  int         rows = 64;
  int         channels = 128;
  double      snrDb = 30.0;
};

void
usage(std::ostream & out)
{
  out << "usage: mbir-demo [--output DIR] [--views N] [--rows N] [--channels N] [--snr-db DB]\n"
         "Simulates a parallel-beam scan of the 3D Shepp-Logan phantom (views over [0, pi), Gaussian noise at the\n"
         "given signal-to-noise ratio), reconstructs it with FBP and MBIR, prints the MBIR log and the NRMSE of\n"
         "both, and writes to DIR:\n"
         "  sinogram.nrrd  the noisy sinogram, float, indexed [channel, row, view]\n"
         "  fbp.nrrd       the FBP volume, float, indexed [x = column, y = row, z = slice]\n"
         "  recon.nrrd     the MBIR volume, same layout\n"
         "  demo.png       central slices (axial, coronal, sagittal) of phantom, FBP and MBIR, one row each\n"
         "Defaults: --output demo-output --views 128 --rows 64 --channels 128 --snr-db 30\n";
}

double
number(const std::string & option, const char * value, double low, double high)
{
  char *       end = nullptr;
  const double n = std::strtod(value, &end);
  if (*end != '\0' || !(n >= low && n <= high))
  {
    throw std::invalid_argument(option + " needs a number from " + std::to_string(low) + " to " + std::to_string(high) +
                                ", got '" + value + "'");
  }
  return n;
}

Options
parse(int argc, char ** argv)
{
  Options options;
  for (int a = 1; a < argc; ++a)
  {
    const std::string option = argv[a];
    if (option == "--help" || option == "-h")
    {
      usage(std::cout);
      std::exit(0);
    }
    if (a + 1 >= argc)
    {
      throw std::invalid_argument("unknown option or missing value: " + option + " (see --help)");
    }
    const char * value = argv[++a];
    if (option == "--output")
      options.output = value;
    else if (option == "--views")
      options.views = static_cast<int>(number(option, value, 1, 16384));
    else if (option == "--rows")
      options.rows = static_cast<int>(number(option, value, 1, 16384));
    else if (option == "--channels")
      options.channels = static_cast<int>(number(option, value, 2, 16384));
    else if (option == "--snr-db")
      options.snrDb = number(option, value, -40, 200);
    else
      throw std::invalid_argument("unknown option: " + option + " (see --help)");
  }
  return options;
}

// A (3 x 3) mosaic: rows phantom, FBP, MBIR; columns the central axial (z), coronal (y) and sagittal (x)
// slices; grey levels 0..255 over half the phantom's range, so that soft-tissue contrast shows.
void
writeComparison(const std::vector<const std::vector<float> *> & volumes,
                const mbir::ReconShape &                        s,
                const std::string &                             path)
{
  using PictureType = itk::Image<unsigned char, 2>;
  const int width = s.cols + s.cols + s.rows, height = 3 * std::max(s.rows, s.slices);
  auto      picture = PictureType::New();
  picture->SetRegions(
    PictureType::RegionType(PictureType::SizeType{ { itk::SizeValueType(width), itk::SizeValueType(height) } }));
  picture->Allocate();
  picture->FillBuffer(0);
  const float top = 0.5f * *std::max_element(volumes[0]->begin(), volumes[0]->end());
  auto        put = [&](int x, int y, float v) {
    picture->SetPixel({ { x, y } }, static_cast<unsigned char>(std::lround(std::clamp(v / top, 0.0f, 1.0f) * 255.0f)));
  };
  const int band = std::max(s.rows, s.slices);
  for (int r = 0; r < 3; ++r)
  {
    const std::vector<float> & v = *volumes[r];
    auto at = [&](int i, int j, int k) { return v[(static_cast<std::size_t>(i) * s.cols + j) * s.slices + k]; };
    for (int i = 0; i < s.rows; ++i)
      for (int j = 0; j < s.cols; ++j)
        put(j, r * band + i, at(i, j, s.slices / 2)); // axial: rows down, columns across
    for (int k = 0; k < s.slices; ++k)
      for (int j = 0; j < s.cols; ++j)
        put(s.cols + j, r * band + k, at(s.rows / 2, j, k)); // slices down, columns across
    for (int k = 0; k < s.slices; ++k)
      for (int i = 0; i < s.rows; ++i)
        put(2 * s.cols + i, r * band + k, at(i, s.cols / 2, k)); // slices down, rows across
  }
  itk::WriteImage(picture, path);
}

itk::MBIRImageConversion::ImageType::SpacingType
voxelSpacing(const mbir::ParallelBeamGeometry & g)
{
  itk::MBIRImageConversion::ImageType::SpacingType spacing;
  spacing[0] = g.deltaVoxel;
  spacing[1] = g.deltaVoxel * g.voxelRowAspect;
  spacing[2] = g.deltaDetRow;
  return spacing;
}

} // namespace

int
main(int argc, char ** argv)
{
  try
  {
    const Options options = parse(argc, argv);
    std::filesystem::create_directories(options.output);

    std::vector<float> angles(options.views);
    for (int v = 0; v < options.views; ++v)
    {
      angles[v] = static_cast<float>(M_PI * v / options.views);
    }
    const mbir::ParallelBeamGeometry geometry(mbir::SinogramShape{ options.views, options.rows, options.channels },
                                              angles);
    const mbir::Reconstructor        reconstructor(geometry, mbir::makeCpuBackend());
    std::cout << "MBIR demo: parallel beam, sinogram (views, rows, channels) = " << geometry.sinogramShape.str()
              << ", recon (rows, cols, slices) = " << geometry.reconShape.str() << ", SNR " << options.snrDb << " dB\n";

    // Simulate: project the phantom and add white Gaussian noise at the requested SNR.
    const std::vector<float> phantom = mbir::sheppLoganLowDynamicRange(geometry.reconShape);
    std::vector<float>       sino = reconstructor.forwardProject(phantom);
    double                   power = 0.0;
    for (const float v : sino)
      power += double(v) * v;
    const double                     noise = std::sqrt(power / sino.size()) * std::pow(10.0, -options.snrDb / 20.0);
    std::mt19937                     engine(2026);
    std::normal_distribution<double> normal(0.0, noise);
    for (float & v : sino)
      v += static_cast<float>(normal(engine));

    auto                     start = std::chrono::steady_clock::now();
    const std::vector<float> fbp = reconstructor.directRecon(sino);
    const double fbpSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    const mbir::ReconResult mbir = reconstructor.recon(sino);
    const double mbirSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const double fbpError = mbir::nrmse(fbp, phantom), mbirError = mbir::nrmse(mbir.recon, phantom);
    std::cout << "FBP:  NRMSE " << fbpError << " in " << fbpSeconds << " s\n"
              << "MBIR: NRMSE " << mbirError << " in " << mbirSeconds << " s (" << mbir.log.size() << " iterations)\n"
              << "RESULT fbp_nrmse=" << fbpError << " mbir_nrmse=" << mbirError << " fbp_seconds=" << fbpSeconds
              << " mbir_seconds=" << mbirSeconds << "\n";

    const std::string dir = options.output + "/";
    itk::WriteImage(itk::MBIRImageConversion::SinogramToImage(
                      sino, geometry.sinogramShape, geometry.deltaDetChannel, geometry.deltaDetRow),
                    dir + "sinogram.nrrd");
    itk::WriteImage(itk::MBIRImageConversion::ReconToImage(fbp, geometry.reconShape, voxelSpacing(geometry)),
                    dir + "fbp.nrrd");
    itk::WriteImage(itk::MBIRImageConversion::ReconToImage(mbir.recon, geometry.reconShape, voxelSpacing(geometry)),
                    dir + "recon.nrrd");
    writeComparison({ &phantom, &fbp, &mbir.recon }, geometry.reconShape, dir + "demo.png");
    std::cout << "Wrote " << dir << "{sinogram,fbp,recon}.nrrd and " << dir << "demo.png\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "mbir-demo: " << e.what() << "\n";
    return 1;
  }
}
