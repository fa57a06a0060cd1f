// The transmission preprocessing filter: 2-D and stacked fields, both outputs, the report, and errors.

#include "itkMBIRTransmissionPreprocessingFilter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

namespace {

using ImageType = itk::Image<float, 3>;
using FilterType = itk::MBIRTransmissionPreprocessingFilter<ImageType>;

template<typename TImage>
typename TImage::Pointer
filled(const typename TImage::SizeType & size, float value)
{
  auto image = TImage::New();
  image->SetRegions(typename TImage::RegionType(size));
  image->Allocate();
  image->FillBuffer(value);
  return image;
}

} // namespace

TEST(MBIRTransmissionPreprocessingFilter, FieldsOutputsAndReport)
{
  const ImageType::SizeType size = { { 24, 3, 5 } };                  // channels, rows, views
  auto                      counts = filled<ImageType>(size, 510.0f); // (510 - 10) / (1010 - 10) = 0.5
  ImageType::SpacingType    spacing;
  spacing[0] = 0.2;
  spacing[1] = 0.3;
  spacing[2] = 1.0;
  counts->SetSpacing(spacing);
  for (unsigned int v = 0; v < size[2]; ++v)
  {
    counts->SetPixel({ { 7, 1, v } }, std::numeric_limits<float>::quiet_NaN());
  }
  const FilterType::FieldImageType::SizeType fieldSize = { { 24, 3 } };
  auto                                       dark = filled<FilterType::FieldImageType>(fieldSize, 10.0f);
  auto                                       bright = filled<ImageType>({ { 24, 3, 2 } }, 1010.0f);

  auto filter = FilterType::New();
  filter->SetCounts(counts);
  filter->SetDarkField(dark);
  filter->SetBrightField(bright);
  filter->SetRemoveOffset(false);
  filter->SetWeightType("transmission_root");
  filter->Update();

  const ImageType * sino = filter->GetOutput();
  const ImageType * weights = filter->GetWeightsOutput();
  EXPECT_EQ(sino->GetLargestPossibleRegion().GetSize(), size);
  EXPECT_EQ(weights->GetLargestPossibleRegion().GetSize(), size);
  EXPECT_DOUBLE_EQ(sino->GetSpacing()[1], 0.3);
  EXPECT_NEAR(sino->GetPixel({ { 3, 2, 4 } }), std::log(2.0), 1e-6);
  EXPECT_NEAR(weights->GetPixel({ { 3, 2, 4 } }), std::sqrt(0.5), 1e-6);
  EXPECT_NEAR(sino->GetPixel({ { 7, 1, 2 } }), std::log(2.0), 1e-6); // interpolated
  EXPECT_EQ(weights->GetPixel({ { 7, 1, 2 } }), 0.0f);
  EXPECT_EQ(filter->GetNumberOfBadCells(), 1);
  EXPECT_EQ(filter->GetBadCells()[1 * 24 + 7], mbir::BadCellNonFinite);
  EXPECT_FALSE(filter->GetNotes().empty());
  std::ostringstream print;
  filter->Print(print);
  EXPECT_NE(print.str().find("WeightType: transmission_root"), std::string::npos);

  // With the offset removed, a uniform scan is all air: the offset is log 2.
  filter->SetRemoveOffset(true);
  filter->Update();
  EXPECT_NEAR(filter->GetBackgroundOffset(), std::log(2.0), 1e-6);
  EXPECT_NEAR(filter->GetOutput()->GetPixel({ { 3, 2, 4 } }), 0.0, 1e-6);
}

TEST(MBIRTransmissionPreprocessingFilter, Errors)
{
  auto filter = FilterType::New();
  EXPECT_THROW(filter->SetWeightType("poisson"), itk::ExceptionObject);
  filter->SetCounts(filled<ImageType>({ { 24, 3, 5 } }, 100.0f));
  filter->SetDarkField(filled<ImageType>({ { 20, 3, 1 } }, 1.0f));
  try
  {
    filter->Update();
    FAIL() << "a dark field of the wrong size was accepted";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("dark fields have shape (1, 3, 20)"), std::string::npos)
      << e.GetDescription();
  }
}
