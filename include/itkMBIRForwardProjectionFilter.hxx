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
#ifndef itkMBIRForwardProjectionFilter_hxx
#define itkMBIRForwardProjectionFilter_hxx

#include "mbir/Projector.h"

namespace itk {

template<typename TInputImage, typename TOutputImage>
MBIRForwardProjectionFilter<TInputImage, TOutputImage>::MBIRForwardProjectionFilter()
{
  this->SetPrimaryInputName("Volume");
  this->AddRequiredInputName("Geometry");
}

template<typename TInputImage, typename TOutputImage>
void
MBIRForwardProjectionFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  MBIRFilterSupport::SetProjectionsInformation(this->GetOutput(),
                                               MBIRFilterSupport::RequireGeometry(this, this->GetGeometry()));
}

template<typename TInputImage, typename TOutputImage>
void
MBIRForwardProjectionFilter<TInputImage, TOutputImage>::GenerateData()
{
  const MBIRGeometry & geometry = *this->GetGeometry();
  const auto           devices =
    this->ChooseDevices(static_cast<int>(geometry.GetNumberOfViews()), static_cast<int>(geometry.GetVolumeSize()[2]));
  std::shared_ptr<const mbir::DeviceSinogram> projections;
  MBIRFilterSupport::RunEngine(this, [&] {
    const mbir::Projector projector(geometry.GetEngineGeometry(), devices);
    projections = std::make_shared<const mbir::DeviceSinogram>(
      projector.forwardProject(*MBIRFilterSupport::Volume(this->GetInput(), geometry, devices, "volume")));
    MBIRFilterSupport::WriteProjections(this->GetOutput(), std::move(projections)); // a download that can fail too
  });
  this->UpdateProgress(1.0f);
}

} // end namespace itk

#endif
