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
#ifndef itkMBIRDirectReconstructionFilter_hxx
#define itkMBIRDirectReconstructionFilter_hxx

#include "mbir/DirectRecon.h"

namespace itk {

template<typename TInputImage, typename TOutputImage>
MBIRDirectReconstructionFilter<TInputImage, TOutputImage>::MBIRDirectReconstructionFilter()
{
  this->SetPrimaryInputName("Projections");
  this->AddRequiredInputName("Geometry");
}

template<typename TInputImage, typename TOutputImage>
void
MBIRDirectReconstructionFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  MBIRFilterSupport::SetVolumeInformation(this->GetOutput(),
                                          MBIRFilterSupport::RequireGeometry(this, this->GetGeometry()));
}

template<typename TInputImage, typename TOutputImage>
void
MBIRDirectReconstructionFilter<TInputImage, TOutputImage>::GenerateData()
{
  const MBIRGeometry & geometry = *this->GetGeometry();
  const auto           devices =
    this->ChooseDevices(static_cast<int>(geometry.GetNumberOfViews()), static_cast<int>(geometry.GetVolumeSize()[2]));
  std::shared_ptr<const mbir::DeviceVolume> volume;
  MBIRFilterSupport::RunEngine(this, [&] {
    const mbir::Projector projector(geometry.GetEngineGeometry(), devices);
    volume = std::make_shared<const mbir::DeviceVolume>(mbir::directRecon(
      projector, *MBIRFilterSupport::Projections(this->GetInput(), geometry, devices, "projections")));
    MBIRFilterSupport::WriteVolume(this->GetOutput(), std::move(volume)); // a download that can fail too
  });
  this->UpdateProgress(1.0f);
}

} // end namespace itk

#endif
