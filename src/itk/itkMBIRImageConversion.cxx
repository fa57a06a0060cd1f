/*=========================================================================
 *
 *  Copyright ITKMBIR contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
#include "itkMBIRImageConversion.h"
#include "mbir/ArrayView.h"

#include <algorithm>

namespace itk {
namespace {

MBIRImageConversion::ImageType::Pointer
AllocateCentred(const MBIRImageConversion::ImageType::SizeType &    size,
                const MBIRImageConversion::ImageType::SpacingType & spacing,
                bool                                                centreZ)
{
  auto image = MBIRImageConversion::ImageType::New();
  image->SetRegions(MBIRImageConversion::ImageType::RegionType(size));
  image->SetSpacing(spacing);
  MBIRImageConversion::ImageType::PointType origin;
  for (unsigned int d = 0; d < 3; ++d)
  {
    origin[d] = (d < 2 || centreZ) ? -0.5 * spacing[d] * (static_cast<double>(size[d]) - 1.0) : 0.0;
  }
  image->SetOrigin(origin);
  image->Allocate();
  return image;
}

} // namespace

MBIRImageConversion::ImageType::Pointer
MBIRImageConversion::SinogramToImage(const std::vector<float> &  sinogram,
                                     const mbir::SinogramShape & shape,
                                     double                      channelSpacing,
                                     double                      rowSpacing)
{
  if (sinogram.size() != shape.size())
  {
    itkGenericExceptionMacro("SinogramToImage: " << sinogram.size() << " values for a sinogram of shape "
                                                 << shape.str());
  }
  ImageType::SizeType    size = { { static_cast<SizeValueType>(shape.channels),
                                    static_cast<SizeValueType>(shape.rows),
                                    static_cast<SizeValueType>(shape.views) } };
  ImageType::SpacingType spacing;
  spacing[0] = channelSpacing;
  spacing[1] = rowSpacing;
  spacing[2] = 1.0;
  ImageType::Pointer image = AllocateCentred(size, spacing, false);
  std::copy(sinogram.begin(), sinogram.end(), image->GetBufferPointer());
  return image;
}

std::vector<float>
MBIRImageConversion::ImageToSinogram(const ImageType * image, mbir::SinogramShape & shape)
{
  if (!image)
  {
    itkGenericExceptionMacro("ImageToSinogram: no projections image given");
  }
  const ImageType::SizeType size = image->GetBufferedRegion().GetSize();
  shape = mbir::SinogramShape{ static_cast<int>(size[2]), static_cast<int>(size[1]), static_cast<int>(size[0]) };
  return std::vector<float>(image->GetBufferPointer(), image->GetBufferPointer() + shape.size());
}

MBIRImageConversion::ImageType::Pointer
MBIRImageConversion::ReconToImage(const std::vector<float> &     recon,
                                  const mbir::ReconShape &       shape,
                                  const ImageType::SpacingType & spacing)
{
  if (recon.size() != shape.size())
  {
    itkGenericExceptionMacro("ReconToImage: " << recon.size() << " values for a recon of shape " << shape.str());
  }
  ImageType::SizeType size = { { static_cast<SizeValueType>(shape.cols),
                                 static_cast<SizeValueType>(shape.rows),
                                 static_cast<SizeValueType>(shape.slices) } };
  ImageType::Pointer  image = AllocateCentred(size, spacing, true);
  // (pixels, slices) to (slices, pixels).
  mbir::transposeMatrices(
    recon.data(), 1, static_cast<std::size_t>(shape.rows) * shape.cols, shape.slices, image->GetBufferPointer(), 0);
  return image;
}

std::vector<float>
MBIRImageConversion::ImageToRecon(const ImageType * image, mbir::ReconShape & shape)
{
  if (!image)
  {
    itkGenericExceptionMacro("ImageToRecon: no volume image given");
  }
  const ImageType::SizeType size = image->GetBufferedRegion().GetSize();
  shape = mbir::ReconShape{ static_cast<int>(size[1]), static_cast<int>(size[0]), static_cast<int>(size[2]) };
  std::vector<float> recon(shape.size());
  // (slices, pixels) to (pixels, slices).
  mbir::transposeMatrices(
    image->GetBufferPointer(), 1, shape.slices, static_cast<std::size_t>(shape.rows) * shape.cols, recon.data(), 0);
  return recon;
}

} // namespace itk
