// Layout conversion between ITK images and engine arrays.

#include "MBIRTestSupport.h"
#include "itkMBIRImageConversion.h"

#include <gtest/gtest.h>

using itk::MBIRImageConversion;

TEST(MBIRImageConversion, SinogramIsIndexedChannelRowView)
{
  const mbir::SinogramShape shape{ 4, 3, 5 };
  const std::vector<float>  sino = mbir::test::uniformRandom(shape.size(), 1);
  const auto                image = MBIRImageConversion::SinogramToImage(sino, shape, 0.5, 2.0);
  const auto                size = image->GetLargestPossibleRegion().GetSize();
  EXPECT_EQ(size[0], 5u);
  EXPECT_EQ(size[1], 3u);
  EXPECT_EQ(size[2], 4u);
  EXPECT_DOUBLE_EQ(image->GetSpacing()[0], 0.5);
  EXPECT_DOUBLE_EQ(image->GetSpacing()[1], 2.0);
  EXPECT_DOUBLE_EQ(image->GetOrigin()[0], -1.0); // the detector centre is at 0
  // Entry (view 2, row 1, channel 3).
  EXPECT_EQ(image->GetPixel({ { 3, 1, 2 } }), sino[(2 * 3 + 1) * 5 + 3]);

  mbir::SinogramShape back;
  EXPECT_EQ(MBIRImageConversion::ImageToSinogram(image, back), sino);
  EXPECT_EQ(back, shape);
}

TEST(MBIRImageConversion, VolumeIsIndexedColumnRowSlice)
{
  const mbir::ReconShape                      shape{ 3, 4, 2 }; // rows, cols, slices
  const std::vector<float>                    recon = mbir::test::uniformRandom(shape.size(), 2);
  MBIRImageConversion::ImageType::SpacingType spacing;
  spacing[0] = 1.0;
  spacing[1] = 1.5;
  spacing[2] = 2.0;
  const auto image = MBIRImageConversion::ReconToImage(recon, shape, spacing);
  const auto size = image->GetLargestPossibleRegion().GetSize();
  EXPECT_EQ(size[0], 4u);
  EXPECT_EQ(size[1], 3u);
  EXPECT_EQ(size[2], 2u);
  // Voxel (row 2, col 1, slice 1) is ITK index [x=1, y=2, z=1].
  EXPECT_EQ(image->GetPixel({ { 1, 2, 1 } }), recon[(2 * 4 + 1) * 2 + 1]);
  // Centred: the middle of the grid is the physical origin.
  EXPECT_DOUBLE_EQ(image->GetOrigin()[0], -1.5);
  EXPECT_DOUBLE_EQ(image->GetOrigin()[1], -1.5);
  EXPECT_DOUBLE_EQ(image->GetOrigin()[2], -1.0);

  mbir::ReconShape back;
  EXPECT_EQ(MBIRImageConversion::ImageToRecon(image, back), recon);
  EXPECT_EQ(back, shape);
}

TEST(MBIRImageConversion, RejectsMismatchedSizes)
{
  EXPECT_THROW(MBIRImageConversion::SinogramToImage({ 1.0f, 2.0f }, mbir::SinogramShape{ 1, 1, 3 }, 1, 1),
               itk::ExceptionObject);
  mbir::SinogramShape shape;
  EXPECT_THROW(MBIRImageConversion::ImageToSinogram(nullptr, shape), itk::ExceptionObject);
}
