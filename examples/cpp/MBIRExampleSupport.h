#ifndef MBIRExampleSupport_h
#define MBIRExampleSupport_h
// What the C++ examples share and is not their point: a test object (the 3-D Shepp-Logan phantom) on a
// geometry's volume grid, and the NRMSE of a result against it.

#include "itkImage.h"
#include "itkMBIRGeometry.h"
#include "itkMBIRImageConversion.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"

#include <vector>

namespace mbirexample {

using ImageType = itk::Image<float, 3>;

// The low-dynamic-range Shepp-Logan phantom filling a grid of `size` voxels [x, y, z], centred on the origin.
inline ImageType::Pointer
MakePhantom(const ImageType::SizeType & size, const ImageType::SpacingType & spacing)
{
  // The engine's (rows, cols, slices) are ITK's [y, x, z].
  const mbir::ReconShape shape{ static_cast<int>(size[1]), static_cast<int>(size[0]), static_cast<int>(size[2]) };
  return itk::MBIRImageConversion::ReconToImage(mbir::sheppLoganLowDynamicRange(shape), shape, spacing);
}

// The same with the geometry's volume size, spacing and origin (mm), so that it lies where the scan sees it.
inline ImageType::Pointer
MakePhantom(const itk::MBIRGeometry & geometry)
{
  const ImageType::Pointer phantom = MakePhantom(geometry.GetVolumeSize(), geometry.GetVolumeSpacing());
  phantom->SetOrigin(geometry.GetVolumeOrigin());
  return phantom;
}

// ||image - reference|| / ||reference|| over all voxels.
inline double
NRMSE(const ImageType * image, const ImageType * reference)
{
  const auto values = [](const ImageType * i) {
    return std::vector<float>(i->GetBufferPointer(), i->GetBufferPointer() + i->GetPixelContainer()->Size());
  };
  return mbir::nrmse(values(image), values(reference));
}

} // namespace mbirexample

#endif
