// Projectors of every geometry: exact adjoint and Hessian diagonal on the cases of spec/projectors.md §8
// and the ones it adds, the documented coordinate conventions (a bright voxel lands where the README
// says), equivalences (multi-axis at zero elevation is parallel beam, a helix without pitch is a
// circle), mass, default grids and the errors bad geometries raise.

#include "MBIRTestSupport.h"
#include "SpecGeometries.h"
#include "mbir/Projector.h"
#include "mbir/kernels/ArcTangent.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

using namespace mbir;
using mbir::test::expectInvalid;
using mbir::test::NamedGeometry;
using mbir::test::SpecAngles;

namespace {

std::vector<int>
allPixels(const ReconShape & shape)
{
  std::vector<int> pixels(shape.numPixels());
  std::iota(pixels.begin(), pixels.end(), 0);
  return pixels;
}

template<typename G>
G
withoutRor(G g)
{
  g.rorMask = RorMask::none();
  return g;
}

std::vector<NamedGeometry>
adjointCases()
{
  using namespace mbir::test;
  std::vector<NamedGeometry> cases = {
    { "parallel", specParallel(SpecAngles::Projector) },
    { "anisotropic_parallel", specParallel(SpecAngles::Projector, 1.9f) },
    { "cone", specCone(SpecAngles::Projector) },
    { "anisotropic_cone", specCone(SpecAngles::Projector, 1.9f, 2.9f) },
    { "helical_cone", specCone(SpecAngles::Projector, 1.0f, 1.0f, true) },
    { "translation", specTranslation() },
    { "anisotropic_translation", specTranslation(1.9f, 2.9f) },
    { "curved_helical_cone", specCone(SpecAngles::Projector, 1.0f, 1.0f, true, true) },
    { "multi_axis_elevation_25", specMultiAxis(SpecAngles::Projector) },
  };
  // Parallel beam: odd and even detectors, offsets, row aspects either side of 1, a full turn, one
  // view, a channel pitch other than 1, voxels wider than a channel (shadows up to 2.3 cells).
  auto parallel = [&cases](std::string name, SinogramShape shape, std::vector<float> angles, auto adjust) {
    ParallelBeamGeometry g(shape, std::move(angles));
    adjust(g);
    g.autoSetReconGeometry();
    cases.push_back({ "parallel_" + name, withoutRor(g) });
  };
  parallel("odd_channels", { 16, 4, 21 }, evenAngles(16, M_PI), [](ParallelBeamGeometry &) {});
  parallel("channel_offset", { 10, 3, 16 }, evenAngles(10, M_PI, 0.1), [](ParallelBeamGeometry & g) {
    g.detChannelOffset = 2.3f;
  });
  parallel(
    "row_aspect_0_4", { 9, 2, 14 }, evenAngles(9, M_PI), [](ParallelBeamGeometry & g) { g.voxelRowAspect = 0.4f; });
  parallel("full_turn_one_view", { 1, 5, 11 }, { 0.3f }, [](ParallelBeamGeometry &) {});
  parallel("narrow_channels", { 8, 2, 17 }, evenAngles(8, M_PI), [](ParallelBeamGeometry & g) {
    g.deltaDetChannel = g.deltaDetRow = 0.7f;
    g.detChannelOffset = -0.9f;
  });
  ParallelBeamGeometry wide({ 11, 2, 19 }, evenAngles(11, M_PI, 0.05));
  wide.deltaVoxel = 1.6f;
  wide.reconShape = ReconShape{ 9, 12, 2 };
  cases.push_back({ "parallel_voxel_wider_than_channel", withoutRor(wide) });
  // Traps of spec §10 where MBIRJAX's loop radii are too small: row pitch 4x the channel pitch, thin
  // slices (a_z = 1/3) in cone beam and translation.
  ConeBeamGeometry tallRows({ 9, 6, 24 }, linspace(-M_PI, M_PI, 9, 1e-4), 96.0f, 48.0f);
  tallRows.deltaDetRow = 4.0f;
  tallRows.autoSetReconGeometry();
  cases.push_back({ "cone_row_pitch_4x", tallRows });
  ConeBeamGeometry thin({ 9, 8, 24 }, linspace(-M_PI, M_PI, 9, 1e-4), 96.0f, 48.0f);
  thin.voxelRowAspect = 0.5f;
  thin.voxelSliceAspect = 1.0f / 3.0f;
  thin.autoSetReconGeometry();
  cases.push_back({ "cone_thin_slices", thin });
  TranslationGeometry thinTranslation({ 12, 10, 24 }, specTranslations(12, 3), 96.0f, 48.0f);
  thinTranslation.voxelSliceAspect = 0.25f;
  thinTranslation.autoSetReconGeometry();
  thinTranslation.reconShape.slices = 30;
  cases.push_back({ "translation_thin_slices", thinTranslation });
  // Parallel rays with the cone's vertical model, and a multi-axis scan with varying elevation,
  // offsets and voxel aspects.
  ConeBeamGeometry infinite({ 8, 6, 20 }, linspace(0, M_PI, 8, 0.1), INFINITY, 40.0f);
  infinite.detRowOffset = 0.7f;
  infinite.reconSliceOffset = -1.2f;
  cases.push_back({ "cone_infinite_distance", infinite });
  std::vector<float> elevations(11);
  for (int v = 0; v < 11; ++v)
  {
    elevations[v] = static_cast<float>(0.6 * std::sin(0.9 * v));
  }
  MultiAxisParallelGeometry tilted({ 11, 9, 22 }, linspace(0, 2 * M_PI, 11, 0.05), elevations);
  tilted.voxelRowAspect = 1.4f;
  tilted.voxelSliceAspect = 0.7f;
  tilted.detChannelOffset = 1.3f;
  tilted.detRowOffset = -0.6f;
  tilted.deltaDetRow = 1.2f;
  tilted.autoSetReconGeometry();
  tilted.reconSliceOffset = 0.8f;
  cases.push_back({ "multi_axis_varying_elevation", tilted });
  return cases;
}

class GeometryProjector : public ::testing::TestWithParam<NamedGeometry>
{};

// A back projection given VCD's pending error update (Backend::PendingUpdate) equals the update, then the back
// projection: the sinogram updated to the bit, the change cleared, the same values; weighted and not, over a shuffled
// half of the ROR (a subset), on `threads` threads (which choose the back projection's path, view by view or cylinder
// by cylinder).
void
expectBackProjectionAfterUpdate(const Geometry & geometry, int threads, bool wholeRor = false)
{
  const Projector   projector(geometry, makeCpuBackend(threads));
  const std::size_t size = projector.sinogramShape().size();
  const int         slices = projector.reconShape().slices;
  std::vector<int>  pixels = projector.rorPixels();
  std::mt19937      engine(20);
  std::shuffle(pixels.begin(), pixels.end(), engine);
  pixels.resize(wholeRor ? pixels.size() : (pixels.size() + 1) / 2);
  const CylinderBatch      batch{ pixels.data(), static_cast<int>(pixels.size()), slices, 0 };
  const std::vector<float> error = test::uniformRandom(size, 21), change = test::uniformRandom(size, 22);
  const std::vector<float> w = test::uniformRandom(size, 23, 0.0f, 2.0f);
  for (const bool weighted : { false, true })
  {
    SCOPED_TRACE(std::to_string(threads) + " threads" + (weighted ? ", weighted" : ""));
    const std::vector<const float *> weights =
      weighted ? std::vector<const float *>{ w.data() } : std::vector<const float *>{};
    std::vector<float> updated = error, cleared = change, expected(pixels.size() * slices);
    projector.device(0).addScaledAndClear(-0.3f, cleared.data(), updated.data(), size);
    projector.back(SinogramSplit::ByView, { updated.data() }, weights, 1, { batch }, { expected.data() });

    std::vector<float> sinogram = error, pending = change, values(expected.size(), 5.0f);
    projector.back(SinogramSplit::ByView,
                   { sinogram.data() },
                   weights,
                   1,
                   { batch },
                   { values.data() },
                   { Backend::PendingUpdate{ sinogram.data(), pending.data(), -0.3f, size } });
    EXPECT_EQ(sinogram, updated);
    EXPECT_EQ(pending, cleared);
    EXPECT_EQ(values, expected);
  }
}

} // namespace

