// The kernels on parts of a volume: projections of slice bands add up to the whole, back projections of
// bands are the bands of the whole, and the prior on slice shards with halos equals the prior on the
// whole volume; padding slices are never read and never written.

#include "MBIRTestSupport.h"
#include "SpecGeometries.h"
#include "mbir/Projector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

using namespace mbir;

namespace {

std::vector<test::NamedGeometry>
bandCases()
{
  std::vector<test::NamedGeometry> cases;
  cases.push_back({ "parallel", ParallelBeamGeometry({ 7, 11, 16 }, test::evenAngles(7, M_PI, 0.1)) });
  cases.push_back({ "cone", ConeBeamGeometry({ 7, 9, 16 }, test::evenAngles(7, 2 * M_PI, 0.1), 64.0f, 32.0f) });
  cases.push_back({ "translation", TranslationGeometry({ 5, 9, 16 }, test::specTranslations(5, 2), 64.0f, 32.0f) });
  cases.push_back(
    { "multi_axis",
      MultiAxisParallelGeometry({ 7, 9, 16 }, test::evenAngles(7, M_PI, 0.1), std::vector<float>(7, 0.3f)) });
  return cases;
}

class SliceBands : public ::testing::TestWithParam<test::NamedGeometry>
{};

// Values of slices [first, first + count) of cylinders stored whole, as a band buffer; slices past the
// volume are filled with NaN, which the kernels must not read.
std::vector<float>
band(const std::vector<float> & whole, int pixels, int slices, int first, int count)
{
  std::vector<float> out(static_cast<std::size_t>(pixels) * count, NAN);
  for (int b = 0; b < pixels; ++b)
  {
    for (int k = 0; k < count && first + k < slices; ++k)
    {
      out[std::size_t(b) * count + k] = whole[std::size_t(b) * slices + first + k];
    }
  }
  return out;
}

} // namespace

TEST_P(SliceBands, ProjectionsOfBandsMakeTheWhole)
{
  const Projector          projector(GetParam().geometry, makeCpuBackend());
  Backend &                backend = projector.device(0);
  const int                slices = projector.reconShape().slices;
  const CylinderBatch      all = projector.allCylinders(0);
  const int                pixels = all.numPixels;
  const std::vector<float> x = test::uniformRandom(std::size_t(pixels) * slices, 1);
  const std::vector<float> y = test::uniformRandom(projector.sinogramShardSize(), 2);
  DeviceArray<float>       whole = backend.allocate<float>(projector.sinogramShardSize());
  DeviceArray<float>       xs = backend.upload(x.data(), x.size());
  backend.forwardProject(projector.deviceModel(0), all, xs.data(), projector.views(0), whole.data());
  DeviceArray<float> backWhole = backend.allocate<float>(x.size());
  backend.backProject(projector.deviceModel(0), all, y.data(), nullptr, projector.views(0), 1, backWhole.data());
  std::vector<float> hostBackWhole(x.size());
  backend.copyToHost(backWhole.data(), hostBackWhole.data(), x.size() * sizeof(float));

  // Bands of 3 slices, the last one running past the volume (padding).
  const int          length = 3;
  DeviceArray<float> sum = backend.allocate<float>(projector.sinogramShardSize());
  for (int first = 0; first < slices; first += length)
  {
    const std::vector<float> values = band(x, pixels, slices, first, length);
    DeviceArray<float>       deviceValues = backend.upload(values.data(), values.size());
    const CylinderBatch      batch{ all.pixels, pixels, length, first };
    backend.forwardProject(projector.deviceModel(0), batch, deviceValues.data(), projector.views(0), sum.data());

    std::vector<float> marked(values.size());
    for (std::size_t i = 0; i < marked.size(); ++i)
    {
      marked[i] = std::isnan(values[i]) ? -7.0f : 0.0f; // padding must keep its value
    }
    DeviceArray<float> bandBack = backend.upload(marked.data(), marked.size());
    backend.backProject(projector.deviceModel(0), batch, y.data(), nullptr, projector.views(0), 1, bandBack.data());
    std::vector<float> got(values.size());
    backend.copyToHost(bandBack.data(), got.data(), got.size() * sizeof(float));
    const std::vector<float> expected = band(hostBackWhole, pixels, slices, first, length);
    for (std::size_t i = 0; i < got.size(); ++i)
    {
      if (std::isnan(expected[i]))
        EXPECT_EQ(got[i], -7.0f) << "a padding slice was written";
      else
        EXPECT_NEAR(got[i], expected[i], 1e-5f * (1.0f + std::fabs(expected[i])));
    }
  }
  std::vector<float> a(projector.sinogramShardSize()), b(projector.sinogramShardSize());
  backend.copyToHost(whole.data(), a.data(), a.size() * sizeof(float));
  backend.copyToHost(sum.data(), b.data(), b.size() * sizeof(float));
  EXPECT_LT(test::relativeError(b, a), 1e-6);
}

