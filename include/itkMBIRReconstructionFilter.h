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
#ifndef itkMBIRReconstructionFilter_h
#define itkMBIRReconstructionFilter_h

#include "itkFixedArray.h"
#include "itkMBIRImageFilter.h"
#include "mbir/ReconParams.h"

#include <string>
#include <vector>

namespace itk {

/** \class MBIRReconstructionFilter
 * \brief Model-based iterative reconstruction: weighted least squares with a qGGMRF prior (or, given a
 * ProxImage, the proximal map of Plug-and-Play), solved by multi-granular vectorised coordinate descent.
 *
 * Inputs:
 * - Projections (primary): indexed [channel, row, view], spacing the detector pitch in mm;
 * - Geometry (required): an MBIRGeometry (parallel, cone, translation or multi-axis);
 * - Weights (optional): same size as the projections, >= 0; without it WeightType decides;
 * - InitialImage (optional): a volume to start from; without it the geometry's direct recon, scaled;
 * - ProxImage (optional): the input of a proximal map (the prior becomes ||x - v||^2 / 2 sigma_prox^2).
 * The output volume is indexed [x, y, z] with the geometry's volume size, spacing and origin (mm), so it
 * lands at its physical place. Every engine parameter has a Set/Get; 0 for MaxOverrelaxation and all-zero
 * NeighborWeights mean the geometry's defaults. Progress is reported after every subset update, and
 * AbortGenerateData stops the filter within one subset (ProcessAborted; the output is left untouched).
 *
 * \ingroup MBIR
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT MBIRReconstructionFilter : public MBIRImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRReconstructionFilter);

  using Self = MBIRReconstructionFilter;
  using Superclass = MBIRImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using NeighborWeightsType = FixedArray<double, 3>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRReconstructionFilter);

  itkSetInputMacro(Geometry, MBIRGeometry);
  itkGetInputMacro(Geometry, MBIRGeometry);
  itkSetInputMacro(Weights, TInputImage);
  itkGetInputMacro(Weights, TInputImage);
  itkSetInputMacro(InitialImage, TInputImage);
  itkGetInputMacro(InitialImage, TInputImage);
  itkSetInputMacro(ProxImage, TInputImage);
  itkGetInputMacro(ProxImage, TInputImage);

  /** Larger is sharper: sigma_x = 0.2 * 2^sharpness * a typical recon value (automatic regularisation). */
  itkSetMacro(Sharpness, double);
  itkGetConstMacro(Sharpness, double);
  /** The assumed signal-to-noise ratio of the projections (dB), which sets sigma_y (with EstimateNoise, the
   * least sigma_y: model mismatch measured in the projections, when the recon's fit test confirms it, can raise it). */
  itkSetMacro(SNRdB, double);
  itkGetConstMacro(SNRdB, double);
  /** On (default): sigma_y from SNRdB, raised during the recon when the projections show model mismatch and
   * the recon cannot fit them below the assumed noise (README "Automatic regularisation"); off: from SNRdB
   * alone, as MBIRJAX. */
  itkSetMacro(EstimateNoise, bool);
  itkGetConstMacro(EstimateNoise, bool);
  itkBooleanMacro(EstimateNoise);
  /** Off: use SigmaY, SigmaX and SigmaProx as given. */
  itkSetMacro(AutoRegularize, bool);
  itkGetConstMacro(AutoRegularize, bool);
  itkBooleanMacro(AutoRegularize);
  itkSetMacro(SigmaY, double);
  itkGetConstMacro(SigmaY, double);
  itkSetMacro(SigmaX, double);
  itkGetConstMacro(SigmaX, double);
  itkSetMacro(SigmaProx, double);
  itkGetConstMacro(SigmaProx, double);
  /** Weights made from the projections when no Weights input is set: "unweighted", "transmission",
   * "transmission_root" or "emission". */
  itkSetStringMacro(WeightType);
  itkGetStringMacro(WeightType);
  itkSetMacro(MaxIterations, int);
  itkGetConstMacro(MaxIterations, int);
  itkSetMacro(StopThresholdChangePercent, double);
  itkGetConstMacro(StopThresholdChangePercent, double);
  itkSetMacro(Positivity, bool);
  itkGetConstMacro(Positivity, bool);
  itkBooleanMacro(Positivity);
  /** The prior's cost in the reconstruction log (a pass over the volume per iteration); off by default. */
  itkSetMacro(ComputePriorLoss, bool);
  itkGetConstMacro(ComputePriorLoss, bool);
  itkBooleanMacro(ComputePriorLoss);
  /** qGGMRF prior: exponent near 0 (P), far from 0 (Q), threshold T in units of sigma_x, and neighbour
   * weights [x, y, z]. */
  itkSetMacro(P, double);
  itkGetConstMacro(P, double);
  itkSetMacro(Q, double);
  itkGetConstMacro(Q, double);
  itkSetMacro(T, double);
  itkGetConstMacro(T, double);
  itkSetMacro(NeighborWeights, NeighborWeightsType);
  itkGetConstMacro(NeighborWeights, NeighborWeightsType);
  itkSetMacro(MaxOverrelaxation, double);
  itkGetConstMacro(MaxOverrelaxation, double);
  /** Multi-granular VCD: subset counts available, and which one each iteration uses (the last repeats). */
  void
  SetGranularity(const std::vector<int> & granularity);
  itkGetConstReferenceMacro(Granularity, std::vector<int>);
  void
  SetPartitionSequence(const std::vector<int> & sequence);
  itkGetConstReferenceMacro(PartitionSequence, std::vector<int>);
  itkSetMacro(Seed, unsigned long);
  itkGetConstMacro(Seed, unsigned long);
  /** 0: quiet; 1: print the log (one line per iteration) to standard output. The log is kept either way. */
  itkSetMacro(Verbose, int);
  itkGetConstMacro(Verbose, int);
  /** Checkpoint and resume (README "Checkpoint and resume"): with a CheckpointFileName, the state is saved there
   * (written to a temporary file, flushed and renamed) after every CheckpointEvery-th iteration and when the
   * update is aborted; a ResumeFileName continues from such a file, made with the same inputs, geometry and
   * parameters (else an ExceptionObject says which differ), to the result of an update never stopped. */
  itkSetStringMacro(CheckpointFileName);
  itkGetStringMacro(CheckpointFileName);
  itkSetMacro(CheckpointEvery, int);
  itkGetConstMacro(CheckpointEvery, int);
  itkSetStringMacro(ResumeFileName);
  itkGetStringMacro(ResumeFileName);

