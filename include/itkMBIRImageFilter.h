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
#ifndef itkMBIRImageFilter_h
#define itkMBIRImageFilter_h

#include "itkImageToImageFilter.h"
#include "itkMBIRFilterSupport.h"

#include <type_traits>

namespace itk {

/** \class MBIRImageFilter
 * \brief Base of the MBIR filters: the engine backend they compute on, whole-image requests (iterative
 * reconstruction cannot stream), and inputs that live in different spaces (projections and volumes).
 *
 * Inputs and outputs are `Image<float,3>` or `MBIRDeviceImage<float,3>`. The backend is that of a
 * device-resident input if there is one, else the one set with SetBackend(), else the CPU engine.
 *
 * \ingroup MBIR
 */
template<typename TInputImage, typename TOutputImage>
class ITK_TEMPLATE_EXPORT MBIRImageFilter : public ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRImageFilter);

  static_assert(std::is_same<typename TInputImage::PixelType, float>::value && TInputImage::ImageDimension == 3 &&
                  std::is_same<typename TOutputImage::PixelType, float>::value && TOutputImage::ImageDimension == 3,
                "MBIR filters take and produce 3-D float images");

  using Self = MBIRImageFilter;
  using Superclass = ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using BackendPointer = std::shared_ptr<mbir::Backend>;

  itkTypeMacro(MBIRImageFilter, ImageToImageFilter);

  /** The engine backend to compute on when no input is device-resident (null: the CPU engine). */
  void
  SetBackend(BackendPointer backend)
  {
    if (backend != m_Backend)
    {
      m_Backend = std::move(backend);
      this->Modified();
    }
  }
  BackendPointer
  GetBackend() const
  {
    return m_Backend;
  }

protected:
  MBIRImageFilter() = default;
  ~MBIRImageFilter() override = default;

  /** Every image input whole. */
  void
  GenerateInputRequestedRegion() override
  {
    for (const auto & name : this->GetInputNames())
    {
      if (auto * image = dynamic_cast<ImageBase<3> *>(this->ProcessObject::GetInput(name)))
      {
        image->SetRequestedRegionToLargestPossibleRegion();
      }
    }
  }

  /** The output whole. */
  void
  EnlargeOutputRequestedRegion(DataObject * output) override
  {
    output->SetRequestedRegionToLargestPossibleRegion();
  }

  /** Required inputs set, and every input of a kind the engine takes (see MBIRFilterSupport::CheckInputKind),
   * before anything reads them. */
  void
  VerifyPreconditions() ITKv5_CONST override
  {
    Superclass::VerifyPreconditions();
    for (const auto & name : this->GetInputNames())
    {
      MBIRFilterSupport::CheckInputKind(this, name, this->ProcessObject::GetInput(name));
    }
  }

  /** Projections and volumes live in different spaces: nothing to compare. */
  void
  VerifyInputInformation() ITKv5_CONST override
  {}

  /** The backend for this run, given the inputs. */
  BackendPointer
  ChooseBackend() const
  {
    std::vector<const DataObject *> inputs;
    for (const auto & name : this->GetInputNames())
    {
      inputs.push_back(this->ProcessObject::GetInput(name));
    }
    return MBIRFilterSupport::BackendFor(inputs, m_Backend);
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Backend: " << (m_Backend ? m_Backend->description() : std::string("CPU engine (default)"))
       << std::endl;
  }

private:
  BackendPointer m_Backend;
};

} // end namespace itk

#endif
