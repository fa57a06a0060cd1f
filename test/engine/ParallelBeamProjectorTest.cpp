// Parallel-beam projector properties: slices stay apart, agreement with the NumPy reference of the
// spec, ROR semantics, mass, and independence of how the work is batched.

#include "MBIRTestSupport.h"
#include "mbir/Projector.h"
#include "mbir/kernels/ParallelBeam.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <utility>

using namespace mbir;

// The parallel-beam cases of the adjoint and Hessian tests are in GeometryProjectorTest.cpp.

TEST(ParallelBeamProjector, NeverCouplesSlices)
{
  const ParallelBeamGeometry g(SinogramShape{ 9, 5, 17 }, test::evenAngles(9, M_PI, 0.1));
  const Projector            projector(g, makeCpuBackend());
  const int                  pixel = (g.reconShape.rows / 2) * g.reconShape.cols + 3;
  for (int slice = 0; slice < g.reconShape.slices; ++slice)
  {
    std::vector<float> unit(g.reconShape.slices, 0.0f);
    unit[slice] = 1.0f;
    const std::vector<float> column =
      projector.sparseBackProject(projector.sparseForwardProject(unit.data(), { pixel }).data(), { pixel });
    for (int k = 0; k < g.reconShape.slices; ++k)
    {
      if (k == slice)
        EXPECT_GT(column[k], 0.0f);
      else
        EXPECT_EQ(column[k], 0.0f) << "slice " << slice << " reaches slice " << k;
    }
  }
}

TEST(ParallelBeamProjector, AgreesWithSpecReference)
{
  const auto cases = test::readReferenceFile(std::string(MBIR_TEST_DATA_DIR) + "/parallel_beam_reference.txt");
  ASSERT_EQ(cases.size(), 3u);
  for (const test::ReferenceCase & c : cases)
  {
    SCOPED_TRACE(c.name);
    const std::vector<double> & s = c.at("sinogram_shape");
    ParallelBeamGeometry        g(SinogramShape{ int(s[0]), int(s[1]), int(s[2]) }, c.floats("angles"));
    g.deltaDetChannel = static_cast<float>(c.scalar("delta_det_channel"));
    g.voxelRowAspect = static_cast<float>(c.scalar("voxel_row_aspect"));
    g.detChannelOffset = static_cast<float>(c.scalar("det_channel_offset"));
    g.rorMask = c.scalar("use_ror_mask") != 0 ? RorMask::ellipse() : RorMask::none();
    g.autoSetReconGeometry();
    const std::vector<double> & r = c.at("recon_shape");
    ASSERT_EQ(g.reconShape, (ReconShape{ int(r[0]), int(r[1]), int(r[2]) }));

    const Projector          projector(g, makeCpuBackend());
    const std::vector<float> x = c.floats("x");
    const std::vector<float> y = c.floats("y");
    EXPECT_LT(test::relativeError(projector.forwardProject(x.data()), c.floats("forward")), 1e-5);
    EXPECT_LT(test::relativeError(projector.backProject(y.data()), c.floats("back")), 1e-5);
  }
}

TEST(ParallelBeamProjector, RespectsRorMask)
{
  ParallelBeamGeometry     g(SinogramShape{ 12, 3, 24 }, test::evenAngles(12, M_PI));
  const Projector          projector(g, makeCpuBackend());
  const ReconShape &       shape = projector.reconShape();
  const std::vector<int> & ror = projector.rorPixels();
  ASSERT_LT(ror.size(), shape.numPixels());

  // Forward: voxels outside the ROR are ignored.
  std::vector<float> x = test::uniformRandom(shape.size(), 5);
  std::vector<float> inside(shape.numPixels(), 0.0f);
  for (const int p : ror)
  {
    inside[p] = 1.0f;
  }
  std::vector<float> xInside = x;
  for (std::size_t p = 0; p < shape.numPixels(); ++p)
  {
    for (int k = 0; k < shape.slices; ++k)
    {
      xInside[p * shape.slices + k] *= inside[p];
    }
  }
  EXPECT_EQ(projector.forwardProject(x.data()), projector.forwardProject(xInside.data()));

  // Back: zeros outside the ROR, data inside.
  const std::vector<float> y = test::uniformRandom(projector.sinogramShape().size(), 6);
  const std::vector<float> back = projector.backProject(y.data());
  for (std::size_t p = 0; p < shape.numPixels(); ++p)
  {
    for (int k = 0; k < shape.slices; ++k)
    {
      if (inside[p] == 0.0f)
      {
        EXPECT_EQ(back[p * shape.slices + k], 0.0f);
      }
      else
      {
        EXPECT_GT(back[p * shape.slices + k], 0.0f);
      }
    }
  }
}

