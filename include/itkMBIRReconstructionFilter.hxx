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
#ifndef itkMBIRReconstructionFilter_hxx
#define itkMBIRReconstructionFilter_hxx

#include "mbir/Reconstructor.h"
#include "mbir/Weights.h"

#include <iostream>

namespace itk {

template<typename TInputImage, typename TOutputImage>
MBIRReconstructionFilter<TInputImage, TOutputImage>::MBIRReconstructionFilter()
{
  this->SetPrimaryInputName("Projections");
  this->AddRequiredInputName("Geometry");
  this->AddOptionalInputName("Weights");
  this->AddOptionalInputName("InitialImage");
  this->AddOptionalInputName("ProxImage");
  const mbir::ReconParams defaults;
  m_Granularity = defaults.granularity;
  m_PartitionSequence = defaults.partitionSequence;
}

template<typename TInputImage, typename TOutputImage>
void
MBIRReconstructionFilter<TInputImage, TOutputImage>::SetGranularity(const std::vector<int> & granularity)
{
  if (granularity != m_Granularity)
  {
    m_Granularity = granularity;
    this->Modified();
  }
}

template<typename TInputImage, typename TOutputImage>
void
MBIRReconstructionFilter<TInputImage, TOutputImage>::SetPartitionSequence(const std::vector<int> & sequence)
{
  if (sequence != m_PartitionSequence)
  {
    m_PartitionSequence = sequence;
    this->Modified();
  }
}

template<typename TInputImage, typename TOutputImage>
void
MBIRReconstructionFilter<TInputImage, TOutputImage>::GenerateOutputInformation()
{
  MBIRFilterSupport::SetVolumeInformation(this->GetOutput(),
                                          MBIRFilterSupport::RequireGeometry(this, this->GetGeometry()));
}

template<typename TInputImage, typename TOutputImage>
mbir::ReconParams
MBIRReconstructionFilter<TInputImage, TOutputImage>::EngineParameters(const mbir::Geometry & geometry)
{
  mbir::ReconParams params = mbir::defaultReconParams(geometry);
  params.sharpness = static_cast<float>(m_Sharpness);
  params.snrDb = static_cast<float>(m_SNRdB);
  params.autoRegularize = m_AutoRegularize;
  params.estimateNoise = m_EstimateNoise;
  params.sigmaY = static_cast<float>(m_SigmaY);
  params.sigmaX = static_cast<float>(m_SigmaX);
  params.sigmaProx = static_cast<float>(m_SigmaProx);
  params.maxIterations = m_MaxIterations;
  params.stopThresholdChangePct = static_cast<float>(m_StopThresholdChangePercent);
  params.positivity = m_Positivity;
  params.computePriorLoss = m_ComputePriorLoss;
  params.p = static_cast<float>(m_P);
  params.q = static_cast<float>(m_Q);
  params.T = static_cast<float>(m_T);
  if (m_NeighborWeights[0] != 0.0 || m_NeighborWeights[1] != 0.0 || m_NeighborWeights[2] != 0.0)
  {
    // ITK's [x, y, z] is the engine's [col, row, slice]; the engine orders them [row, col, slice].
    params.qggmrfNeighbourWeights = { static_cast<float>(m_NeighborWeights[1]),
                                      static_cast<float>(m_NeighborWeights[0]),
                                      static_cast<float>(m_NeighborWeights[2]) };
  }
  if (m_MaxOverrelaxation != 0.0)
  {
    params.maxOverrelaxation = static_cast<float>(m_MaxOverrelaxation);
  }
  params.granularity = m_Granularity;
  params.partitionSequence = m_PartitionSequence;
  params.seed = m_Seed;
  params.checkpointFile = m_CheckpointFileName;
  params.checkpointEvery = m_CheckpointEvery;
  params.resumeFile = m_ResumeFileName;
  params.verbose = 1; // the log is always kept; Verbose decides whether it is printed
  const bool print = m_Verbose >= 1;
  params.logSink = [print](const std::string & line) {
    if (print)
    {
      std::cout << line << std::endl;
    }
  };
  params.progress = MBIRFilterSupport::ProgressReporter(this);
  params.iterationDone = MBIRFilterSupport::IterationReporter(this, m_IterationsDone);
  return params;
}

template<typename TInputImage, typename TOutputImage>
void
MBIRReconstructionFilter<TInputImage, TOutputImage>::GenerateData()
{
  m_IterationsDone = 0;
  const MBIRGeometry & geometry = *this->GetGeometry();
  const mbir::Geometry engineGeometry = geometry.GetEngineGeometry();
  const auto           devices =
    this->ChooseDevices(static_cast<int>(geometry.GetNumberOfViews()), static_cast<int>(geometry.GetVolumeSize()[2]));
  mbir::DeviceReconResult result;
  this->UpdateProgress(0.0f);
  MBIRFilterSupport::RunEngine(this, [&] {
    const auto projections = MBIRFilterSupport::Projections(this->GetInput(), geometry, devices, "projections");
    std::shared_ptr<const mbir::DeviceSinogram> weights;
    if (this->GetWeights() != nullptr)
    {
      weights = MBIRFilterSupport::Projections(this->GetWeights(), geometry, devices, "weights");
    }
    else if (mbir::parseWeightType(m_WeightType) != mbir::WeightType::Unweighted)
    {
      weights = std::make_shared<const mbir::DeviceSinogram>(
        mbir::generateWeights(*projections, mbir::parseWeightType(m_WeightType)));
    }
    std::shared_ptr<const mbir::DeviceVolume> initial, prox;
    mbir::InitialImage                        init;
    if (this->GetInitialImage() != nullptr)
    {
      initial = MBIRFilterSupport::Volume(this->GetInitialImage(), geometry, devices, "initial image");
      init = mbir::InitialImage::fromVolume(*initial);
    }
    const mbir::Reconstructor reconstructor(engineGeometry, devices, EngineParameters(engineGeometry));
    if (this->GetProxImage() != nullptr)
    {
      prox = MBIRFilterSupport::Volume(this->GetProxImage(), geometry, devices, "prox image");
      result = reconstructor.proxMap(*prox, *projections, weights.get(), init);
    }
    else
    {
      result = reconstructor.recon(*projections, weights.get(), init);
    }
    m_Report = result;
    MBIRFilterSupport::WriteVolume(this->GetOutput(), // a download that can fail too
                                   std::make_shared<const mbir::DeviceVolume>(std::move(result.recon)));
  });
  this->UpdateProgress(1.0f);
}

template<typename TInputImage, typename TOutputImage>
void
MBIRReconstructionFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Sharpness: " << m_Sharpness << std::endl
     << indent << "SNRdB: " << m_SNRdB << std::endl
     << indent << "AutoRegularize: " << m_AutoRegularize << std::endl
     << indent << "EstimateNoise: " << m_EstimateNoise << std::endl
     << indent << "SigmaY: " << m_SigmaY << std::endl
     << indent << "SigmaX: " << m_SigmaX << std::endl
     << indent << "SigmaProx: " << m_SigmaProx << std::endl
     << indent << "WeightType: " << m_WeightType << std::endl
     << indent << "MaxIterations: " << m_MaxIterations << std::endl
     << indent << "StopThresholdChangePercent: " << m_StopThresholdChangePercent << std::endl
     << indent << "Positivity: " << m_Positivity << std::endl
     << indent << "ComputePriorLoss: " << m_ComputePriorLoss << std::endl
     << indent << "P: " << m_P << std::endl
     << indent << "Q: " << m_Q << std::endl
     << indent << "T: " << m_T << std::endl
     << indent << "NeighborWeights: " << m_NeighborWeights << std::endl
     << indent << "MaxOverrelaxation: " << m_MaxOverrelaxation << std::endl
     << indent << "Granularity: " << m_Granularity.size() << " entries" << std::endl
     << indent << "PartitionSequence: " << m_PartitionSequence.size() << " entries" << std::endl
     << indent << "Seed: " << m_Seed << std::endl
     << indent << "Verbose: " << m_Verbose << std::endl
     << indent << "CheckpointFileName: " << m_CheckpointFileName << std::endl
     << indent << "CheckpointEvery: " << m_CheckpointEvery << std::endl
     << indent << "ResumeFileName: " << m_ResumeFileName << std::endl;
}

} // end namespace itk

#endif
