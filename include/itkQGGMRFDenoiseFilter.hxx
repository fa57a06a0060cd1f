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
#ifndef itkQGGMRFDenoiseFilter_hxx
#define itkQGGMRFDenoiseFilter_hxx

#include <iostream>

namespace itk {

template<typename TInputImage, typename TOutputImage>
void
QGGMRFDenoiseFilter<TInputImage, TOutputImage>::GenerateData()
{
  m_IterationsDone = 0;
  mbir::DenoiseParams params;
  params.sharpness = static_cast<float>(m_Sharpness);
  params.sigmaNoise = static_cast<float>(m_SigmaNoise);
  params.maxIterations = m_MaxIterations;
  params.numSubsets = m_NumberOfSubsets;
  params.stopThresholdChangePct = static_cast<float>(m_StopThresholdChangePercent);
  params.p = static_cast<float>(m_P);
  params.q = static_cast<float>(m_Q);
  params.T = static_cast<float>(m_T);
  // ITK's [x, y, z] is the engine's [col, row, slice]; the engine orders them [row, col, slice].
  params.qggmrfNeighbourWeights = { static_cast<float>(m_NeighborWeights[1]),
                                    static_cast<float>(m_NeighborWeights[0]),
                                    static_cast<float>(m_NeighborWeights[2]) };
  params.seed = m_Seed;
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

  const int                 slices = static_cast<int>(this->GetInput()->GetLargestPossibleRegion().GetSize()[2]);
  const auto                devices = this->ChooseDevices(0, slices); // a volume: no views
  mbir::DeviceDenoiseResult result;
  this->UpdateProgress(0.0f);
  MBIRFilterSupport::RunEngine(this, [&] {
    result = mbir::qggmrfDenoise(*MBIRFilterSupport::Volume(this->GetInput(), devices, "volume"), params);
    m_Report = result;
    MBIRFilterSupport::WriteVolume(this->GetOutput(), // a download that can fail too
                                   std::make_shared<const mbir::DeviceVolume>(std::move(result.image)));
  });
  this->UpdateProgress(1.0f);
}

template<typename TInputImage, typename TOutputImage>
void
QGGMRFDenoiseFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "Sharpness: " << m_Sharpness << std::endl
     << indent << "SigmaNoise: " << m_SigmaNoise << std::endl
     << indent << "MaxIterations: " << m_MaxIterations << std::endl
     << indent << "NumberOfSubsets: " << m_NumberOfSubsets << std::endl
     << indent << "StopThresholdChangePercent: " << m_StopThresholdChangePercent << std::endl
     << indent << "P: " << m_P << std::endl
     << indent << "Q: " << m_Q << std::endl
     << indent << "T: " << m_T << std::endl
     << indent << "NeighborWeights: " << m_NeighborWeights << std::endl
     << indent << "Seed: " << m_Seed << std::endl
     << indent << "Verbose: " << m_Verbose << std::endl;
}

} // end namespace itk

#endif
