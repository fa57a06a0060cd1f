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
#ifndef itkMBIRForwardProjectionFilter_h
#define itkMBIRForwardProjectionFilter_h

#include "itkMBIRImageFilter.h"

namespace itk {

/** \class MBIRForwardProjectionFilter
 * \brief A x, the projections of a volume (simulation, Plug-and-Play loops). Inputs: Volume (primary; the geometry's
 * volume size and spacing) and Geometry; voxels outside the geometry's region of reconstruction are ignored. The output
 * projections are indexed [channel, row, view] with the detector pitch as spacing.
 *
 * \ingroup MBIR
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT MBIRForwardProjectionFilter : public MBIRImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRForwardProjectionFilter);

  using Self = MBIRForwardProjectionFilter;
  using Superclass = MBIRImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRForwardProjectionFilter);

  itkSetInputMacro(Geometry, MBIRGeometry);
  itkGetInputMacro(Geometry, MBIRGeometry);

protected:
  MBIRForwardProjectionFilter();
  ~MBIRForwardProjectionFilter() override = default;

  void
  GenerateOutputInformation() override;
  void
  GenerateData() override;
};

} // end namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkMBIRForwardProjectionFilter.hxx"
#endif

#endif
