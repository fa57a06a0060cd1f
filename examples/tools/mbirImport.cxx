// mbir-import: a real scan's files (a TIFF folder with a JSON sidecar, a DXchange HDF5 file or a Nikon .xtekct
// file) as a geometry file and raw projections, dark and bright images that the other tools read.

#include "itkMBIRScanReader.h"
#include "mbirToolSupport.h"

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-import",
    "--tiff-folder DIR --sidecar FILE | --dxchange FILE | --xtekct FILE  --geometry FILE --projections FILE "
    "[--dark FILE] [--bright FILE]",
    "Reads a scan's files with no hand editing (README \"Real scanner data: files\") and writes its geometry (JSON, "
    "lengths in mm, angles in radians, the default volume grid) and its raw projections, float [channel, row, view] "
    "with the detector pitch as spacing, as the other tools take them; the dark and bright fields, when the files "
    "hold them, go to --dark and --bright. The projections are not normalised: that is the next step.",
    { "Reconstruction.MBIR", "Import Scan Files" });
  std::string tiffFolder, sidecar, dxchange, xtekct, geometryPath, projectionsPath, darkPath, brightPath;
  bool        reverse = false;
  double      pixelSize = 0.0;
  cl.group("Scan files", "One of: a TIFF folder with its sidecar, a DXchange file, a Nikon .xtekct file");
  cl.text(
    "--tiff-folder", "DIR", "a folder of TIFF projections, one per file, sorted by name (with --sidecar)", tiffFolder)
    .directory(mbirtool::Channel::Input)
    .label("TIFF folder");
  cl.text("--sidecar",
          "FILE",
          "the JSON file that describes the TIFF folder: geometry, angles or angles_file, angle_unit, pixel_size, "
          "distances, dark and bright patterns",
          sidecar)
    .file(mbirtool::Channel::Input, ".json")
    .label("Sidecar (TIFF folder)");
  cl.text(
    "--dxchange", "FILE", "an HDF5 file in the DXchange layout (/exchange/data, theta, ...): parallel beam", dxchange)
    .file(mbirtool::Channel::Input, ".h5,.hdf5,.hdf")
    .label("DXchange file");
  cl.text("--xtekct", "FILE", "a Nikon .xtekct file, its projections <Name>_0001.tif ... beside it: cone beam", xtekct)
    .file(mbirtool::Channel::Input, ".xtekct")
    .label("Nikon .xtekct file");
  cl.number("--pixel-size",
            "MM",
            "DXchange: the detector pitch in mm when the file gives none (0: the file must give it)",
            pixelSize,
            0,
            1e6);
  cl.flag(
    "--reverse-rotation", "negate every angle, for a scanner that turns the other way (a mirrored recon)", reverse);
  cl.group("Outputs");
  cl.required("--geometry", "FILE", "the geometry JSON file to write", geometryPath)
    .file(mbirtool::Channel::Output, ".json")
    .label("Geometry file");
  cl.required(
    "--projections", "FILE", "the raw projections to write; any ITK format (.nrrd, .mha ...)", projectionsPath)
    .image(mbirtool::Channel::Output)
    .label("Raw projections");
  cl.text("--dark", "FILE", "the dark frames to write, [channel, row, frame], when the scan has them", darkPath)
    .image(mbirtool::Channel::Output)
    .label("Dark frames");
  cl.text(
    "--bright", "FILE", "the bright (flat) frames to write, [channel, row, frame], when the scan has them", brightPath)
    .image(mbirtool::Channel::Output)
    .label("Bright frames");
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    const int sources = !tiffFolder.empty() + !dxchange.empty() + !xtekct.empty();
    if (sources != 1)
    {
      throw mbirtool::UsageError("give one of --tiff-folder (with --sidecar), --dxchange or --xtekct");
    }
    if (tiffFolder.empty() != sidecar.empty())
    {
      throw mbirtool::UsageError(sidecar.empty() ? "--tiff-folder needs --sidecar FILE"
                                                 : "--sidecar goes with --tiff-folder");
    }
    if (pixelSize > 0.0 && dxchange.empty())
    {
      throw mbirtool::UsageError("--pixel-size applies to --dxchange only");
    }
    itk::MBIRScanReader::Options options;
    options.PixelSize = pixelSize;
    options.ReverseRotation = reverse;
    const itk::MBIRScanReader::Scan scan = !tiffFolder.empty()
                                             ? itk::MBIRScanReader::ReadTiffFolder(tiffFolder, sidecar, options)
                                           : !dxchange.empty() ? itk::MBIRScanReader::ReadDXchange(dxchange, options)
                                                               : itk::MBIRScanReader::ReadXtekCT(xtekct, options);
    const std::string               source = !tiffFolder.empty() ? sidecar : !dxchange.empty() ? dxchange : xtekct;
    if (!darkPath.empty() && scan.Dark.IsNull())
    {
      throw std::runtime_error("--dark: '" + source + "' has no dark frames");
    }
    if (!brightPath.empty() && scan.Bright.IsNull())
    {
      throw std::runtime_error("--bright: '" + source + "' has no bright frames");
    }
    try
    {
      scan.Geometry->WriteJSON(geometryPath);
    }
    catch (const itk::ExceptionObject & e)
    {
      throw std::runtime_error("--geometry '" + geometryPath + "': " + mbirtool::description(e));
    }
    mbirtool::writeImage("--projections", projectionsPath, scan.Projections.GetPointer());
    if (!darkPath.empty())
    {
      mbirtool::writeImage("--dark", darkPath, scan.Dark.GetPointer());
    }
    if (!brightPath.empty())
    {
      mbirtool::writeImage("--bright", brightPath, scan.Bright.GetPointer());
    }
    const auto size = scan.Projections->GetLargestPossibleRegion().GetSize();
    const auto pitch = scan.Geometry->GetDetectorSpacing();
    std::cout << mbir::geometryTypeName(scan.Geometry->GetEngineGeometry()) << ", " << size[2] << " views of "
              << size[1] << " rows x " << size[0] << " channels of " << pitch[0] << " x " << pitch[1] << " mm";
    auto frames = [](const itk::MBIRScanReader::ImageType * image) {
      return image ? std::to_string(image->GetLargestPossibleRegion().GetSize()[2]) : std::string("no");
    };
    std::cout << "; " << frames(scan.Dark) << " dark, " << frames(scan.Bright) << " bright frames\n";
    for (const std::string & note : scan.Notes)
    {
      std::cout << "  " << note << "\n";
    }
    if ((scan.Dark && darkPath.empty()) || (scan.Bright && brightPath.empty()))
    {
      std::cout << "  the dark and bright frames were not written: give --dark and --bright\n";
    }
    std::cout << "-> " << geometryPath << ", " << projectionsPath << "\n";
  });
}