  /** The last run's log: a header line, then one line per iteration. */
  const std::string &
  GetReconstructionLog() const
  {
    return m_Report.logText;
  }
  /** The last run's iterations and regularisation. */
  const mbir::ReconReport &
  GetReconstructionReport() const
  {
    return m_Report;
  }
  /** Iterations done so far in the running Update (IterationEvent follows each), or in the last one; a resumed run
   * counts those before its checkpoint. */
  itkGetConstMacro(IterationsDone, int);

protected:
  MBIRReconstructionFilter();
  ~MBIRReconstructionFilter() override = default;

  void
  GenerateOutputInformation() override;
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  mbir::ReconParams
  EngineParameters(const mbir::Geometry & geometry);

  double              m_Sharpness{ 1.0 };
  double              m_SNRdB{ 30.0 };
  bool                m_AutoRegularize{ true };
  bool                m_EstimateNoise{ true };
  double              m_SigmaY{ 1.0 };
  double              m_SigmaX{ 1.0 };
  double              m_SigmaProx{ 1.0 };
  std::string         m_WeightType{ "unweighted" };
  int                 m_MaxIterations{ 15 };
  double              m_StopThresholdChangePercent{ 0.2 };
  bool                m_Positivity{ false };
  bool                m_ComputePriorLoss{ false };
  double              m_P{ 2.0 };
  double              m_Q{ 1.2 };
  double              m_T{ 1.0 };
  NeighborWeightsType m_NeighborWeights{ NeighborWeightsType::Filled(0.0) };
  double              m_MaxOverrelaxation{ 0.0 };
  std::vector<int>    m_Granularity;
  std::vector<int>    m_PartitionSequence;
  unsigned long       m_Seed{ 0 };
  int                 m_Verbose{ 0 };
  std::string         m_CheckpointFileName;
  int                 m_CheckpointEvery{ 1 };
  std::string         m_ResumeFileName;
  mbir::ReconReport   m_Report;
  int                 m_IterationsDone{ 0 };
};

} // end namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkMBIRReconstructionFilter.hxx"
#endif

#endif
