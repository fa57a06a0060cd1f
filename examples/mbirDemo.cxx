// The main job: simulate a noisy scan (parallel or cone beam) of the 3D Shepp-Logan phantom, reconstruct
// it with the direct recon (FBP or FDK) and with MBIR, and write the volumes and a picture comparing them.

#include "itkImageFileWriter.h"
#include "itkMBIRImageConversion.h"
#include "mbir/GeometryJson.h"
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
  std::string geometry = "parallel";
  int         views = 128;
  int         rows = 64;
  int         channels = 128;
  double      snrDb = 30.0;
};

void
usage(std::ostream & out)
{
  out << "usage: mbir-demo [--output DIR] [--geometry parallel|cone] [--views N] [--rows N] [--channels N]\n"
         "                 [--snr-db DB]\n"
         "Simulates a scan of the 3D Shepp-Logan phantom with Gaussian noise at the given signal-to-noise ratio:\n"
         "parallel beam with views over [0, pi), or cone beam (flat detector, magnification 2, source 2 x channels\n"
         "from the axis) with views over [0, 2 pi). Reconstructs it with the direct recon (FBP, or FDK for cone\n"
         "beam) and MBIR, prints the MBIR log and the NRMSE of both, and writes to DIR:\n"
         "  geometry.json  the scan geometry (engine JSON, lengths in detector channel pitches)\n"
         "  sinogram.nrrd  the noisy sinogram, float, indexed [channel, row, view]\n"
         "  direct.nrrd    the direct recon, float, indexed [x = column, y = row, z = slice]\n"
         "  recon.nrrd     the MBIR volume, same layout\n"
         "  demo.png       central slices (axial, coronal, sagittal) of phantom, direct recon and MBIR, one row each\n"
         "Defaults: --output demo-output --geometry parallel --views 128 --rows 64 --channels 128 --snr-db 30\n";
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
    else if (option == "--geometry")
    {
      options.geometry = value;
      if (options.geometry != "parallel" && options.geometry != "cone")
        throw std::invalid_argument("--geometry must be parallel or cone, got '" + options.geometry + "'");
    }
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

// A (3 x 3) mosaic: rows phantom, direct recon, MBIR; columns the central axial (z), coronal (y) and sagittal (x)
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
voxelSpacing(const mbir::DetectorAndGrid & g)
{
  itk::MBIRImageConversion::ImageType::SpacingType spacing;
  spacing[0] = g.deltaVoxel;
  spacing[1] = g.deltaY();
  spacing[2] = g.deltaZ();
  return spacing;
}

// The scan of the demo: parallel beam over a half turn, or cone beam over a full turn at magnification 2.
mbir::Geometry
makeGeometry(const Options & options)
{
  const mbir::SinogramShape shape{ options.views, options.rows, options.channels };
  const double              turn = options.geometry == "cone" ? 2 * M_PI : M_PI;
  std::vector<float>        angles(options.views);
  for (int v = 0; v < options.views; ++v)
  {
    angles[v] = static_cast<float>(turn * v / options.views);
  }
  if (options.geometry == "cone")
  {
    return mbir::ConeBeamGeometry(shape, angles, 4.0f * options.channels, 2.0f * options.channels);
  }
  return mbir::ParallelBeamGeometry(shape, angles);
}

} // namespace

int
main(int argc, char ** argv)
{
  try
  {
    const Options options = parse(argc, argv);
    std::filesystem::create_directories(options.output);

    const mbir::Geometry          geometry = makeGeometry(options);
    const mbir::DetectorAndGrid & grid = mbir::detectorAndGridOf(geometry);
    const mbir::Reconstructor     reconstructor(geometry, mbir::makeCpuBackend());
    std::cout << "MBIR demo: " << options.geometry
              << " beam, sinogram (views, rows, channels) = " << grid.sinogramShape.str()
              << ", recon (rows, cols, slices) = " << grid.reconShape.str() << ", SNR " << options.snrDb << " dB\n";

    // Simulate: project the phantom and add white Gaussian noise at the requested SNR.
    const std::vector<float> phantom = mbir::sheppLoganLowDynamicRange(grid.reconShape);
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
    const std::vector<float> direct = reconstructor.directRecon(sino);
    const double directSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    const mbir::ReconResult mbir = reconstructor.recon(sino);
    const double mbirSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const double directError = mbir::nrmse(direct, phantom), mbirError = mbir::nrmse(mbir.recon, phantom);
    const char * directName = options.geometry == "cone" ? "FDK" : "FBP";
    std::cout << directName << ":  NRMSE " << directError << " in " << directSeconds << " s\n"
              << "MBIR: NRMSE " << mbirError << " in " << mbirSeconds << " s (" << mbir.log.size() << " iterations)\n"
              << "RESULT direct_nrmse=" << directError << " mbir_nrmse=" << mbirError
              << " direct_seconds=" << directSeconds << " mbir_seconds=" << mbirSeconds << "\n";

    const std::string dir = options.output + "/";
    mbir::writeGeometryFile(geometry, dir + "geometry.json");
    itk::WriteImage(
      itk::MBIRImageConversion::SinogramToImage(sino, grid.sinogramShape, grid.deltaDetChannel, grid.deltaDetRow),
      dir + "sinogram.nrrd");
    itk::WriteImage(itk::MBIRImageConversion::ReconToImage(direct, grid.reconShape, voxelSpacing(grid)),
                    dir + "direct.nrrd");
    itk::WriteImage(itk::MBIRImageConversion::ReconToImage(mbir.recon, grid.reconShape, voxelSpacing(grid)),
                    dir + "recon.nrrd");
    writeComparison({ &phantom, &direct, &mbir.recon }, grid.reconShape, dir + "demo.png");
    std::cout << "Wrote " << dir << "{geometry.json,sinogram.nrrd,direct.nrrd,recon.nrrd,demo.png}\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "mbir-demo: " << e.what() << "\n";
    return 1;
  }
}
