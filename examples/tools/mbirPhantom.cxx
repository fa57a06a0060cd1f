// mbir-phantom: the 3-D Shepp-Logan phantom on the volume grid of a geometry file, at its physical place.

#include "itkMBIRImageConversion.h"
#include "mbir/Phantom.h"
#include "mbirToolSupport.h"

int
main(int argc, char ** argv)
{
  mbirtool::CommandLine cl(
    "mbir-phantom",
    "--geometry FILE --output FILE",
    "Writes the low-dynamic-range 3-D Shepp-Logan phantom (values 0 to 1) on the volume grid of a geometry file: its "
    "size, voxel pitch and origin, so that the phantom lies where the geometry's volume lies and mbir-project can "
    "project it. It spans the grid along each axis. The volume is float, indexed [x = column, y = row, z = slice].",
    { "Reconstruction.MBIR", "Shepp-Logan Phantom" });
  std::string geometryPath, output;
  cl.group("Input and output");
  mbirtool::geometryOption(cl, geometryPath);
  cl.required(
    "--output", "FILE", "the phantom volume; any ITK format, chosen by extension (.nrrd, .mha, .tif ...)", output)
    .image(mbirtool::Channel::Output)
    .label("Phantom volume");
  return mbirtool::run(cl.tool(), [&] {
    cl.parse(argc, argv);
    const itk::MBIRGeometry::Pointer geometry = mbirtool::readGeometry("--geometry", geometryPath);
    const mbir::ReconShape           shape = mbir::reconShapeOf(geometry->GetEngineGeometry());
    mbirtool::ImageType::SpacingType spacing;
    for (unsigned int d = 0; d < 3; ++d)
    {
      spacing[d] = geometry->GetVolumeSpacing()[d];
    }
    const mbirtool::ImageType::Pointer phantom =
      itk::MBIRImageConversion::ReconToImage(mbir::sheppLoganLowDynamicRange(shape), shape, spacing);
    phantom->SetOrigin(geometry->GetVolumeOrigin());
    mbirtool::writeImage("--output", output, phantom.GetPointer());
    const auto size = geometry->GetVolumeSize();
    std::cout << "Shepp-Logan phantom, " << size[0] << " x " << size[1] << " x " << size[2] << " voxels -> " << output
              << "\n";
  });
}
