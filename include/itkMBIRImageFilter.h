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
#include "itkMBIRMacro.h"

#include <type_traits>

namespace itk {

/** \class MBIRImageFilter
 * \brief Base of the MBIR filters: the devices they compute on, whole-image requests (iterative
 * reconstruction cannot stream), and inputs that live in different spaces (projections and volumes).
 *
 * Inputs and outputs are `Image<float,3>` or `MBIRDeviceImage<float,3>`. The devices are those of a
 * device-resident input if there is one; otherwise the device selection decides: automatic (the default)
 * is every GPU when any is present, else the CPU devices (MBIR_NUM_CPU_DEVICES, default 1); an explicit
 * choice (ConfigureDevices, SetDevices, SetBackend) is kept across later parameter changes until
 * ResetDevices(). GetDeviceSummary() tells what the last run used, e.g. "2 x CPU (sharded, 8 threads)".
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

  itkOverrideGetNameOfClassMacro(MBIRImageFilter);

  /** Which devices to compute on (when no input is device-resident): mbir::DeviceSelection::firstDevices(n),
   * atIndices({...}), of({...}) or single(); a default-constructed selection is automatic. The filter's
   * SetUseGpu() policy is kept unless the selection sets a policy of its own. */
  void
  ConfigureDevices(const mbir::DeviceSelection & selection)
  {
    mbir::DeviceSelection chosen = selection;
    if (selection.useGpu() == mbir::UseGpu::Automatic)
    {
      chosen.useGpu(m_Devices.useGpu()); // SetUseGpu("none") must not be undone by choosing devices after it
    }
    this->SelectDevices(chosen);
  }
  /** The first n devices; 1 forces a single device. */
  void
  ConfigureDevices(int n)
  {
    this->ConfigureDevices(mbir::DeviceSelection::firstDevices(n));
  }
  /** Exactly these devices (handles from mbir::availableDevices()). */
  void
  SetDevices(const std::vector<BackendPointer> & devices)
  {
    this->ConfigureDevices(mbir::DeviceSelection::of(devices));
  }
  /** One given device (null: back to the automatic choice). */
  void
  SetBackend(BackendPointer backend)
  {
    if (backend)
      this->SetDevices({ std::move(backend) });
    else
      this->ResetDevices();
  }
  /** Back to the automatic choice over every device. */
  void
  ResetDevices()
  {
    this->ConfigureDevices(mbir::DeviceSelection());
  }
  /** "automatic", "full" or "none" (the CPU even when GPUs are present). */
  void
  SetUseGpu(const std::string & policy)
  {
    mbir::DeviceSelection selection = m_Devices;
    try
    {
      selection.useGpu(mbir::parseUseGpu(policy));
    }
    catch (const std::invalid_argument & e)
    {
      itkExceptionMacro(<< e.what());
    }
    this->SelectDevices(selection);
  }
  const mbir::DeviceSelection &
  GetDeviceSelection() const
  {
    return m_Devices;
  }
  /** The devices of the last run, e.g. "1 x CPU" or "4 x GPU (sharded) (slices padded 1023->1024)". */
  const std::string &
  GetDeviceSummary() const
  {
    return m_DeviceSummary;
  }

protected:
  MBIRImageFilter() = default;
  ~MBIRImageFilter() override = default;

  /** Every image input whole; of projections ("Projections", "Weights") made by a pipeline source (a reader), the
   * views this process's devices need: all in one process, this rank's share under MPI
   * (MBIRFilterSupport::ProcessViews). */
  void
  GenerateInputRequestedRegion() override
  {
    for (const auto & name : this->GetInputNames())
    {
      if (auto * image = dynamic_cast<ImageBase<3> *>(this->ProcessObject::GetInput(name)))
      {
        if ((name == "Projections" || name == "Weights") && image->GetSource())
          image->SetRequestedRegion(MBIRFilterSupport::ProcessViews(image->GetLargestPossibleRegion()));
        else
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

  /** The devices for a run with `views` views and `slices` slices, given the inputs; remembered for
   * GetDeviceSummary(). */
  std::shared_ptr<const mbir::DeviceGroup>
  ChooseDevices(int views, int slices)
  {
    std::vector<const DataObject *> inputs;
    for (const auto & name : this->GetInputNames())
    {
      inputs.push_back(this->ProcessObject::GetInput(name));
    }
    auto devices = MBIRFilterSupport::DevicesFor(inputs, m_Devices, views, slices);
    m_DeviceSummary =
      devices->summary(mbir::ShardLayout(views, devices->size()), mbir::ShardLayout(slices, devices->size()));
    if (devices->device(0).kind() == mbir::Backend::Kind::Cpu)
    {
      const std::string note = m_Devices.fallbackNote(); // why GPUs the choice allowed are not used
      if (!note.empty())
      {
        m_DeviceSummary += " (" + note + ")";
      }
    }
    return devices;
  }

  void
  PrintSelf(std::ostream & os, Indent indent) const override
  {
    Superclass::PrintSelf(os, indent);
    os << indent << "Devices: " << m_Devices.describe() << std::endl;
    os << indent << "DeviceSummary: " << m_DeviceSummary << std::endl;
  }

private:
  void
  SelectDevices(const mbir::DeviceSelection & selection)
  {
    if (!(selection == m_Devices))
    {
      m_Devices = selection;
      this->Modified();
    }
  }

  mbir::DeviceSelection m_Devices;
  std::string           m_DeviceSummary;
};

} // end namespace itk

#endif
