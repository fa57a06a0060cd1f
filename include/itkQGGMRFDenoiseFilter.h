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
#ifndef itkQGGMRFDenoiseFilter_h
#define itkQGGMRFDenoiseFilter_h

#include "itkFixedArray.h"
#include "itkMBIRImageFilter.h"
#include "mbir/Denoiser.h"

#include <string>

namespace itk {

/** \class QGGMRFDenoiseFilter
 * \brief Denoises a volume with the qGGMRF prior (MAP estimate under white Gaussian noise), on the
 * machinery of MBIR. Volume in, volume out, same size, spacing, origin and direction.
 *
 * SigmaNoise 0 (the default) estimates the noise from the volume; Sharpness sets the prior's scale
 * (sigma_x = 0.2 * 2^sharpness * local standard deviation). Progress is reported after every subset and
 * AbortGenerateData stops within one (ProcessAborted).
 *
 * \ingroup MBIR
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT QGGMRFDenoiseFilter : public MBIRImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(QGGMRFDenoiseFilter);

  using Self = QGGMRFDenoiseFilter;
  using Superclass = MBIRImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using NeighborWeightsType = FixedArray<double, 3>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(QGGMRFDenoiseFilter);

  itkSetMacro(Sharpness, double);
  itkGetConstMacro(Sharpness, double);
  /** Noise standard deviation; 0 estimates it from the volume. */
  itkSetMacro(SigmaNoise, double);
  itkGetConstMacro(SigmaNoise, double);
  itkSetMacro(MaxIterations, int);
  itkGetConstMacro(MaxIterations, int);
  itkSetMacro(NumberOfSubsets, int);
  itkGetConstMacro(NumberOfSubsets, int);
  itkSetMacro(StopThresholdChangePercent, double);
  itkGetConstMacro(StopThresholdChangePercent, double);
  itkSetMacro(P, double);
  itkGetConstMacro(P, double);
  itkSetMacro(Q, double);
  itkGetConstMacro(Q, double);
  itkSetMacro(T, double);
  itkGetConstMacro(T, double);
  /** Neighbour weights [x, y, z]. */
  itkSetMacro(NeighborWeights, NeighborWeightsType);
  itkGetConstMacro(NeighborWeights, NeighborWeightsType);
  itkSetMacro(Seed, unsigned long);
  itkGetConstMacro(Seed, unsigned long);
  /** 0: quiet; 1: print the log to standard output. The log is kept either way. */
  itkSetMacro(Verbose, int);
  itkGetConstMacro(Verbose, int);

  /** The last run's log, and its noise and prior scales. */
  const std::string &
  GetDenoiseLog() const
  {
    return m_Report.logText;
  }
  const mbir::DenoiseReport &
  GetDenoiseReport() const
  {
    return m_Report;
  }
  /** Iterations done so far in the running Update (IterationEvent follows each), or in the last one; a resumed run
   * counts those before its checkpoint. */
  itkGetConstMacro(IterationsDone, int);

protected:
  QGGMRFDenoiseFilter() = default;
  ~QGGMRFDenoiseFilter() override = default;

  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  double              m_Sharpness{ 0.0 };
  double              m_SigmaNoise{ 0.0 };
  int                 m_MaxIterations{ 15 };
  int                 m_NumberOfSubsets{ 16 };
  double              m_StopThresholdChangePercent{ 0.2 };
  double              m_P{ 2.0 };
  double              m_Q{ 1.2 };
  double              m_T{ 1.0 };
  NeighborWeightsType m_NeighborWeights{ NeighborWeightsType::Filled(1.0) };
  unsigned long       m_Seed{ 0 };
  int                 m_Verbose{ 0 };
  mbir::DenoiseReport m_Report;
  int                 m_IterationsDone{ 0 };
};

} // end namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkQGGMRFDenoiseFilter.hxx"
#endif

#endif
