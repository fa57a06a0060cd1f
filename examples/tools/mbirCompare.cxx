// mbir-compare: the NRMSE of volumes against a reference, and a labelled picture of their central slices.

#ifdef MBIR_HAVE_VTK
#  include "mbirPictures.h"
#else
#  include "mbirToolSupport.h"
#endif

#include <algorithm>
#include <iomanip>


int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-compare",
    "--reference FILE --image FILE [--image FILE ...] [--picture FILE] [--range LOW,HIGH]",
    "Prints the NRMSE, ||image - reference|| / ||reference||, of each image against the reference (volumes of the "
    "same size, any ITK 3-D format), and with --picture writes a picture of their central slices: a row per "
    "volume, the reference first, each showing the axial (z), coronal (y) and sagittal (x) slices side by side, "
    "labelled with the volume's name, its NRMSE and the slice positions, in one grey window, with a colour bar and "
    "a scale bar in mm.",
    { "Reconstruction.MBIR", "Compare Volumes" });
  std::string              referencePath, picturePath;
  std::vector<std::string> imagePaths;
  std::vector<double>      range;
  cl.required("--reference", "FILE", "the reference volume, e.g. the phantom", referencePath);
  cl.repeated("--image", "FILE", "a volume to compare; give the option once per volume", imagePaths);
  cl.text("--picture", "FILE", "the picture to write (.png)", picturePath);
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
    if (!picturePath.empty())
      mbirtool::requirePictures("--picture");
    std::vector<mbirtool::ImageType::Pointer> volumes{ mbirtool::readImage("--reference", referencePath) };
    std::vector<std::string>                  notes{ "reference" };
    for (const std::string & path : imagePaths)
    {
      volumes.push_back(mbirtool::readImage("--image", path));
      const double error =
        mbirtool::nrmse(volumes.back(), "--image '" + path + "'", volumes[0], "--reference '" + referencePath + "'");
      std::ostringstream note;
      note << "NRMSE " << std::fixed << std::setprecision(4) << error;
      notes.push_back(note.str());
      std::cout << path << ": " << note.str() << "\n";
    }
    if (!picturePath.empty())
    {
#ifdef MBIR_HAVE_VTK
      if (volumes.size() > 4)
        throw mbirtool::UsageError("--picture shows four volumes at most (the reference and three images)");
      if (range.empty())
      {
        const float * v = volumes[0]->GetBufferPointer();
        const float   top = *std::max_element(v, v + volumes[0]->GetLargestPossibleRegion().GetNumberOfPixels());
        range = { 0.0, top > 0.0f ? 0.5 * top : 1.0 }; // half the maximum, so that soft-tissue contrast shows
      }
      std::vector<mbirtool::PictureVolume> rows;
      for (std::size_t i = 0; i < volumes.size(); ++i)
      {
        const std::string & path = i == 0 ? referencePath : imagePaths[i - 1];
        rows.push_back({ std::filesystem::path(path).filename().string(), volumes[i], notes[i] });
      }
      const mbirtool::Display display;
      mbirtool::SliceMontage  montage(rows, 1200, true);
      montage.SetWindow(range[0], range[1]);
      montage.WritePng("--picture", picturePath);
      std::cout << "central slices of " << volumes.size() << " volumes -> " << picturePath << "\n";
#endif
    }
  });
}
