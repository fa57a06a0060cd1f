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
#ifndef itkMBIRDirectReconstructionFilter_h
#define itkMBIRDirectReconstructionFilter_h

#include "itkMBIRImageFilter.h"

namespace itk {

/** \class MBIRDirectReconstructionFilter
 * \brief The geometry's direct (non-iterative) reconstruction: FBP for parallel beam, FDK for cone beam
 * (with the helical correction), the directional FBP for multi-axis parallel beam, and the normalised
 * back projection for translation. The default MBIR initial image.
 *
 * Inputs: Projections (primary, [channel, row, view], spacing the detector pitch) and Geometry. The
 * output volume has the geometry's size, spacing and origin.
 *
 * \ingroup MBIR
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT MBIRDirectReconstructionFilter : public MBIRImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRDirectReconstructionFilter);

  using Self = MBIRDirectReconstructionFilter;
  using Superclass = MBIRImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRDirectReconstructionFilter);

  itkSetInputMacro(Geometry, MBIRGeometry);
  itkGetInputMacro(Geometry, MBIRGeometry);

protected:
  MBIRDirectReconstructionFilter();
  ~MBIRDirectReconstructionFilter() override = default;

  void
  GenerateOutputInformation() override;
  void
  GenerateData() override;
};

} // end namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkMBIRDirectReconstructionFilter.hxx"
#endif

#endif
