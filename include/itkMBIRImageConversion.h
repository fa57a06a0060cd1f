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
#ifndef itkMBIRImageConversion_h
#define itkMBIRImageConversion_h

#include "MBIRExport.h"
#include "itkImage.h"
#include "mbir/Shapes.h"

#include <vector>

namespace itk {

/** \class MBIRImageConversion
 * \brief Converts between ITK images and the MBIR engine's arrays, the only place where layouts meet.
 *
 * Projections are `Image<float,3>` indexed [channel, row, view] with detector pitch as spacing in x and y
 * (the view axis has spacing 1); their memory order is the engine's (views, rows, channels), so a
 * conversion is a copy. Volumes are `Image<float,3>` indexed [x = column, y = row, z = slice], centred on
 * the rotation axis; the engine stores (rows, cols, slices) with slices contiguous, so volumes are
 * transposed here, once.
 *
 * \ingroup MBIR
 */
class MBIR_EXPORT MBIRImageConversion
{
public:
  using ImageType = Image<float, 3>;

  /** Projections image of the engine sinogram (views, rows, channels). */
  static ImageType::Pointer
  SinogramToImage(const std::vector<float> &  sinogram,
                  const mbir::SinogramShape & shape,
                  double                      channelSpacing,
                  double                      rowSpacing);

  /** Engine sinogram of a projections image; sets `shape`. Throws itk::ExceptionObject on a null image. */
  static std::vector<float>
  ImageToSinogram(const ImageType * image, mbir::SinogramShape & shape);

  /** Volume image of the engine recon (rows, cols, slices), with voxel pitches (column, row, slice). */
  static ImageType::Pointer
  ReconToImage(const std::vector<float> &     recon,
               const mbir::ReconShape &       shape,
               const ImageType::SpacingType & spacing);

  /** Engine recon of a volume image; sets `shape`. */
  static std::vector<float>
  ImageToRecon(const ImageType * image, mbir::ReconShape & shape);
};

} // namespace itk

#endif