TEST_P(GeometryProjector, BackProjectionAppliesAPendingUpdateFirst)
{
  for (const int threads : { 1, 2, 3 })
  {
    expectBackProjectionAfterUpdate(GetParam().geometry, threads);
  }
}

// <A x, y> = <x, A^T y> over every pixel (spec §8.1: rtol 1e-4).
TEST_P(GeometryProjector, IsExactAdjoint)
{
  const Projector          projector(GetParam().geometry, makeCpuBackend());
  const ReconShape &       shape = projector.reconShape();
  const std::vector<float> x = test::uniformRandom(shape.size(), 1);
  const std::vector<float> y = test::uniformRandom(projector.sinogramShape().size(), 2);
  const std::vector<int>   pixels = allPixels(shape);
  const double             ax_y = test::dot(projector.sparseForwardProject(x.data(), pixels), y);
  const double             x_aty = test::dot(x, projector.sparseBackProject(y.data(), pixels));
  EXPECT_GT(std::abs(ax_y), 0.0);
  EXPECT_NEAR(ax_y, x_aty, 1e-4 * std::abs(ax_y)) << GetParam().name;
}

// H = diag(A^T W A) at random voxels, against A^T W A e (spec §8.1: rtol 1e-5).
TEST_P(GeometryProjector, HessianIsDiagonalOfWeightedNormalOperator)
{
  const Projector          projector(GetParam().geometry, makeCpuBackend());
  const ReconShape &       shape = projector.reconShape();
  const std::vector<float> weights = test::uniformRandom(projector.sinogramShape().size(), 3, 0.2f, 2.0f);
  const std::vector<float> hessian = projector.hessianDiagonal(weights.data());
  std::mt19937             engine(4);
  int                      nonZero = 0;
  for (int probe = 0; probe < 12; ++probe)
  {
    const int          pixel = std::uniform_int_distribution<int>(0, static_cast<int>(shape.numPixels()) - 1)(engine);
    const int          slice = std::uniform_int_distribution<int>(0, shape.slices - 1)(engine);
    std::vector<float> unit(shape.slices, 0.0f);
    unit[slice] = 0.01f;
    std::vector<float> projected = projector.sparseForwardProject(unit.data(), { pixel });
    for (std::size_t i = 0; i < projected.size(); ++i)
    {
      projected[i] *= weights[i];
    }
    const float expected = projector.sparseBackProject(projected.data(), { pixel })[slice] / 0.01f;
    const float actual = hessian[static_cast<std::size_t>(pixel) * shape.slices + slice];
    EXPECT_NEAR(actual, expected, 1e-5f * std::abs(expected) + 1e-8f) << "pixel " << pixel << " slice " << slice;
    nonZero += expected > 0.0f ? 1 : 0;
  }
  EXPECT_GT(nonZero, 0);
}

INSTANTIATE_TEST_SUITE_P(Geometries, GeometryProjector, ::testing::ValuesIn(adjointCases()), test::testName);

