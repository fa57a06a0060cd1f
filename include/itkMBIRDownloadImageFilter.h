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
#ifndef itkMBIRDownloadImageFilter_h
#define itkMBIRDownloadImageFilter_h

#include "itkMBIRImageFilter.h"

namespace itk {

/** \class MBIRDownloadImageFilter
 * \brief Gathers an MBIRDeviceImage back into an itk::Image (the same as MBIRDeviceImage::ToImage, as a
 * pipeline step).
 *
 * \ingroup MBIR
 */
template<typename TInputImage = MBIRDeviceImage<float, 3>, typename TOutputImage = Image<float, 3>>
class ITK_TEMPLATE_EXPORT MBIRDownloadImageFilter : public MBIRImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRDownloadImageFilter);

  using Self = MBIRDownloadImageFilter;
  using Superclass = MBIRImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRDownloadImageFilter);

protected:
  MBIRDownloadImageFilter() = default;
  ~MBIRDownloadImageFilter() override = default;

  void
  GenerateData() override
  {
    const typename TOutputImage::Pointer image = this->GetInput()->ToImage();
    TOutputImage *                       output = this->GetOutput();
    output->SetBufferedRegion(output->GetLargestPossibleRegion());
    output->SetPixelContainer(image->GetPixelContainer());
  }
};

} // end namespace itk

#endif