TEST(ParallelBeamProjector, MassAndDiskLineIntegral)
{
  // One voxel's projections sum to its area in every view (spec §2.3 mass check).
  ParallelBeamGeometry g(SinogramShape{ 7, 1, 31 }, test::evenAngles(7, M_PI, 0.2));
  g.voxelRowAspect = 1.3f;
  g.autoSetReconGeometry();
  const Projector          projector(g, makeCpuBackend());
  const ReconShape &       shape = projector.reconShape();
  const int                centre = (shape.rows / 2) * shape.cols + shape.cols / 2;
  const float              one = 1.0f;
  const std::vector<float> view = projector.sparseForwardProject(&one, { centre });
  for (int v = 0; v < 7; ++v)
  {
    double sum = 0.0;
    for (int n = 0; n < 31; ++n)
    {
      sum += view[v * 31 + n] * g.deltaDetChannel;
    }
    EXPECT_NEAR(sum, 1.3, 1e-5);
  }

  // A disk of radius 20 has a central line integral of 2r = 40.
  ParallelBeamGeometry disk(SinogramShape{ 4, 1, 64 }, test::evenAngles(4, M_PI));
  const Projector      diskProjector(disk, makeCpuBackend());
  const ReconShape &   ds = diskProjector.reconShape();
  std::vector<float>   x(ds.size(), 0.0f);
  for (int i = 0; i < ds.rows; ++i)
  {
    for (int j = 0; j < ds.cols; ++j)
    {
      const double di = i - 0.5 * (ds.rows - 1), dj = j - 0.5 * (ds.cols - 1);
      x[i * ds.cols + j] = di * di + dj * dj <= 400.0 ? 1.0f : 0.0f;
    }
  }
  const std::vector<float> sino = diskProjector.forwardProject(x.data());
  for (int v = 0; v < 4; ++v)
  {
    const double central = 0.5 * (sino[v * 64 + 31] + sino[v * 64 + 32]);
    EXPECT_NEAR(central, 40.0, 1.0);
  }
}

TEST(ParallelBeamProjector, ResultDoesNotDependOnBatchingOrThreads)
{
  ParallelBeamGeometry g(SinogramShape{ 37, 5, 29 }, test::evenAngles(37, M_PI, 0.01));
  g.voxelRowAspect = 0.8f;
  g.autoSetReconGeometry();
  const Projector    one(g, makeCpuBackend(1));
  const Projector    two(g, makeCpuBackend(2));
  const Projector    many(g, makeCpuBackend(7));
  const ReconShape & shape = one.reconShape();

  std::vector<int> pixels = one.rorPixels();
  std::mt19937     engine(9);
  std::shuffle(pixels.begin(), pixels.end(), engine);
  const std::vector<float> values = test::uniformRandom(pixels.size() * shape.slices, 10);
  const std::vector<float> reference = one.sparseForwardProject(values.data(), pixels);
  EXPECT_LT(test::relativeError(two.sparseForwardProject(values.data(), pixels), reference), 1e-6);
  EXPECT_LT(test::relativeError(many.sparseForwardProject(values.data(), pixels), reference), 1e-6);

  // Two halves of the batch add up to the whole.
  const std::size_t        half = pixels.size() / 2;
  std::vector<int>         first(pixels.begin(), pixels.begin() + half), second(pixels.begin() + half, pixels.end());
  std::vector<float>       sum = one.sparseForwardProject(values.data(), first);
  const std::vector<float> rest = one.sparseForwardProject(values.data() + half * shape.slices, second);
  for (std::size_t i = 0; i < sum.size(); ++i)
  {
    sum[i] += rest[i];
  }
  EXPECT_LT(test::relativeError(sum, reference), 1e-6);

  const std::vector<float> y = test::uniformRandom(one.sinogramShape().size(), 11);
  const std::vector<float> back = one.sparseBackProject(y.data(), pixels);
  EXPECT_LT(test::relativeError(many.sparseBackProject(y.data(), pixels), back), 1e-6);
}