namespace {

// Where the README's conventions put the centre of voxel (i, j, k) on the detector in one view, as
// fractional (channel, row) indices; written from the README, in double precision.
struct DetectorPoint
{
  double channel, row;
};

struct ObjectPoint
{
  double x, y, z; // along columns, rows and slices, from the grid centre (z includes the slice offset)
};

ObjectPoint
objectPoint(const DetectorAndGrid & g, int i, int j, int k, double sliceOffset)
{
  const ReconShape & r = g.reconShape;
  return { g.deltaVoxel * (j - 0.5 * (r.cols - 1)),
           double(g.deltaY()) * (i - 0.5 * (r.rows - 1)),
           double(g.deltaZ()) * (k - 0.5 * (r.slices - 1)) + sliceOffset };
}

DetectorPoint
detectorIndex(const DetectorAndGrid & g, double u, double w)
{
  const SinogramShape & s = g.sinogramShape;
  return { (u + g.detChannelOffset) / g.deltaDetChannel + 0.5 * (s.channels - 1),
           (w + g.detRowOffset) / g.deltaDetRow + 0.5 * (s.rows - 1) };
}

// Scanner frame of a rotating geometry: x along the channels, y toward the source.
void
rotate(const ObjectPoint & p, double angle, double & x, double & y)
{
  x = p.x * std::cos(angle) - p.y * std::sin(angle);
  y = p.x * std::sin(angle) + p.y * std::cos(angle);
}

DetectorPoint
expectedPoint(const ParallelBeamGeometry & g, int v, int i, int j, int k)
{
  double x, y;
  rotate(objectPoint(g, i, j, k, 0.0), g.angles[v], x, y);
  return { detectorIndex(g, x, 0.0).channel, double(k) };
}

DetectorPoint
expectedPoint(const ConeBeamGeometry & g, int v, int i, int j, int k)
{
  const ObjectPoint p = objectPoint(g, i, j, k, g.reconSliceOffset);
  double            x, y;
  rotate(p, g.angles[v], x, y);
  const double D = g.sourceDetectorDist, S = g.sourceIsoDist;
  const double z = p.z - (g.helicalZShifts.empty() ? 0.0 : g.helicalZShifts[v]);
  if (g.curvedDetector)
  {
    return detectorIndex(g, D * std::atan2(x, S - y), D * z / std::hypot(S - y, x));
  }
  return detectorIndex(g, D * x / (S - y), D * z / (S - y));
}

DetectorPoint
expectedPoint(const TranslationGeometry & g, int v, int i, int j, int k)
{
  const ObjectPoint            p = objectPoint(g, i, j, k, 0.0);
  const std::array<float, 3> & t = g.translations[v];
  const double                 x = p.x - t[0], y = p.y - t[1], z = p.z - t[2];
  const double                 D = g.sourceDetectorDist, S = g.sourceIsoDist;
  return detectorIndex(g, D * x / (S - y), D * z / (S - y));
}

DetectorPoint
expectedPoint(const MultiAxisParallelGeometry & g, int v, int i, int j, int k)
{
  const ObjectPoint p = objectPoint(g, i, j, k, g.reconSliceOffset);
  double            x, y;
  rotate(p, g.angles[v], x, y);
  return detectorIndex(g, x, p.z * std::cos(g.elevations[v]) + y * std::sin(g.elevations[v]));
}

// Centroid of the projection of one unit voxel in every view.
std::vector<DetectorPoint>
measuredPoints(const Projector & projector, int pixel, int slice)
{
  const SinogramShape & s = projector.sinogramShape();
  std::vector<float>    unit(projector.reconShape().slices, 0.0f);
  unit[slice] = 1.0f;
  const std::vector<float>   sino = projector.sparseForwardProject(unit.data(), { pixel });
  std::vector<DetectorPoint> points(s.views);
  for (int v = 0; v < s.views; ++v)
  {
    double sum = 0.0, channel = 0.0, row = 0.0;
    for (int m = 0; m < s.rows; ++m)
    {
      for (int n = 0; n < s.channels; ++n)
      {
        const double value = sino[(static_cast<std::size_t>(v) * s.rows + m) * s.channels + n];
        sum += value;
        channel += value * n;
        row += value * m;
      }
    }
    points[v] = { channel / sum, row / sum };
  }
  return points;
}

template<typename G>
void
expectConventions(const G & g, const std::vector<std::array<int, 3>> & voxels)
{
  const Projector projector(g, makeCpuBackend());
  for (const auto & [i, j, k] : voxels)
  {
    const std::vector<DetectorPoint> measured = measuredPoints(projector, i * g.reconShape.cols + j, k);
    for (int v = 0; v < g.sinogramShape.views; ++v)
    {
      const DetectorPoint expected = expectedPoint(g, v, i, j, k);
      EXPECT_NEAR(measured[v].channel, expected.channel, 0.05)
        << "voxel " << i << "," << j << "," << k << " view " << v;
      EXPECT_NEAR(measured[v].row, expected.row, 0.05) << "voxel " << i << "," << j << "," << k << " view " << v;
    }
  }
}

template<typename G>
void
coarsen(G & g, int factor)
{
  g.deltaVoxel *= factor;
  g.reconShape.rows = std::max(1, g.reconShape.rows / factor);
  g.reconShape.cols = std::max(1, g.reconShape.cols / factor);
  g.reconShape.slices = std::max(1, g.reconShape.slices / factor);
}

// Non-default pitches, offsets and aspects so that every term of the conventions is exercised, and
// voxels 4x coarser than the default so that each shadow spans several detector cells: the centroid of a
// box shadow sampled by cells is then within a few hundredths of a cell of the box centre.
template<typename G>
void
setDetectorAndVoxels(G & g)
{
  g.deltaDetChannel = 0.8f;
  g.deltaDetRow = 1.1f;
  g.detChannelOffset = 1.7f;
  g.detRowOffset = -2.3f;
  g.voxelRowAspect = 1.3f;
  g.voxelSliceAspect = 0.8f;
  g.autoSetReconGeometry();
  coarsen(g, 4);
}

const std::vector<float> kConventionAngles = { 0.0f, 0.4f, static_cast<float>(M_PI / 2), 2.0f, 3.5f, -1.1f };

} // namespace

