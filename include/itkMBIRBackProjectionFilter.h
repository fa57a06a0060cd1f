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
#ifndef itkMBIRBackProjectionFilter_h
#define itkMBIRBackProjectionFilter_h

#include "itkMBIRImageFilter.h"

namespace itk {

/** \class MBIRBackProjectionFilter
 * \brief A^T y, the exact adjoint of MBIRForwardProjectionFilter (not a filtered back projection). Inputs: Projections
 * (primary; [channel, row, view], spacing the detector pitch) and Geometry. The output volume is zero outside the
 * region of reconstruction.
 *
 * \ingroup MBIR
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT MBIRBackProjectionFilter : public MBIRImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRBackProjectionFilter);

  using Self = MBIRBackProjectionFilter;
  using Superclass = MBIRImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRBackProjectionFilter);

  itkSetInputMacro(Geometry, MBIRGeometry);
  itkGetInputMacro(Geometry, MBIRGeometry);

protected:
  MBIRBackProjectionFilter();
  ~MBIRBackProjectionFilter() override = default;

  void
  GenerateOutputInformation() override;
  void
  GenerateData() override;
};

} // end namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkMBIRBackProjectionFilter.hxx"
#endif

#endif
