// The main job: simulate the parallel-beam sinogram of the 3D Shepp-Logan phantom and write it as NRRD
// together with a PNG picture of the central detector row over all views.

#include "itkImageFileWriter.h"
#include "itkMBIRImageConversion.h"
#include "mbir/Phantom.h"
#include "mbir/Projector.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

struct Options
{
  std::string output = "demo-output";
  int         views = 128;
  int         rows = 64;
  int         channels = 128;
};

void
usage(std::ostream & out)
{
  out << "usage: mbir-demo [--output DIR] [--views N] [--rows N] [--channels N]\n"
         "Simulates the parallel-beam sinogram of the 3D Shepp-Logan phantom (views over [0, pi)) and writes\n"
         "DIR/sinogram.nrrd (float, [channel, row, view]) and DIR/sinogram.png (central row, views down).\n"
         "Defaults: --output demo-output --views 128 --rows 64 --channels 128\n";
}

int
positive(const std::string & option, const char * value)
{
  char *     end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (*end != '\0' || n <= 0 || n > 16384)
  {
    throw std::invalid_argument(option + " needs a whole number from 1 to 16384, got '" + value + "'");
  }
  return static_cast<int>(n);
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
      throw std::invalid_argument("unknown option or missing value: " + option);
    }
    const char * value = argv[++a];
    if (option == "--output")
      options.output = value;
    else if (option == "--views")
      options.views = positive(option, value);
    else if (option == "--rows")
      options.rows = positive(option, value);
    else if (option == "--channels")
      options.channels = positive(option, value);
    else
      throw std::invalid_argument("unknown option: " + option);
  }
  return options;
}

void
writeSinogramPicture(const std::vector<float> & sino, const mbir::SinogramShape & shape, const std::string & path)
{
  using PictureType = itk::Image<unsigned char, 2>;
  auto picture = PictureType::New();
  picture->SetRegions(PictureType::RegionType(PictureType::SizeType{
    { static_cast<itk::SizeValueType>(shape.channels), static_cast<itk::SizeValueType>(shape.views) } }));
  picture->Allocate();
  const int row = shape.rows / 2;
  float     top = 0.0f;
  for (int v = 0; v < shape.views; ++v)
  {
    for (int n = 0; n < shape.channels; ++n)
    {
      top = std::max(top, sino[(static_cast<std::size_t>(v) * shape.rows + row) * shape.channels + n]);
    }
  }
  for (int v = 0; v < shape.views; ++v)
  {
    for (int n = 0; n < shape.channels; ++n)
    {
      const float value = sino[(static_cast<std::size_t>(v) * shape.rows + row) * shape.channels + n];
      const float grey = top > 0.0f ? std::clamp(value / top, 0.0f, 1.0f) * 255.0f : 0.0f;
      picture->SetPixel({ { n, v } }, static_cast<unsigned char>(std::lround(grey)));
    }
  }
  itk::WriteImage(picture, path);
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
    const mbir::Projector            projector(geometry, mbir::makeCpuBackend());
    std::cout << "MBIR demo: parallel beam, sinogram (views, rows, channels) = " << geometry.sinogramShape.str()
              << ", recon (rows, cols, slices) = " << geometry.reconShape.str() << ", on "
              << projector.backend().description() << "\n";

    const std::vector<float> phantom = mbir::sheppLoganLowDynamicRange(geometry.reconShape);
    const auto               start = std::chrono::steady_clock::now();
    const std::vector<float> sino = projector.forwardProject(phantom.data());
    const double             seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double                   total = 0.0;
    for (const float v : sino)
    {
      total += v;
    }
    std::cout << "Forward projection: " << seconds << " s, sinogram sum " << total << ", max "
              << *std::max_element(sino.begin(), sino.end()) << "\n";

    const std::string volumePath = options.output + "/sinogram.nrrd";
    const std::string picturePath = options.output + "/sinogram.png";
    itk::WriteImage(itk::MBIRImageConversion::SinogramToImage(
                      sino, geometry.sinogramShape, geometry.deltaDetChannel, geometry.deltaDetRow),
                    volumePath);
    writeSinogramPicture(sino, geometry.sinogramShape, picturePath);
    std::cout << "Wrote " << volumePath << " and " << picturePath << "\n";
    return 0;
  }
  catch (const std::exception & e)
  {
    std::cerr << "mbir-demo: " << e.what() << "\n";
    return 1;
  }
}
