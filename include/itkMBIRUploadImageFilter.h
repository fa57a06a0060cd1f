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
#ifndef itkMBIRUploadImageFilter_h
#define itkMBIRUploadImageFilter_h

#include "itkMBIRImageFilter.h"

namespace itk {

/** \class MBIRUploadImageFilter
 * \brief Turns an itk::Image into an MBIRDeviceImage: projections ([channel, row, view]) or a volume
 * ([x, y, z]) moved once to the engine's device, so that filters downstream (for example several
 * reconstructions of one scan) use it without another transfer. Size, spacing, origin and direction are
 * kept. Non-finite values are rejected here, naming the first one.
 *
 * \ingroup MBIR
 */
template<typename TInputImage = Image<float, 3>, typename TOutputImage = MBIRDeviceImage<float, 3>>
class ITK_TEMPLATE_EXPORT MBIRUploadImageFilter : public MBIRImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRUploadImageFilter);

  using Self = MBIRUploadImageFilter;
  using Superclass = MBIRImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using ContentEnum = typename MBIRDeviceImage<float, 3>::ContentEnum;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRUploadImageFilter);

  /** Projections (the default) or Volume. */
  itkSetEnumMacro(Content, ContentEnum);
  itkGetEnumMacro(Content, ContentEnum);

protected:
  MBIRUploadImageFilter() = default;
  ~MBIRUploadImageFilter() override = default;

  void
  GenerateData() override
  {
    const int  last = static_cast<int>(this->GetInput()->GetLargestPossibleRegion().GetSize()[2]); // views or slices
    const bool volume = m_Content == ContentEnum::Volume;
    const auto devices = this->ChooseDevices(volume ? 0 : last, volume ? last : 0);
    auto *     output = this->GetOutput();
    const auto region = this->GetInput()->GetLargestPossibleRegion();
    if (m_Content == ContentEnum::Volume)
    {
      output->SetVolume(MBIRFilterSupport::Volume(this->GetInput(), devices, "volume"));
    }
    else
    {
      output->SetProjections(MBIRFilterSupport::Projections(this->GetInput(), devices, "projections"));
    }
    output->SetRegions(region);
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Content: " << (m_Content == ContentEnum::Volume ? "Volume" : "Projections") << std::endl;
  }

private:
  ContentEnum m_Content{ ContentEnum::Projections };
};

} // end namespace itk

#endif