// The CPU projectors work out footprints a block at a time, with a fixed number of taps per shadow width
// (up to 2, 3 or 4 cells) and the scalar loop past that; every class, shadows falling off either edge of the
// detector and 61 slices (SIMD blocks and a tail), against A built entry by entry from the footprint kernel.
TEST(ParallelBeamProjector, EveryShadowWidthMatchesTheFootprintKernel)
{
  for (const float voxelInChannels : { 0.6f, 1.0f, 1.7f, 2.6f, 3.4f })
  {
    SCOPED_TRACE("voxel of " + std::to_string(voxelInChannels) + " channels");
    ParallelBeamGeometry g(SinogramShape{ 23, 61, 19 }, test::evenAngles(23, M_PI, 0.3));
    g.detChannelOffset = 2.5f; // pushes one side's shadows off the detector
    g.autoSetReconGeometry();
    g.deltaVoxel = voxelInChannels;
    g.reconShape.rows = g.reconShape.cols = 12;
    g.rorMask = RorMask::none();
    const Projector       projector(g, makeCpuBackend(2));
    const ReconShape &    shape = projector.reconShape();
    const SinogramShape & sino = projector.sinogramShape();
    const auto            p = g.kernelParams();
    const auto            views = g.viewTable();
    std::vector<int>      pixels(shape.numPixels());
    std::iota(pixels.begin(), pixels.end(), 0);
    const std::vector<float> x = test::uniformRandom(pixels.size() * shape.slices, 3);
    const std::vector<float> y = test::uniformRandom(sino.size(), 4);

    std::vector<double> forward(sino.size(), 0.0), back(x.size(), 0.0);
    for (int v = 0; v < sino.views; ++v)
    {
      for (int pixel : pixels)
      {
        const kernels::Footprint fp = kernels::parallelBeamChannelFootprint(p, views[v], pixel);
        for (int n = fp.first; n <= fp.last; ++n)
        {
          for (int k = 0; k < shape.slices; ++k)
          {
            const std::size_t entry = (std::size_t(v) * sino.rows + k) * sino.channels + n;
            forward[entry] += double(fp.weight(n)) * x[std::size_t(pixel) * shape.slices + k];
            back[std::size_t(pixel) * shape.slices + k] += double(fp.weight(n)) * y[entry];
          }
        }
      }
    }
    EXPECT_LT(test::relativeError(projector.sparseForwardProject(x.data(), pixels),
                                  std::vector<float>(forward.begin(), forward.end())),
              1e-6);
    EXPECT_LT(
      test::relativeError(projector.sparseBackProject(y.data(), pixels), std::vector<float>(back.begin(), back.end())),
      1e-6);
  }
}

// On several threads the CPU back-projects a batch that fits in cache (a VCD subset) view by view, in groups of
// views whose sums are added in order, and a batch of the whole image (past the cache) so a block of tiles at a time;
// on one thread, cylinder by cylinder. Both against each other: weighted and not, power 1 (A^T) and 2 (the Hessian),
// shadows of every tap count and the scalar loop, views in blocks and a tail, slices in vectors and a tail, on 2 and
// 3 threads.
TEST(ParallelBeamProjector, ViewByViewBackProjectionAgreesWithCylinderByCylinder)
{
  for (const auto [voxelInChannels, side] : { std::pair{ 0.8f, 24 },
                                              std::pair{ 1.7f, 24 },
                                              std::pair{ 2.6f, 24 },
                                              std::pair{ 3.4f, 24 },
                                              std::pair{ 0.6f, 96 } })
  {
    ParallelBeamGeometry g(SinogramShape{ 70, 37, 41 }, test::evenAngles(70, M_PI, 0.2));
    g.autoSetReconGeometry();
    g.deltaVoxel = voxelInChannels;
    g.reconShape.rows = g.reconShape.cols = side;
    g.rorMask = RorMask::none();
    const Projector       one(g, makeCpuBackend(1));
    const SinogramShape & sino = one.sinogramShape();
    const ReconShape &    shape = one.reconShape();
    std::vector<int>      pixels;
    for (int i = 0; i < (side == 24 ? 60 : static_cast<int>(shape.numPixels())); ++i)
    {
      pixels.push_back((i * 89) % shape.numPixels()); // 89 is prime to 96 x 96: the whole image, shuffled
    }
    // The whole 96 x 96 image is 96 x 96 x 37 values, two blocks of tiles.
    ASSERT_EQ(side == 96, pixels.size() * shape.slices > (1u << 18));
    const CylinderBatch      batch{ pixels.data(), static_cast<int>(pixels.size()), shape.slices, 0 };
    const std::vector<float> y = test::uniformRandom(sino.size(), 8, -1.0f, 1.0f);
    const std::vector<float> w = test::uniformRandom(sino.size(), 9, 0.0f, 2.0f);
    for (const int power : { 1, 2 })
    {
      for (const bool weighted : { false, true })
      {
        SCOPED_TRACE("voxel of " + std::to_string(voxelInChannels) + " channels, power " + std::to_string(power) +
                     (weighted ? ", weighted" : ""));
        const std::vector<const float *> weights =
          weighted ? std::vector<const float *>{ w.data() } : std::vector<const float *>{};
        std::vector<float> expected(pixels.size() * shape.slices);
        one.back(SinogramSplit::ByView, { y.data() }, weights, power, { batch }, { expected.data() });
        for (const int threads : { 2, 3 })
        {
          const Projector    several(g, makeCpuBackend(threads));
          std::vector<float> values(expected.size(), 5.0f); // back() sets them
          several.back(SinogramSplit::ByView, { y.data() }, weights, power, { batch }, { values.data() });
          EXPECT_LT(test::relativeError(values, expected), 1e-6) << threads << " threads";
        }
      }
    }
  }
}
