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
#ifndef itkMBIRTransmissionPreprocessingFilter_h
#define itkMBIRTransmissionPreprocessingFilter_h

#include "itkImage.h"
#include "itkImageToImageFilter.h"
#include "itkMBIRMacro.h"
#include "mbir/Preprocessing.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace itk {

/** \class MBIRTransmissionPreprocessingFilter
 * \brief Raw transmission counts to line integrals and weights for MBIR (mbir::preprocessTransmission).
 *
 * Input "Counts" (primary): raw counts indexed [channel, row, view]. Optional inputs "DarkField", "BrightField"
 * and "BrightFieldAfter": one image [channel, row] (a 2-D image) or a stack [channel, row, n] (a 3-D image),
 * averaged over n; bright fields taken after the scan are interpolated linearly with those before over the
 * views. Output 0: line integrals -log((I - D) / (B - D)) with bad cells interpolated and the background
 * offset removed; output 1 (GetWeightsOutput()): the weights of the chosen type, 0 for bad cells and entries.
 * Both outputs have the information of the counts. After Update(), GetBackgroundOffset(), GetBadCells() and
 * GetNotes() report what was done. The README section "Real scanner data: preprocessing" describes each step.
 *
 * \ingroup MBIR
 */
template<typename TInputImage, typename TOutputImage = TInputImage>
class ITK_TEMPLATE_EXPORT MBIRTransmissionPreprocessingFilter : public ImageToImageFilter<TInputImage, TOutputImage>
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(MBIRTransmissionPreprocessingFilter);

  static_assert(std::is_same<typename TInputImage::PixelType, float>::value && TInputImage::ImageDimension == 3 &&
                  std::is_same<typename TOutputImage::PixelType, float>::value && TOutputImage::ImageDimension == 3,
                "MBIRTransmissionPreprocessingFilter takes and produces 3-D float images");

  using Self = MBIRTransmissionPreprocessingFilter;
  using Superclass = ImageToImageFilter<TInputImage, TOutputImage>;
  using Pointer = SmartPointer<Self>;
  using ConstPointer = SmartPointer<const Self>;
  using FieldImageType = Image<float, 2>;

  itkNewMacro(Self);
  itkOverrideGetNameOfClassMacro(MBIRTransmissionPreprocessingFilter);

  /** The raw counts, [channel, row, view]. */
  void
  SetCounts(const TInputImage * counts)
  {
    this->SetInput(counts);
  }
  /** Dark fields: one 2-D image or a 3-D stack; nullptr removes them. */
  void
  SetDarkField(const FieldImageType * image)
  {
    this->SetField("DarkField", image);
  }
  void
  SetDarkField(const TInputImage * stack)
  {
    this->SetField("DarkField", stack);
  }
  /** Bright (flat) fields taken before (or during) the scan. */
  void
  SetBrightField(const FieldImageType * image)
  {
    this->SetField("BrightField", image);
  }
  void
  SetBrightField(const TInputImage * stack)
  {
    this->SetField("BrightField", stack);
  }
  /** Bright fields taken after the scan (needs BrightField). */
  void
  SetBrightFieldAfter(const FieldImageType * image)
  {
    this->SetField("BrightFieldAfter", image);
  }
  void
  SetBrightFieldAfter(const TInputImage * stack)
  {
    this->SetField("BrightFieldAfter", stack);
  }

  /** The weights, output 1. */
  TOutputImage *
  GetWeightsOutput()
  {
    return dynamic_cast<TOutputImage *>(this->ProcessObject::GetOutput(1));
  }

  /** Transmission is clamped to [MinimumTransmission, inf) before -log (default 1e-6). */
  itkSetMacro(MinimumTransmission, float);
  itkGetConstMacro(MinimumTransmission, float);
  /** Counts at or above this are saturated: weight 0, value interpolated (0, the default: no check). */
  itkSetMacro(SaturationLevel, float);
  itkGetConstMacro(SaturationLevel, float);
  /** Dead and hot cell detection (default on), its threshold in robust standard deviations (8) and its
   * smallest deviation in line-integral units (0.05). */
  itkSetMacro(DetectBadPixels, bool);
  itkGetConstMacro(DetectBadPixels, bool);
  itkBooleanMacro(DetectBadPixels);
  itkSetMacro(BadPixelThreshold, float);
  itkGetConstMacro(BadPixelThreshold, float);
  itkSetMacro(MinimumBadPixelDeviation, float);
  itkGetConstMacro(MinimumBadPixelDeviation, float);
  /** Background offset removal (default on) from edge strips of EdgeWidth channels (9), one offset for the
   * scan or one per view. */
  itkSetMacro(RemoveOffset, bool);
  itkGetConstMacro(RemoveOffset, bool);
  itkBooleanMacro(RemoveOffset);
  itkSetMacro(OffsetPerView, bool);
  itkGetConstMacro(OffsetPerView, bool);
  itkBooleanMacro(OffsetPerView);
  itkSetMacro(EdgeWidth, int);
  itkGetConstMacro(EdgeWidth, int);
  /** Ring suppression (default off) with a median over RingWidth channels (odd, 9). */
  itkSetMacro(SuppressRings, bool);
  itkGetConstMacro(SuppressRings, bool);
  itkBooleanMacro(SuppressRings);
  itkSetMacro(RingWidth, int);
  itkGetConstMacro(RingWidth, int);
  /** "transmission" (default), "transmission_root", "emission" or "unweighted"; others throw at once. */
  void
  SetWeightType(const std::string & name);
  itkGetStringMacro(WeightType);

  /** What the last Update() did. */
  float
  GetBackgroundOffset() const
  {
    return m_Result.offset;
  }
  const std::vector<float> &
  GetViewOffsets() const
  {
    return m_Result.viewOffsets;
  }
  /** Bits of mbir::BadCell per detector cell, row-major (rows, channels); 0 for a good cell. */
  const std::vector<std::uint8_t> &
  GetBadCells() const
  {
    return m_Result.badCells;
  }
  int
  GetNumberOfBadCells() const
  {
    return m_Result.numBadCells();
  }
  std::size_t
  GetNumberOfBadEntries() const
  {
    return m_Result.numBadEntries;
  }
  const std::vector<std::string> &
  GetNotes() const
  {
    return m_Result.notes;
  }

