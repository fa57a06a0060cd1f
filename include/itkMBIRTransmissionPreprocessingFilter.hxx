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
#ifndef itkMBIRTransmissionPreprocessingFilter_hxx
#define itkMBIRTransmissionPreprocessingFilter_hxx

#include <algorithm>
#include <stdexcept>

namespace itk {

template<typename TInputImage, typename TOutputImage>
MBIRTransmissionPreprocessingFilter<TInputImage, TOutputImage>::MBIRTransmissionPreprocessingFilter()
{
  this->SetPrimaryInputName("Counts");
  this->AddOptionalInputName("DarkField");
  this->AddOptionalInputName("BrightField");
  this->AddOptionalInputName("BrightFieldAfter");
  this->SetNumberOfRequiredOutputs(2);
  this->SetNthOutput(1, this->MakeOutput(1));
}

template<typename TInputImage, typename TOutputImage>
DataObject::Pointer
MBIRTransmissionPreprocessingFilter<TInputImage, TOutputImage>::MakeOutput(DataObjectPointerArraySizeType)
{
  return TOutputImage::New().GetPointer();
}

template<typename TInputImage, typename TOutputImage>
void
MBIRTransmissionPreprocessingFilter<TInputImage, TOutputImage>::SetWeightType(const std::string & name)
{
  try
  {
    mbir::parseWeightType(name);
  }
  catch (const std::invalid_argument & e)
  {
    itkExceptionMacro(<< e.what());
  }
  if (name != m_WeightType)
  {
    m_WeightType = name;
    this->Modified();
  }
}

template<typename TInputImage, typename TOutputImage>
void
MBIRTransmissionPreprocessingFilter<TInputImage, TOutputImage>::GenerateInputRequestedRegion()
{
  for (const auto & name : this->GetInputNames())
  {
    DataObject * input = this->ProcessObject::GetInput(name);
    if (auto * volume = dynamic_cast<ImageBase<3> *>(input))
      volume->SetRequestedRegionToLargestPossibleRegion();
    else if (auto * image = dynamic_cast<ImageBase<2> *>(input))
      image->SetRequestedRegionToLargestPossibleRegion();
  }
}

template<typename TInputImage, typename TOutputImage>
mbir::ArrayView3
MBIRTransmissionPreprocessingFilter<TInputImage, TOutputImage>::FieldView(const char * name) const
{
  const DataObject * input = this->ProcessObject::GetInput(name);
  if (input == nullptr)
    return {};
  if (const auto * stack = dynamic_cast<const TInputImage *>(input))
  {
    const auto size = stack->GetBufferedRegion().GetSize();
    return mbir::ArrayView3(stack->GetBufferPointer(),
                            { static_cast<int>(size[2]), static_cast<int>(size[1]), static_cast<int>(size[0]) });
  }
  if (const auto * image = dynamic_cast<const FieldImageType *>(input))
  {
    const auto size = image->GetBufferedRegion().GetSize();
    return mbir::ArrayView3(image->GetBufferPointer(), { 1, static_cast<int>(size[1]), static_cast<int>(size[0]) });
  }
  itkExceptionMacro(<< name << " must be a float image, 2-D [channel, row] or 3-D [channel, row, n]");
}

template<typename TInputImage, typename TOutputImage>
void
MBIRTransmissionPreprocessingFilter<TInputImage, TOutputImage>::GenerateData()
{
  const TInputImage *    counts = this->GetInput();
  const auto             size = counts->GetBufferedRegion().GetSize();
  mbir::PreprocessParams params;
  params.minTransmission = m_MinimumTransmission;
  params.saturationLevel = m_SaturationLevel;
  params.detectBadPixels = m_DetectBadPixels;
  params.badPixelThreshold = m_BadPixelThreshold;
  params.minBadPixelDeviation = m_MinimumBadPixelDeviation;
  params.removeOffset = m_RemoveOffset;
  params.offsetPerView = m_OffsetPerView;
  params.edgeWidth = m_EdgeWidth;
  params.suppressRings = m_SuppressRings;
  params.ringWidth = m_RingWidth;
  params.weightType = mbir::parseWeightType(m_WeightType);
  mbir::FieldImages fields;
  fields.dark = this->FieldView("DarkField");
  fields.bright = this->FieldView("BrightField");
  fields.brightAfter = this->FieldView("BrightFieldAfter");
  try
  {
    m_Result = mbir::preprocessTransmission(
      mbir::ArrayView3(counts->GetBufferPointer(),
                       { static_cast<int>(size[2]), static_cast<int>(size[1]), static_cast<int>(size[0]) }),
      fields,
      params);
  }
  catch (const std::exception & e)
  {
    itkExceptionMacro(<< e.what());
  }
  const std::vector<float> * sources[2] = { &m_Result.sinogram, &m_Result.weights };
  for (unsigned int k = 0; k < 2; ++k)
  {
    auto * output = dynamic_cast<TOutputImage *>(this->ProcessObject::GetOutput(k));
    output->SetBufferedRegion(output->GetRequestedRegion());
    output->Allocate();
    std::copy(sources[k]->begin(), sources[k]->end(), output->GetBufferPointer());
  }
  // The arrays are in the outputs now; keep the report only.
  std::vector<float>().swap(m_Result.sinogram);
  std::vector<float>().swap(m_Result.weights);
  this->UpdateProgress(1.0f);
}

template<typename TInputImage, typename TOutputImage>
void
MBIRTransmissionPreprocessingFilter<TInputImage, TOutputImage>::PrintSelf(std::ostream & os, Indent indent) const
{
  Superclass::PrintSelf(os, indent);
  os << indent << "MinimumTransmission: " << m_MinimumTransmission << std::endl;
  os << indent << "SaturationLevel: " << m_SaturationLevel << std::endl;
  os << indent << "DetectBadPixels: " << m_DetectBadPixels << std::endl;
  os << indent << "BadPixelThreshold: " << m_BadPixelThreshold << std::endl;
  os << indent << "MinimumBadPixelDeviation: " << m_MinimumBadPixelDeviation << std::endl;
  os << indent << "RemoveOffset: " << m_RemoveOffset << std::endl;
  os << indent << "OffsetPerView: " << m_OffsetPerView << std::endl;
  os << indent << "EdgeWidth: " << m_EdgeWidth << std::endl;
  os << indent << "SuppressRings: " << m_SuppressRings << std::endl;
  os << indent << "RingWidth: " << m_RingWidth << std::endl;
  os << indent << "WeightType: " << m_WeightType << std::endl;
  os << indent << "BackgroundOffset: " << m_Result.offset << std::endl;
  os << indent << "NumberOfBadCells: " << m_Result.numBadCells() << std::endl;
}

} // end namespace itk

#endif