TEST(GeometryConventions, ParallelBeam)
{
  ParallelBeamGeometry g({ 6, 12, 64 }, kConventionAngles);
  g.detChannelOffset = 1.7f;
  g.voxelRowAspect = 1.3f;
  g.autoSetReconGeometry();
  g.deltaVoxel *= 4; // coarser in x and y only: slice k stays detector row k
  g.reconShape.rows /= 4;
  g.reconShape.cols /= 4;
  expectConventions(g, { { 3, 10, 3 }, { 8, 4, 9 } });
}

TEST(GeometryConventions, FlatConeBeam)
{
  ConeBeamGeometry g({ 6, 40, 64 }, kConventionAngles, 300.0f, 120.0f);
  setDetectorAndVoxels(g);
  g.reconSliceOffset = 1.5f;
  expectConventions(g, { { 3, 10, 4 }, { 8, 4, 12 } });
}

TEST(GeometryConventions, CurvedHelicalConeBeam)
{
  ConeBeamGeometry g({ 6, 40, 64 }, kConventionAngles, 300.0f, 120.0f, { 0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f }, true);
  setDetectorAndVoxels(g);
  expectConventions(g, { { 3, 10, 8 }, { 8, 4, 14 } });
}

// The curved detector's arc length comes from kernels::arcTangent, a polynomial that vectorises: within 4 float ulps of
// atan2 around the whole circle, at radii from 1e-20 to 1e20, on the axes and the octants' edges; NaN for a NaN.
TEST(GeometryConventions, ArcTangentAgreesWithAtan2)
{
  auto expectNear = [](float y, float x) {
    const double exact = std::atan2(static_cast<double>(y), static_cast<double>(x));
    const float  magnitude = std::fabs(static_cast<float>(exact));
    const double ulp = std::nextafter(magnitude, std::numeric_limits<float>::infinity()) - magnitude;
    ASSERT_LE(std::fabs(kernels::arcTangent(y, x) - exact), 4.0 * ulp) << "atan2(" << y << ", " << x << ")";
  };
  constexpr int kAngles = 100003; // prime, so that no sample repeats an octant's position
  for (const float radius : { 1e-20f, 1e-3f, 1.0f, 777.0f, 1e20f })
  {
    for (int i = 0; i < kAngles; ++i)
    {
      const double angle = -M_PI + 2.0 * M_PI * (i + 0.5) / kAngles;
      expectNear(static_cast<float>(radius * std::sin(angle)), static_cast<float>(radius * std::cos(angle)));
    }
    for (const float y : { 0.0f, radius, -radius })
    {
      for (const float x : { 0.0f, radius, -radius })
      {
        expectNear(y, x);
      }
    }
  }
  EXPECT_EQ(kernels::arcTangent(0.0f, 1.0f), 0.0f);
  EXPECT_EQ(kernels::arcTangent(-0.0f, -1.0f), -kernels::arcTangent(0.0f, -1.0f)); // the sign of zero, as atan2's
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(kernels::arcTangent(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(kernels::arcTangent(1.0f, nan)));
  EXPECT_TRUE(std::isnan(kernels::arcTangent(nan, 0.0f)));
}

TEST(GeometryConventions, Translation)
{
  TranslationGeometry g({ 5, 80, 160 },
                        { { { 0.0f, 0.0f, 0.0f } },
                          { { 6.0f, 0.0f, -3.0f } },
                          { { -5.0f, 10.0f, 4.0f } },
                          { { 3.0f, -8.0f, 7.0f } },
                          { { -9.0f, 4.0f, -6.0f } } },
                        300.0f,
                        120.0f);
  setDetectorAndVoxels(g);
  g.reconShape.rows = 3;
  expectConventions(g, { { 0, 2, 3 }, { 2, 6, 6 } });
}

TEST(GeometryConventions, MultiAxisParallel)
{
  MultiAxisParallelGeometry g({ 6, 80, 64 }, kConventionAngles, { 0.0f, 0.3f, -0.5f, 0.7f, 0.2f, -0.1f });
  setDetectorAndVoxels(g);
  g.reconSliceOffset = 1.5f;
  expectConventions(g, { { 3, 10, 18 }, { 8, 4, 26 } });
}

TEST(GeometryEquivalence, MultiAxisAtZeroElevationIsParallelBeam)
{
  for (const bool unitPitch : { true, false })
  {
    SCOPED_TRACE(unitPitch ? "unit pitch" : "pitch 0.7, offset, row aspect");
    const std::vector<float>  angles = test::linspace(0.0, M_PI, 13, 0.03);
    ParallelBeamGeometry      parallel({ 13, 5, 30 }, angles);
    MultiAxisParallelGeometry multiAxis({ 13, 5, 30 }, angles, std::vector<float>(13, 0.0f));
    for (DetectorAndGrid * g :
         { static_cast<DetectorAndGrid *>(&parallel), static_cast<DetectorAndGrid *>(&multiAxis) })
    {
      if (!unitPitch)
      {
        g->deltaDetChannel = g->deltaDetRow = 0.7f;
        g->detChannelOffset = -1.4f;
        g->voxelRowAspect = 1.6f;
      }
    }
    parallel.autoSetReconGeometry();
    multiAxis.autoSetReconGeometry();
    ASSERT_EQ(parallel.reconShape, multiAxis.reconShape);
    const Projector          a(parallel, makeCpuBackend()), b(multiAxis, makeCpuBackend());
    const std::vector<float> x = test::uniformRandom(parallel.reconShape.size(), 5);
    const std::vector<float> y = test::uniformRandom(parallel.sinogramShape.size(), 6);
    // Equal up to float summation order.
    EXPECT_LT(test::relativeError(b.forwardProject(x.data()), a.forwardProject(x.data())), 1e-6);
    EXPECT_LT(test::relativeError(b.backProject(y.data()), a.backProject(y.data())), 1e-6);
  }
}

TEST(GeometryEquivalence, HelixWithoutPitchIsCircularScan)
{
  const std::vector<float> angles = test::linspace(-M_PI, M_PI, 10);
  const ConeBeamGeometry   circular({ 10, 8, 24 }, angles, 100.0f, 50.0f);
  const Projector          reference(circular, makeCpuBackend());
  const std::vector<float> x = test::uniformRandom(circular.reconShape.size(), 7);
  const std::vector<float> y = test::uniformRandom(circular.sinogramShape.size(), 8);
  // The scanner at height 2.5 in every view sees the grid centred at 2.5 as the circle sees its own.
  for (const float height : { 0.0f, 2.5f })
  {
    ConeBeamGeometry helix({ 10, 8, 24 }, angles, 100.0f, 50.0f, std::vector<float>(10, height));
    EXPECT_FALSE(helix.isHelical());
    EXPECT_EQ(helix.reconShape, circular.reconShape);
    EXPECT_FLOAT_EQ(helix.reconSliceOffset, height);
    const Projector projector(helix, makeCpuBackend());
    EXPECT_LT(test::relativeError(projector.forwardProject(x.data()), reference.forwardProject(x.data())), 1e-6);
    EXPECT_LT(test::relativeError(projector.backProject(y.data()), reference.backProject(y.data())), 1e-6);
  }
}

TEST(GeometryMass, TiltedMultiAxisVoxelKeepsItsMass)
{
  // MBIRJAX loses cos(elevation) of every voxel's mass (spec §9.3); here the projection of a voxel
  // carries dx dy dz at every elevation.
  for (const float degrees : { 0.0f, 25.0f, 50.0f })
  {
    MultiAxisParallelGeometry g(
      { 5, 30, 40 }, test::linspace(0, M_PI, 5, 0.2), std::vector<float>(5, degrees * M_PI / 180));
    g.voxelRowAspect = 1.3f;
    g.voxelSliceAspect = 0.9f;
    g.autoSetReconGeometry();
    const Projector    projector(g, makeCpuBackend());
    const ReconShape & r = g.reconShape;
    std::vector<float> unit(r.slices, 0.0f);
    unit[r.slices / 2] = 1.0f;
    const std::vector<float> sino = projector.sparseForwardProject(unit.data(), { (r.rows / 2) * r.cols + r.cols / 2 });
    for (int v = 0; v < 5; ++v)
    {
      const double sum = std::accumulate(sino.begin() + v * 30 * 40, sino.begin() + (v + 1) * 30 * 40, 0.0) *
                         g.deltaDetChannel * g.deltaDetRow;
      EXPECT_NEAR(sum, double(g.deltaVoxel) * g.deltaY() * g.deltaZ(), 1e-4) << degrees << " degrees, view " << v;
    }
  }
}

// 17 views make one group of views for the back projection's view-by-view path, 70 views two: on one thread both
// go view by view, on two the 70 do, on five both go cylinder by cylinder.
class GeometryBatching : public ::testing::TestWithParam<int>
{};
INSTANTIATE_TEST_SUITE_P(Views, GeometryBatching, ::testing::Values(17, 70));

TEST_P(GeometryBatching, ConeResultDoesNotDependOnBatchingOrThreads)
{
  const int              numViews = GetParam();
  const ConeBeamGeometry g({ numViews, 9, 26 }, test::linspace(-M_PI, M_PI, numViews, 0.01), 120.0f, 60.0f);
  const Projector        one(g, makeCpuBackend(1)), two(g, makeCpuBackend(2)), many(g, makeCpuBackend(5));
  std::vector<int>       pixels = one.rorPixels();
  std::mt19937           engine(9);
  std::shuffle(pixels.begin(), pixels.end(), engine);
  const int                slices = g.reconShape.slices;
  const std::vector<float> values = test::uniformRandom(pixels.size() * slices, 10);
  const std::vector<float> reference = one.sparseForwardProject(values.data(), pixels);
  EXPECT_LT(test::relativeError(many.sparseForwardProject(values.data(), pixels), reference), 1e-6);
  const std::size_t        half = pixels.size() / 2;
  std::vector<float>       sum = one.sparseForwardProject(values.data(), { pixels.begin(), pixels.begin() + half });
  const std::vector<float> rest =
    one.sparseForwardProject(values.data() + half * slices, { pixels.begin() + half, pixels.end() });
  for (std::size_t i = 0; i < sum.size(); ++i)
  {
    sum[i] += rest[i];
  }
  EXPECT_LT(test::relativeError(sum, reference), 1e-6);
  const std::vector<float> y = test::uniformRandom(g.sinogramShape.size(), 11);
  const std::vector<float> back = one.sparseBackProject(y.data(), pixels);
  EXPECT_LT(test::relativeError(two.sparseBackProject(y.data(), pixels), back), 1e-6);
  EXPECT_LT(test::relativeError(many.sparseBackProject(y.data(), pixels), back), 1e-6);
  for (const int threads : { 1, 2, 5 })
  {
    expectBackProjectionAfterUpdate(g, threads);
  }
}

// The row-map projectors take a batch that fills half the image a block of tiles at a time: the forward always, the
// back where it goes view by view (one thread, or two with 70 views). A whole image of two blocks, shuffled, against
// the same cylinders in three parts that each fill less than half the image (one block each) for the forward, and
// against cylinder by cylinder (five threads) for the back, weighted and not, power 1 and 2; the first block takes a
// pending update. Positive data: the paths add the views in another order, and with signed data the sums' cancellation
// made that rounding 3e-6 (multi-axis); a cylinder's sums mapped to another lost 45 %.
TEST(GeometryBlocks, RowMapWholeImageByBlocksAgreesWithOneBlock)
{
  ConeBeamGeometry          cone({ 70, 40, 90 }, test::linspace(-M_PI, M_PI, 70, 0.01), 120.0f, 60.0f);
  MultiAxisParallelGeometry tilted({ 70, 40, 90 }, test::linspace(0, 2 * M_PI, 70, 0.05), std::vector<float>(70, 0.3f));
  // The box resampling (cone; translation takes the same path) and the slice-by-slice vertical stage.
  for (NamedGeometry named : std::vector<NamedGeometry>{ { "cone", cone }, { "multi_axis", tilted } })
  {
    SCOPED_TRACE(named.name);
    std::visit(
      [](auto & g) {
        g.autoSetReconGeometry();
        g.reconShape.rows = g.reconShape.cols = 96;
        g.reconShape.slices = 40;
      },
      named.geometry);
    const Projector  one(named.geometry, makeCpuBackend(1)), two(named.geometry, makeCpuBackend(2));
    const Projector  five(named.geometry, makeCpuBackend(5));
    const int        slices = one.reconShape().slices;
    std::vector<int> pixels = allPixels(one.reconShape());
    std::mt19937     engine(30);
    std::shuffle(pixels.begin(), pixels.end(), engine);
    ASSERT_GT(pixels.size() * slices, 1u << 18); // two blocks of tiles
    const std::vector<float> x = test::uniformRandom(pixels.size() * slices, 31, -1.0f, 1.0f);

    const std::vector<float> whole = two.sparseForwardProject(x.data(), pixels);
    std::vector<float>       parts(whole.size(), 0.0f);
    for (int part = 0; part < 3; ++part)
    {
      const std::size_t        begin = pixels.size() * part / 3, end = pixels.size() * (part + 1) / 3;
      const std::vector<float> projection =
        one.sparseForwardProject(x.data() + begin * slices, { pixels.begin() + begin, pixels.begin() + end });
      std::transform(parts.begin(), parts.end(), projection.begin(), parts.begin(), std::plus<float>());
    }
    EXPECT_LT(test::relativeError(whole, parts), 1e-6);

    const std::vector<float> y = test::uniformRandom(whole.size(), 32, 0.0f, 2.0f);
    const std::vector<float> w = test::uniformRandom(whole.size(), 33, 0.0f, 2.0f);
    const CylinderBatch      batch{ pixels.data(), static_cast<int>(pixels.size()), slices, 0 };
    for (const int power : { 1, 2 })
    {
      for (const bool weighted : { false, true })
      {
        SCOPED_TRACE("power " + std::to_string(power) + (weighted ? ", weighted" : ""));
        const std::vector<const float *> weights =
          weighted ? std::vector<const float *>{ w.data() } : std::vector<const float *>{};
        std::vector<float> expected(x.size()), byViews(x.size(), 5.0f), byTwo(x.size(), 5.0f);
        five.back(SinogramSplit::ByView, { y.data() }, weights, power, { batch }, { expected.data() });
        one.back(SinogramSplit::ByView, { y.data() }, weights, power, { batch }, { byViews.data() });
        two.back(SinogramSplit::ByView, { y.data() }, weights, power, { batch }, { byTwo.data() });
        EXPECT_LT(test::relativeError(byViews, expected), 1e-6);
        EXPECT_LT(test::relativeError(byTwo, expected), 1e-6);
      }
    }
    for (const int threads : { 1, 2 })
    {
      expectBackProjectionAfterUpdate(named.geometry, threads, true);
    }
  }
}

// The trapezoid overlap of kernels::trapezoid, in double.
double
exactTrapezoid(double distance, double width)
{
  return std::clamp(0.5 * (width + 1.0) - std::abs(distance), 0.0, std::min(width, 1.0));
}

// A x and A^T y written out coefficient by coefficient, in double from the kernels' per-(view, pixel) parameters:
// a(n) b(m, k) = channel weight times RowMap::slice's, with every row and channel the shadows reach. The CPU
// backend's box resampling by prefix sums must equal it to float rounding.
template<typename G>
std::vector<double>
separableMatrixProduct(const G & g, const std::vector<int> & pixels, const std::vector<float> & in, bool forward)
{
  const auto          params = g.kernelParams();
  const auto          views = g.viewTable();
  const int           rows = params.numDetRows, channels = params.numDetChannels;
  const int           slices = params.reconSlices;
  std::vector<double> out(forward ? views.size() * rows * channels : pixels.size() * slices, 0.0);
  for (std::size_t v = 0; v < views.size(); ++v)
  {
    for (std::size_t b = 0; b < pixels.size(); ++b)
    {
      const kernels::PixelProjection p = kernels::pixelProjection(params, views[v], pixels[b]);
      const kernels::RowMap &        map = p.rows;
      for (int k = 0; k < slices; ++k)
      {
        const double centre = double(map.first) + double(map.step) * k;
        const double t = double(map.obliquity) * (centre - map.axisRow);
        const double scale = double(map.scale) * std::sqrt(1.0 + t * t);
        for (int m = std::max(0, int(centre - map.width) - 2); m <= std::min(rows - 1, int(centre + map.width) + 2);
             ++m)
        {
          for (int n = 0; n < channels; ++n)
          {
            const double a = p.channels.scale * exactTrapezoid(double(p.channels.center) - n, p.channels.width) *
                             scale * exactTrapezoid(centre - m, map.width);
            const std::size_t cell = (v * rows + m) * channels + n, voxel = b * slices + k;
            if (forward)
            {
              out[cell] += a * in[voxel];
            }
            else
            {
              out[voxel] += a * in[cell];
            }
          }
        }
      }
    }
  }
  return out;
}

// Random cylinders of g's projections against the matrix, for data with a large constant part (the prefix sums'
// worst case) and without. Edges at float coordinates up to 300 cells carry 300 eps of rounding, which bounds
// both the sums here and the candidate-by-candidate overlaps they replaced (measured up to 2.6e-5 and 2.4e-5); a
// wrong overlap errs by a percent or more.
template<typename G>
void
expectSeparableMatrix(const G & g, double tolerance = 5e-5)
{
  const Projector    projector(g, makeCpuBackend());
  const ReconShape & shape = projector.reconShape();
  std::vector<int>   pixels = allPixels(shape);
  std::mt19937       engine(5);
  std::shuffle(pixels.begin(), pixels.end(), engine);
  pixels.resize(std::min<std::size_t>(pixels.size(), 12));
  for (const float offset : { 0.0f, 100.0f })
  {
    std::vector<float> x = test::uniformRandom(pixels.size() * shape.slices, 6, offset - 1.0f, offset + 1.0f);
    std::vector<float> y = test::uniformRandom(projector.sinogramShape().size(), 7, offset - 1.0f, offset + 1.0f);
    EXPECT_LT(
      test::relativeError(projector.sparseForwardProject(x.data(), pixels), separableMatrixProduct(g, pixels, x, true)),
      tolerance)
      << "offset " << offset;
    EXPECT_LT(
      test::relativeError(projector.sparseBackProject(y.data(), pixels), separableMatrixProduct(g, pixels, y, false)),
      tolerance)
      << "offset " << offset;
  }
}

// Columns of 300 slices: shadows about a row high, thinner (up to three slices a row) and thicker (several rows a
// slice, past the SIMD tables), on flat and curved detectors; a multi-axis column of 8200 rows; a translation scan.
TEST(GeometryMatrix, RowMapProjectionsEqualTheSeparableMatrix)
{
  const ConeBeamGeometry cone({ 5, 300, 20 }, test::linspace(0, 2 * M_PI, 5, 0.3), 60.0f, 40.0f);
  for (const float pitch : { 1.0f, 0.6f, 2.5f })
  {
    SCOPED_TRACE("voxel pitch x " + std::to_string(pitch));
    ConeBeamGeometry scaled = cone;
    scaled.deltaVoxel *= pitch;
    expectSeparableMatrix(scaled);
  }
  SCOPED_TRACE("curved, helical");
  expectSeparableMatrix(ConeBeamGeometry(
    { 5, 300, 20 }, test::linspace(0, 2 * M_PI, 5, 0.3), 60.0f, 40.0f, { -4.0f, -2.0f, 0.0f, 2.0f, 4.0f }, true));
  SCOPED_TRACE("multi-axis, 8200 rows"); // 8200 eps: both forms measured up to 5.2e-4 off
  expectSeparableMatrix(MultiAxisParallelGeometry({ 3, 8200, 4 }, { 0.0f, 1.0f, 2.0f }, { 0.1f, -0.2f, 0.3f }), 1e-3);
  SCOPED_TRACE("translation");
  expectSeparableMatrix(TranslationGeometry(
    { 4, 300, 20 },
    { { { -3.0f, 0.0f, 1.0f }, { 0.0f, 0.0f, 0.0f }, { 2.0f, 0.0f, -2.0f }, { 4.0f, 0.0f, 3.0f } } },
    80.0f,
    40.0f));
}

TEST(GeometryDefaults, GridsMatchSpec)
{
  using namespace mbir::test;
  // spec §8 table
  const ConeBeamGeometry cone = specCone(SpecAngles::Projector);
  EXPECT_EQ(cone.reconShape, (ReconShape{ 128, 128, 40 }));
  EXPECT_FLOAT_EQ(cone.deltaVoxel, 0.5f);
  EXPECT_FLOAT_EQ(cone.magnification(), 2.0f);
  EXPECT_EQ(specCone(SpecAngles::Projector, 1.9f, 2.9f).reconShape, (ReconShape{ 67, 128, 14 }));
  const ConeBeamGeometry helix = specCone(SpecAngles::Projector, 1.0f, 1.0f, true);
  EXPECT_EQ(helix.reconShape, (ReconShape{ 128, 128, 60 }));
  EXPECT_NEAR(helix.reconSliceOffset, 40.0f, 1e-4f);
  const TranslationGeometry translation = specTranslation();
  EXPECT_EQ(translation.reconShape.rows, 2);
  EXPECT_FLOAT_EQ(translation.deltaVoxel, 0.5f);
  EXPECT_NEAR(translation.deltaY(), 102.4f, 1e-3f);
  EXPECT_NEAR(translation.reconShape.cols, 40, 2);
  EXPECT_NEAR(translation.reconShape.slices, 40, 2);
  EXPECT_EQ(translation.rorMask.kind(), RorMask::Kind::None);
  // Multi-axis: slices cover the detector height over cos(elevation); the voxel aspects are honoured.
  MultiAxisParallelGeometry multiAxis = specMultiAxis(SpecAngles::Projector, 60.0f);
  EXPECT_EQ(multiAxis.reconShape, (ReconShape{ 128, 128, 80 }));
  multiAxis.voxelRowAspect = 2.0f;
  multiAxis.voxelSliceAspect = 0.5f;
  multiAxis.autoSetReconGeometry();
  EXPECT_EQ(multiAxis.reconShape, (ReconShape{ 64, 128, 160 }));
  // A cropped centre recon keeps the pitch and the centre.
  ConeBeamGeometry cropped = cone;
  cropped.scaleReconShape(0.5f, 0.5f);
  EXPECT_EQ(cropped.reconShape, (ReconShape{ 64, 64, 40 }));
  EXPECT_NO_THROW(Projector(cropped, makeCpuBackend()));
}

TEST(GeometryValidation, RejectsSizesPastThirtyTwoBitIndices)
{
  ParallelBeamGeometry wide({ 4, 8, 64 }, test::linspace(0, M_PI, 4));
  wide.reconShape = ReconShape{ 50000, 50000, 8 }; // 2.5e9 pixels per slice
  expectInvalid([&] { wide.validate(); }, "2500000000 pixels per slice, more than the 2^31 - 1");
  const ParallelBeamGeometry detector({ 4, 50000, 50000 }, test::linspace(0, M_PI, 4));
  expectInvalid([&] { detector.validate(); }, "2500000000 detector cells per view");
}

// Found by fuzzing a DXchange file: a NaN pitch reached the automatic grid, whose int cast was undefined.
TEST(GeometryValidation, AutomaticGridRefusesNanOrZeroPitches)
{
  const std::vector<float> angles = test::linspace(0, M_PI, 4);
  ParallelBeamGeometry     parallel({ 4, 8, 16 }, angles);
  parallel.deltaDetChannel = std::nanf("");
  expectInvalid([&] { parallel.autoSetReconGeometry(); }, "parallel-beam geometry: the automatic recon grid would have");
  MultiAxisParallelGeometry multiAxis({ 4, 8, 16 }, angles, std::vector<float>(4, 0.0f));
  multiAxis.deltaDetChannel = 0.0f;
  expectInvalid([&] { multiAxis.autoSetReconGeometry(); }, "pitches and distances must be finite and > 0");
  ConeBeamGeometry cone({ 4, 8, 16 }, angles, 80.0f, 40.0f);
  cone.deltaDetRow = std::numeric_limits<float>::infinity();
  expectInvalid([&] { cone.autoSetReconGeometry(); }, "cone-beam geometry: the automatic recon grid");
}

TEST(GeometryValidation, RejectsImpossibleGeometries)
{
  const std::vector<float> angles = test::linspace(0, M_PI, 8);
  auto                     check = [](auto g, const std::string & needle) {
    expectInvalid([&] { g.validate(); }, needle);
    expectInvalid([&] { Projector(g, makeCpuBackend()); }, needle);
  };
  ConeBeamGeometry cone({ 8, 6, 20 }, angles, 80.0f, 40.0f);
  check(
    [&] {
      auto g = cone;
      g.sourceIsoDist = -1.0f;
      return g;
    }(),
    "source_iso_dist");
  check(
    [&] {
      auto g = cone;
      g.sourceDetectorDist = 0.0f;
      return g;
    }(),
    "source_detector_dist");
  check(
    [&] {
      auto g = cone;
      g.sourceIsoDist = 5.0f;
      return g;
    }(),
    "source lies inside the recon grid");
  check(
    [&] {
      auto g = cone;
      g.angles.pop_back();
      return g;
    }(),
    "angles has 7 entries for 8 views");
  check(
    [&] {
      auto g = cone;
      g.helicalZShifts = { 1.0f, 2.0f };
      return g;
    }(),
    "helical_z_shifts has 2 entries");
  check(
    [&] {
      auto g = cone;
      g.angles[3] = NAN;
      return g;
    }(),
    "angles entry 3 is not finite");
  check(
    [&] {
      auto g = cone;
      g.curvedDetector = true;
      g.sourceDetectorDist = INFINITY;
      return g;
    }(),
    "curved detector");
  check(
    [&] {
      auto g = cone;
      g.voxelSliceAspect = 0.0f;
      return g;
    }(),
    "voxel_slice_aspect");
  check(
    [&] {
      auto g = cone;
      g.reconShape.slices = 0;
      return g;
    }(),
    "recon_shape");
  TranslationGeometry translation({ 3, 6, 20 }, { { { 0, 0, 0 } }, { { 1, 0, 1 } }, { { 2, 0, 2 } } }, 80.0f, 40.0f);
  check(
    [&] {
      auto g = translation;
      g.translations.pop_back();
      return g;
    }(),
    "translation_vectors has 2 entries");
  check(
    [&] {
      auto g = translation;
      g.translations[1][1] = 60.0f;
      return g;
    }(),
    "reaches the source");
  check(
    [&] {
      auto g = translation;
      g.translations[0][2] = INFINITY;
      return g;
    }(),
    "translation_vectors entry 0");
  MultiAxisParallelGeometry multiAxis({ 8, 6, 20 }, angles, std::vector<float>(8, 0.2f));
  check(
    [&] {
      auto g = multiAxis;
      g.elevations[2] = static_cast<float>(M_PI / 2);
      return g;
    }(),
    "elevations entry 2");
  check(
    [&] {
      auto g = multiAxis;
      g.elevations.resize(3);
      return g;
    }(),
    "elevations has 3 entries");
  ParallelBeamGeometry parallel({ 8, 6, 20 }, angles);
  check(
    [&] {
      auto g = parallel;
      g.detRowOffset = 1.0f;
      return g;
    }(),
    "det_row_offset");
}
