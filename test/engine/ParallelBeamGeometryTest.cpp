// The parallel-beam parameters: default grid (spec/projectors.md §2.1, §8), ROR mask, and the errors
// that bad input must raise.

#include "MBIRTestSupport.h"
#include "mbir/Projector.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mbir;
using mbir::test::expectInvalid;

namespace {

ParallelBeamGeometry
specGeometry()
{
  return ParallelBeamGeometry(SinogramShape{ 64, 40, 128 }, test::evenAngles(64, M_PI, -M_PI / 2));
}

void
validate(const ParallelBeamGeometry & g)
{
  g.validate();
}

} // namespace

TEST(ParallelBeamGeometry, DefaultGridMatchesSpec)
{
  const ParallelBeamGeometry g = specGeometry();
  EXPECT_EQ(g.reconShape, (ReconShape{ 128, 128, 40 }));
  EXPECT_FLOAT_EQ(g.deltaVoxel, 1.0f);
  EXPECT_NO_THROW(g.validate());
}

TEST(ParallelBeamGeometry, AnisotropicGridMatchesSpec)
{
  ParallelBeamGeometry g = specGeometry();
  g.voxelRowAspect = 1.9f;
  g.autoSetReconGeometry();
  EXPECT_EQ(g.reconShape, (ReconShape{ 68, 128, 40 }));
}

TEST(ParallelBeamGeometry, PitchScalesVoxel)
{
  ParallelBeamGeometry g(SinogramShape{ 10, 7, 33 }, test::evenAngles(10, M_PI));
  g.deltaDetChannel = 0.25f;
  g.deltaDetRow = 0.25f;
  g.autoSetReconGeometry();
  EXPECT_FLOAT_EQ(g.deltaVoxel, 0.25f);
  EXPECT_EQ(g.reconShape, (ReconShape{ 33, 33, 7 }));
}

TEST(RorMask, EllipseCountMatchesSpec)
{
  EXPECT_EQ(RorMask::ellipse().pixelIndices(ReconShape{ 128, 128, 1 }).size(), 12644u);
  EXPECT_EQ(RorMask::none().pixelIndices(ReconShape{ 5, 7, 1 }).size(), 35u);
}

TEST(RorMask, EllipseIsSymmetricAndInscribed)
{
  const ReconShape       shape{ 17, 24, 1 };
  const std::vector<int> pixels = RorMask::ellipse().pixelIndices(shape);
  std::vector<int>       inside(shape.numPixels(), 0);
  for (const int p : pixels)
  {
    inside[p] = 1;
  }
  for (int i = 0; i < shape.rows; ++i)
  {
    for (int j = 0; j < shape.cols; ++j)
    {
      EXPECT_EQ(inside[i * shape.cols + j], inside[(shape.rows - 1 - i) * shape.cols + (shape.cols - 1 - j)]);
    }
  }
  // The radii reach the centres of the edge pixels: (8, 0) on the row axis is in; with an even column
  // count no pixel sits on the column axis, so (0, 11) is just out and (1, 11) in; corners are out.
  EXPECT_EQ(inside[8 * shape.cols + 0], 1);
  EXPECT_EQ(inside[0 * shape.cols + 11], 0);
  EXPECT_EQ(inside[1 * shape.cols + 11], 1);
  EXPECT_EQ(inside[0], 0);
}

TEST(RorMask, CustomMask)
{
  const RorMask mask = RorMask::custom({ 0, 1, 1, 0, 0, 1 }, 2, 3);
  EXPECT_EQ(mask.pixelIndices(ReconShape{ 2, 3, 4 }), (std::vector<int>{ 1, 2, 5 }));
  expectInvalid([&] { mask.pixelIndices(ReconShape{ 3, 2, 4 }); }, "custom ROR mask has shape (2, 3)");
  expectInvalid([] { RorMask::custom({ 0, 1, 2, 0 }, 2, 2); }, "must be 0 or 1");
  expectInvalid([] { RorMask::custom({ 0, 1, 1 }, 2, 2); }, "entries");
}

TEST(ParallelBeamGeometry, RejectsBadInput)
{
  {
    ParallelBeamGeometry g(SinogramShape{ 0, 4, 8 }, {});
    expectInvalid([&] { validate(g); }, "at least one view");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.angles.pop_back();
    expectInvalid([&] { validate(g); }, "angles has 63 entries for 64 views");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.angles[3] = std::nanf("");
    expectInvalid([&] { validate(g); }, "angles entry 3 is not finite");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.deltaDetChannel = 0.0f;
    expectInvalid([&] { validate(g); }, "delta_det_channel");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.deltaDetRow = -1.0f;
    expectInvalid([&] { validate(g); }, "delta_det_row");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.deltaVoxel = -0.5f;
    expectInvalid([&] { validate(g); }, "delta_voxel");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.voxelRowAspect = 0.0f;
    expectInvalid([&] { validate(g); }, "voxel_row_aspect");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.voxelSliceAspect = 2.0f;
    expectInvalid([&] { validate(g); }, "voxel_slice_aspect");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.reconShape.cols = 0;
    expectInvalid([&] { validate(g); }, "recon_shape (128, 0, 40)");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.reconShape.slices = 39;
    expectInvalid([&] { validate(g); }, "one slice per row");
  }
  {
    ParallelBeamGeometry g = specGeometry();
    g.rorMask = RorMask::custom(std::vector<std::uint8_t>(100, 1), 10, 10);
    expectInvalid([&] { validate(g); }, "custom ROR mask");
    expectInvalid([&] { Projector(g, makeCpuBackend()); }, "custom ROR mask");
  }
}

TEST(Projector, RejectsBadPixelIndices)
{
  const Projector          projector(specGeometry(), makeCpuBackend());
  const std::vector<float> values(40, 1.0f);
  expectInvalid([&] { projector.sparseForwardProject(values.data(), { 128 * 128 }); }, "outside the recon grid");
  expectInvalid([&] { projector.sparseForwardProject(values.data(), { -1 }); }, "outside the recon grid");
  const std::vector<float> sino(projector.sinogramShape().size(), 1.0f);
  expectInvalid([&] { projector.sparseBackProject(sino.data(), { 0 }, 3); }, "power must be 1");
}
