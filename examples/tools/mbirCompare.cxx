// mbir-compare: the NRMSE of volumes against a reference, and a picture of their central slices.

#include "mbirToolSupport.h"

#include <algorithm>
#include <iomanip>

namespace {

using PictureType = itk::Image<unsigned char, 2>;

// One band per volume (reference first), each the central axial (z), coronal (y) and sagittal (x) slices side
// by side; grey levels 0..255 over [low, high].
PictureType::Pointer
mosaic(const std::vector<mbirtool::ImageType::Pointer> & volumes, double low, double high)
{
  const auto size = volumes[0]->GetLargestPossibleRegion().GetSize();
  const int  nx = static_cast<int>(size[0]), ny = static_cast<int>(size[1]), nz = static_cast<int>(size[2]);
  const int  band = std::max(ny, nz), width = nx + nx + ny, height = band * static_cast<int>(volumes.size());
  auto       picture = PictureType::New();
  picture->SetRegions(
    PictureType::RegionType(PictureType::SizeType{ { itk::SizeValueType(width), itk::SizeValueType(height) } }));
  picture->Allocate();
  picture->FillBuffer(0);
  for (std::size_t r = 0; r < volumes.size(); ++r)
  {
    const float * v = volumes[r]->GetBufferPointer();
    const auto    at = [&](int x, int y, int z) { return v[(static_cast<std::size_t>(z) * ny + y) * nx + x]; };
    const auto    put = [&](int column, int row, float value) {
      const double grey = std::clamp((value - low) / (high - low), 0.0, 1.0) * 255.0;
      picture->SetPixel({ { column, static_cast<int>(r) * band + row } },
                        static_cast<unsigned char>(std::lround(grey)));
    };
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        put(x, y, at(x, y, nz / 2)); // axial: y down, x across
    for (int z = 0; z < nz; ++z)
      for (int x = 0; x < nx; ++x)
        put(nx + x, z, at(x, ny / 2, z)); // coronal: z down, x across
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        put(2 * nx + y, z, at(nx / 2, y, z)); // sagittal: z down, y across
  }
  return picture;
}

} // namespace

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-compare",
    "--reference FILE --image FILE [--image FILE ...] [--picture FILE] [--range LOW,HIGH]",
    "Prints the NRMSE, ||image - reference|| / ||reference||, of each image against the reference (volumes of the "
    "same size, any ITK 3-D format), and with --picture writes a picture of their central slices: one band per "
    "volume, the reference first, each showing the axial (z), coronal (y) and sagittal (x) slices side by side.",
    { "Reconstruction.MBIR", "Compare Volumes" });
  std::string              referencePath, picturePath;
  std::vector<std::string> imagePaths;
  std::vector<double>      range;
  cl.required("--reference", "FILE", "the reference volume, e.g. the phantom", referencePath);
  cl.repeated("--image", "FILE", "a volume to compare; give the option once per volume", imagePaths);
  cl.text("--picture", "FILE", "the picture to write (.png, or any 2-D ITK format for 8-bit grey)", picturePath);
  cl.custom(
    "--range", "LOW,HIGH", "the values shown black and white", "0 and half the reference's maximum", [&](auto & v) {
      range = mbirtool::parseList("--range", v);
      if (range.size() != 2 || !(range[1] > range[0]))
      {
        throw mbirtool::UsageError("--range needs two numbers LOW,HIGH with LOW < HIGH, got '" + v + "'");
      }
    });
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    if (imagePaths.empty())
    {
      throw mbirtool::UsageError("missing --image FILE");
    }
    std::vector<mbirtool::ImageType::Pointer> volumes{ mbirtool::readImage("--reference", referencePath) };
    for (const std::string & path : imagePaths)
    {
      volumes.push_back(mbirtool::readImage("--image", path));
      std::cout << path << ": NRMSE " << std::fixed << std::setprecision(4)
                << mbirtool::nrmse(
                     volumes.back(), "--image '" + path + "'", volumes[0], "--reference '" + referencePath + "'")
                << "\n";
    }
    if (!picturePath.empty())
    {
      if (range.empty())
      {
        const float * v = volumes[0]->GetBufferPointer();
        const float   top = *std::max_element(v, v + volumes[0]->GetLargestPossibleRegion().GetNumberOfPixels());
        range = { 0.0, top > 0.0f ? 0.5 * top : 1.0 }; // half the maximum, so that soft-tissue contrast shows
      }
      mbirtool::writeImage("--picture", picturePath, mosaic(volumes, range[0], range[1]).GetPointer());
      std::cout << "central slices of " << volumes.size() << " volumes -> " << picturePath << "\n";
    }
  });
}