protected:
  MBIRTransmissionPreprocessingFilter();
  ~MBIRTransmissionPreprocessingFilter() override = default;

  using DataObjectPointerArraySizeType = typename Superclass::DataObjectPointerArraySizeType;
  using Superclass::MakeOutput;
  DataObject::Pointer
  MakeOutput(DataObjectPointerArraySizeType index) override;

  /** Every input whole; fields of other sizes than the counts are allowed (stacks). */
  void
  GenerateInputRequestedRegion() override;
  void
  EnlargeOutputRequestedRegion(DataObject * output) override
  {
    output->SetRequestedRegionToLargestPossibleRegion();
  }
  void
  VerifyInputInformation() ITKv5_CONST override
  {}
  void
  GenerateData() override;
  void
  PrintSelf(std::ostream & os, Indent indent) const override;

private:
  void
  SetField(const char * name, const DataObject * image)
  {
    this->ProcessObject::SetInput(name, const_cast<DataObject *>(image));
  }
  /** The engine's view of a field input: (1, rows, channels) or (n, rows, channels). */
  mbir::ArrayView3
  FieldView(const char * name) const;

  float                  m_MinimumTransmission = 1e-6f;
  float                  m_SaturationLevel = 0.0f;
  bool                   m_DetectBadPixels = true;
  float                  m_BadPixelThreshold = 8.0f;
  float                  m_MinimumBadPixelDeviation = 0.05f;
  bool                   m_RemoveOffset = true;
  bool                   m_OffsetPerView = false;
  int                    m_EdgeWidth = 9;
  bool                   m_SuppressRings = false;
  int                    m_RingWidth = 9;
  std::string            m_WeightType = "transmission";
  mbir::PreprocessResult m_Result;
};

} // end namespace itk

#ifndef ITK_MANUAL_INSTANTIATION
#  include "itkMBIRTransmissionPreprocessingFilter.hxx"
#endif

#endif