// forwardProjectAndNorm, the line search's fused form: the same projection, and the sum of w v^2 over it, for a
// band of slices (the rows past it stay 0 and are summed as 0) and for the whole, weighted and not, on one and two
// threads; the larger parallel-beam case takes several of the CPU projector's cylinder blocks.
void
expectNormOfProjection(const Geometry & geometry)
{
  for (const int threads : { 1, 2 })
  {
    const Projector          projector(geometry, makeCpuBackend(threads));
    Backend &                backend = projector.device(0);
    const int                slices = projector.reconShape().slices;
    const CylinderBatch      all = projector.allCylinders(0);
    const std::size_t        entries = projector.sinogramShardSize();
    const std::vector<float> weights = test::uniformRandom(entries, 3, 0.5f, 2.0f);
    for (const int length : { slices, std::max(1, slices / 3) })
    {
      const std::vector<float> x = test::uniformRandom(std::size_t(all.numPixels) * length, 4, -1.0f, 1.0f);
      const CylinderBatch      batch{ all.pixels, all.numPixels, length, slices - length };
      for (const bool weighted : { false, true })
      {
        SCOPED_TRACE(std::to_string(threads) + " thread(s), " + std::to_string(length) + " slices, " +
                     (weighted ? "weighted" : "unweighted"));
        std::vector<float> plain(entries, 0.0f), fused(entries, 0.0f);
        backend.forwardProject(projector.deviceModel(0), batch, x.data(), projector.views(0), plain.data());
        const double norm = backend.forwardProjectAndNorm(projector.deviceModel(0),
                                                          batch,
                                                          x.data(),
                                                          projector.views(0),
                                                          weighted ? weights.data() : nullptr,
                                                          entries,
                                                          fused.data());
        double       expected = 0.0;
        for (std::size_t i = 0; i < entries; ++i)
        {
          expected += (weighted ? double(weights[i]) : 1.0) * double(plain[i]) * plain[i];
        }
        EXPECT_EQ(fused, plain);
        EXPECT_GT(expected, 0.0);
        EXPECT_NEAR(norm, expected, 1e-6 * expected);
      }
    }
  }
}

TEST_P(SliceBands, FusedForwardNormIsTheNormOfTheProjection)
{
  expectNormOfProjection(GetParam().geometry);
}

TEST(SliceShards, FusedForwardNormOverSeveralCylinderBlocks)
{
  expectNormOfProjection(ParallelBeamGeometry({ 12, 64, 96 }, test::evenAngles(12, M_PI, 0.2)));
}

INSTANTIATE_TEST_SUITE_P(Geometries, SliceBands, ::testing::ValuesIn(bandCases()), test::testName);

TEST(SliceShards, PriorOnShardsWithHalosEqualsPriorOnWhole)
{
  const auto               backend = makeCpuBackend();
  const ReconShape         whole{ 5, 6, 11 };
  const std::vector<float> x = test::uniformRandom(whole.size(), 3, -1.0f, 1.0f);
  kernels::QGGMRFParams    prior{};
  prior.sigmaX = 0.3f;
  prior.p = 2.0f;
  prior.q = 1.2f;
  prior.T = 1.0f;
  kernels::neighbourWeights(1.0f, 1.0f, 1.0f, prior.b);
  std::vector<int> pixels(whole.numPixels());
  std::iota(pixels.begin(), pixels.end(), 0);
  const int          P = static_cast<int>(pixels.size());
  std::vector<float> gradient(whole.size()), hessian(whole.size());
  backend->qggmrfGradientHessian(prior,
                                 x.data(),
                                 whole,
                                 kernels::SliceShard{ 0, whole.slices },
                                 CylinderBatch{ pixels.data(), P, whole.slices },
                                 nullptr,
                                 nullptr,
                                 gradient.data(),
                                 hessian.data());
  const double cost = backend->qggmrfCost(prior, x.data(), whole, kernels::SliceShard{ 0, whole.slices }, nullptr);

  // Shards of 4 slices (the last padded with NaN), halos from the neighbours.
  const int shardSlices = 4;
  double    shardCost = 0.0;
  for (int first = 0; first < whole.slices; first += shardSlices)
  {
    const std::vector<float> shard = band(x, P, whole.slices, first, shardSlices);
    std::vector<float>       below(P), above(P), abovePlane(P);
    for (int b = 0; b < P; ++b)
    {
      below[b] = first > 0 ? x[std::size_t(b) * whole.slices + first - 1] : NAN;
      const int next = first + shardSlices;
      above[b] = abovePlane[b] = next < whole.slices ? x[std::size_t(b) * whole.slices + next] : NAN;
    }
    const bool         last = first + shardSlices >= whole.slices;
    const ReconShape   local{ whole.rows, whole.cols, shardSlices };
    std::vector<float> g(shard.size()), h(shard.size());
    backend->qggmrfGradientHessian(prior,
                                   shard.data(),
                                   local,
                                   kernels::SliceShard{ first, whole.slices },
                                   CylinderBatch{ pixels.data(), P, shardSlices, first },
                                   first > 0 ? below.data() : nullptr,
                                   last ? nullptr : above.data(),
                                   g.data(),
                                   h.data());
    for (int b = 0; b < P; ++b)
    {
      for (int k = 0; k < shardSlices; ++k)
      {
        const std::size_t i = std::size_t(b) * shardSlices + k;
        if (first + k < whole.slices)
        {
          EXPECT_NEAR(g[i], gradient[std::size_t(b) * whole.slices + first + k], 1e-6f);
          EXPECT_NEAR(h[i], hessian[std::size_t(b) * whole.slices + first + k], 1e-6f);
        }
        else
        {
          EXPECT_EQ(g[i], 0.0f); // padding: no gradient, positive curvature, so its update is 0
          EXPECT_GT(h[i], 0.0f);
        }
      }
    }
    shardCost += backend->qggmrfCost(
      prior, shard.data(), local, kernels::SliceShard{ first, whole.slices }, last ? nullptr : abovePlane.data());
  }
  // To float rounding of the terms (SIMD lanes and scalar tails contract differently); one term missing or counted
  // twice would be thousands of times this.
  EXPECT_NEAR(shardCost, cost, 1e-7 * std::fabs(cost) + 1e-9);
}
