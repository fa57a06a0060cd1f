// The CUDA backend against the CPU backend on the same batches: the kernels are the same shared math,
// so the results agree to float rounding.

#include "MBIRTestSupport.h"
#include "mbir/DirectRecon.h"
#include "mbir/Projector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

using namespace mbir;

namespace {

class CudaBackendTest : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    if (cudaDeviceCount() == 0)
    {
      GTEST_SKIP() << "no CUDA device: this build has no CUDA support, or no GPU/driver is present";
    }
  }
};

std::vector<ParallelBeamGeometry>
geometries()
{
  std::vector<ParallelBeamGeometry> list;
  list.emplace_back(SinogramShape{ 45, 7, 33 }, test::evenAngles(45, M_PI, 0.01));
  ParallelBeamGeometry aniso(SinogramShape{ 30, 130, 40 }, test::evenAngles(30, 2 * M_PI));
  aniso.voxelRowAspect = 1.9f;
  aniso.detChannelOffset = 1.7f;
  aniso.autoSetReconGeometry();
  list.push_back(aniso);
  ParallelBeamGeometry wide(SinogramShape{ 3, 1, 25 }, { 0.0f, 0.7f, 2.0f });
  wide.deltaVoxel = 1.6f;
  wide.reconShape = ReconShape{ 14, 15, 1 };
  wide.rorMask = RorMask::none();
  list.push_back(wide);
  return list;
}

// A geometry and the relative error allowed between the CPU and GPU projections of it.
struct RowMapCase
{
  Geometry geometry;
  double   tolerance;
};

// One small case of each geometry with a row map, and a detector too tall for a shared-memory column.
std::vector<RowMapCase>
rowMapCases()
{
  std::vector<RowMapCase> list;
  list.push_back({ ConeBeamGeometry(SinogramShape{ 12, 6, 20 }, test::evenAngles(12, 2 * M_PI), 80.0f, 40.0f), 1e-5 });

  std::vector<float> zShifts(16);
  for (std::size_t v = 0; v < zShifts.size(); ++v)
  {
    zShifts[v] = -3.0f + 0.4f * static_cast<float>(v);
  }
  ConeBeamGeometry helical(SinogramShape{ 16, 8, 24 }, test::evenAngles(16, 4 * M_PI), 90.0f, 45.0f, zShifts, true);
  helical.detChannelOffset = 0.6f;
  helical.detRowOffset = -0.4f;
  list.push_back({ helical, 1e-5 });

  const std::vector<std::array<float, 3>> translations{ { -4.0f, 0.0f, -2.0f }, { -2.0f, 0.5f, 1.0f },
                                                        { 0.0f, -0.5f, 0.0f },  { 1.5f, 0.0f, 2.0f },
                                                        { 3.0f, 1.0f, -1.0f },  { 4.0f, 0.0f, 0.5f } };
  list.push_back({ TranslationGeometry(SinogramShape{ 6, 10, 18 }, translations, 60.0f, 30.0f), 1e-5 });

  std::vector<float> elevations(10);
  for (std::size_t v = 0; v < elevations.size(); ++v)
  {
    elevations[v] = 0.5f * std::sin(0.9f * static_cast<float>(v));
  }
  MultiAxisParallelGeometry multiAxis(SinogramShape{ 10, 12, 16 }, test::evenAngles(10, M_PI, 0.2), elevations);
  multiAxis.voxelRowAspect = 1.3f;
  multiAxis.detChannelOffset = -0.8f;
  multiAxis.autoSetReconGeometry();
  list.push_back({ multiAxis, 1e-5 });

  // Footprint centres near row 8000 are floats spaced 5e-4 rows apart, so where a compiler fuses
  // multiply-adds (FMA) differently the weights differ by about 1e-4 relative: a looser bound.
  list.push_back(
    { MultiAxisParallelGeometry(SinogramShape{ 3, 8200, 4 }, { 0.0f, 1.0f, 2.0f }, { 0.1f, -0.2f, 0.3f }), 1e-3 });
  return list;
}

std::string
describe(const Geometry & g)
{
  return std::string(geometryTypeName(g)) + " " + sinogramShapeOf(g).str() + " -> " + reconShapeOf(g).str();
}

// Views `views` of A x for the cylinders `values` at `pixels`, in the device layout.
std::vector<float>
forwardProjectViews(const Projector &          projector,
                    const std::vector<float> & values,
                    const std::vector<int> &   pixels,
                    const ViewRange &          views)
{
  Backend &                backend = projector.device(0);
  const SinogramShape &    shape = projector.sinogramShape();
  const std::size_t        size = static_cast<std::size_t>(views.count) * shape.rows * shape.channels;
  const DeviceArray<int>   devicePixels = backend.upload(pixels.data(), pixels.size());
  const DeviceArray<float> deviceValues = backend.upload(values.data(), values.size());
  DeviceArray<float>       sinogram = backend.allocate<float>(size);
  const CylinderBatch      batch{ devicePixels.data(), static_cast<int>(pixels.size()), projector.reconShape().slices };
  backend.forwardProject(projector.deviceModel(0), batch, deviceValues.data(), views, sinogram.data());
  std::vector<float> result(size);
  backend.copyToHost(sinogram.data(), result.data(), size * sizeof(float));
  return result;
}

// (A(views) .^ power)^T (w .* y) at `pixels`; y and w hold the views in the device layout, an empty w
// means no weights.
std::vector<float>
backProjectViews(const Projector &          projector,
                 const std::vector<float> & y,
                 const std::vector<float> & w,
                 const std::vector<int> &   pixels,
                 const ViewRange &          views,
                 int                        power)
{
  Backend &                backend = projector.device(0);
  const int                slices = projector.reconShape().slices;
  const DeviceArray<int>   devicePixels = backend.upload(pixels.data(), pixels.size());
  const DeviceArray<float> sinogram = backend.upload(y.data(), y.size());
  const DeviceArray<float> weights = w.empty() ? DeviceArray<float>() : backend.upload(w.data(), w.size());
  DeviceArray<float>       values = backend.allocate<float>(pixels.size() * slices);
  const CylinderBatch      batch{ devicePixels.data(), static_cast<int>(pixels.size()), slices };
  backend.backProject(
    projector.deviceModel(0), batch, sinogram.data(), w.empty() ? nullptr : weights.data(), views, power, values.data());
  std::vector<float> result(values.size());
  backend.copyToHost(values.data(), result.data(), result.size() * sizeof(float));
  return result;
}

// The ramp filter of `directions` applied to y (device layout), in place when asked.
std::vector<float>
rampFiltered(Backend &                          backend,
             const SinogramShape &              shape,
             const std::vector<float> &         y,
             const std::vector<RampDirection> & directions,
             bool                               inPlace)
{
  DeviceArray<float> in = backend.upload(y.data(), y.size());
  DeviceArray<float> out = inPlace ? DeviceArray<float>() : backend.allocate<float>(y.size());
  float *            target = inPlace ? in.data() : out.data();
  backend.rampFilter(in.data(), shape, directions, target);
  std::vector<float> result(y.size());
  backend.copyToHost(target, result.data(), result.size() * sizeof(float));
  return result;
}

} // namespace

TEST_F(CudaBackendTest, DescribesDevice)
{
  const auto gpu = makeCudaBackend(0);
  EXPECT_EQ(gpu->description().rfind("GPU 0 (", 0), 0u) << gpu->description();
  EXPECT_THROW(makeCudaBackend(cudaDeviceCount()), std::runtime_error);
}

TEST_F(CudaBackendTest, ProjectionsMatchCpu)
{
  for (const ParallelBeamGeometry & g : geometries())
  {
    const Projector    cpu(g, makeCpuBackend());
    const Projector    gpu(g, makeCudaBackend(0));
    const ReconShape & shape = cpu.reconShape();
    SCOPED_TRACE(shape.str());

    // Full ROR, a random subset with shuffled order, and a single cylinder.
    std::vector<std::vector<int>> batches{ cpu.rorPixels() };
    std::vector<int>              shuffled(shape.numPixels());
    std::iota(shuffled.begin(), shuffled.end(), 0);
    std::mt19937 engine(3);
    std::shuffle(shuffled.begin(), shuffled.end(), engine);
    batches.emplace_back(shuffled.begin(), shuffled.begin() + shuffled.size() / 3);
    batches.push_back({ static_cast<int>(shape.numPixels() / 2) });

    const std::vector<float> y = test::uniformRandom(cpu.sinogramShape().size(), 5);
    for (const std::vector<int> & pixels : batches)
    {
      const std::vector<float> values = test::uniformRandom(pixels.size() * shape.slices, 7);
      EXPECT_LT(test::relativeError(gpu.sparseForwardProject(values.data(), pixels),
                                    cpu.sparseForwardProject(values.data(), pixels)),
                1e-5);
      for (int power = 1; power <= 2; ++power)
      {
        EXPECT_LT(test::relativeError(gpu.sparseBackProject(y.data(), pixels, power),
                                      cpu.sparseBackProject(y.data(), pixels, power)),
                  1e-5);
      }
    }
    EXPECT_LT(test::relativeError(gpu.hessianDiagonal(y.data()), cpu.hessianDiagonal(y.data())), 1e-5);
  }
}

TEST_F(CudaBackendTest, SinogramLayoutRoundTrip)
{
  const auto               gpu = makeCudaBackend(0);
  const SinogramShape      shape{ 5, 37, 70 };
  const std::vector<float> host = test::uniformRandom(shape.size(), 8);
  DeviceArray<float>       device = gpu->allocate<float>(shape.size());
  gpu->uploadSinogram(host.data(), shape, device.data());
  std::vector<float> back(shape.size());
  gpu->downloadSinogram(device.data(), shape, back.data());
  EXPECT_EQ(back, host);
}

// A long helical scan has more views than a CUDA grid dimension holds (65,535): every view is projected
// and transposed, the last ones too.
TEST_F(CudaBackendTest, MoreViewsThanAGridDimensionHolds)
{
  const int          views = 70001;
  std::vector<float> zShifts(views);
  for (int v = 0; v < views; ++v)
  {
    zShifts[v] = -2.0f + 4.0f * static_cast<float>(v) / views;
  }
  ParallelBeamGeometry parallel(SinogramShape{ views, 3, 8 }, test::evenAngles(views, 200 * M_PI));
  ConeBeamGeometry     helical(
    SinogramShape{ views, 4, 8 }, test::evenAngles(views, 200 * M_PI), 60.0f, 30.0f, zShifts, true);
  for (const Geometry & g : { Geometry(parallel), Geometry(helical) })
  {
    SCOPED_TRACE(describe(g));
    const Projector          cpu(g, makeCpuBackend());
    const Projector          gpu(g, makeCudaBackend(0));
    const SinogramShape &    sino = cpu.sinogramShape();
    const std::vector<int>   pixels = cpu.rorPixels();
    const std::vector<float> values = test::uniformRandom(pixels.size() * cpu.reconShape().slices, 7);
    const ViewRange          all{ 0, sino.views };
    const std::vector<float> onGpu = forwardProjectViews(gpu, values, pixels, all);
    EXPECT_LT(test::relativeError(onGpu, forwardProjectViews(cpu, values, pixels, all)), 1e-5);
    const std::size_t lastView = std::size_t(sino.views - 1) * sino.rows * sino.channels;
    EXPECT_GT(std::accumulate(onGpu.begin() + lastView, onGpu.end(), 0.0), 0.0) << "the last view was projected";

    const std::vector<float> y = test::uniformRandom(sino.size(), 5);
    EXPECT_LT(
      test::relativeError(backProjectViews(gpu, y, {}, pixels, all, 1), backProjectViews(cpu, y, {}, pixels, all, 1)),
      1e-5);

    Backend &          backend = gpu.device(0);
    DeviceArray<float> device = backend.allocate<float>(sino.size());
    backend.uploadSinogram(y.data(), sino, device.data());
    std::vector<float> back(sino.size());
    backend.downloadSinogram(device.data(), sino, back.data());
    EXPECT_EQ(back, y);
  }
}

TEST_F(CudaBackendTest, MemoryIsReleased)
{
  const auto gpu = makeCudaBackend(0);
  {
    DeviceArray<float> a = gpu->allocate<float>(1 << 20);
    EXPECT_EQ(gpu->bytesInUse(), (1u << 20) * sizeof(float));
  }
  EXPECT_EQ(gpu->bytesInUse(), 0u);
  EXPECT_EQ(gpu->peakBytes(), (1u << 20) * sizeof(float));
}

TEST_F(CudaBackendTest, RowMapProjectionsMatchCpu)
{
  for (const RowMapCase & c : rowMapCases())
  {
    const Geometry & g = c.geometry;
    SCOPED_TRACE(describe(g));
    const Projector       cpu(g, makeCpuBackend());
    const Projector       gpu(g, makeCudaBackend(0));
    const ReconShape &    shape = cpu.reconShape();
    const SinogramShape & sino = cpu.sinogramShape();

    // Full ROR, a random subset with shuffled order, and a single cylinder.
    std::vector<std::vector<int>> batches{ cpu.rorPixels() };
    std::vector<int>              shuffled(shape.numPixels());
    std::iota(shuffled.begin(), shuffled.end(), 0);
    std::mt19937 engine(3);
    std::shuffle(shuffled.begin(), shuffled.end(), engine);
    batches.emplace_back(shuffled.begin(), shuffled.begin() + std::max<std::size_t>(1, shuffled.size() / 3));
    batches.push_back({ static_cast<int>(shape.numPixels() / 2) });

    const std::vector<float> y = test::uniformRandom(sino.size(), 5);
    const std::vector<float> w = test::uniformRandom(sino.size(), 6, 0.5f, 2.0f);
    // A range of views that starts after the first, so that view-table offsets count.
    const ViewRange          part{ sino.views / 3, sino.views - sino.views / 3 };
    const std::size_t        partSize = static_cast<std::size_t>(part.count) * sino.rows * sino.channels;
    const std::vector<float> yPart(y.begin(), y.begin() + partSize), wPart(w.begin(), w.begin() + partSize);
    for (const std::vector<int> & pixels : batches)
    {
      SCOPED_TRACE(std::to_string(pixels.size()) + " cylinders");
      const std::vector<float> values = test::uniformRandom(pixels.size() * shape.slices, 7);
      EXPECT_LT(test::relativeError(gpu.sparseForwardProject(values.data(), pixels),
                                    cpu.sparseForwardProject(values.data(), pixels)),
                c.tolerance);
      EXPECT_LT(test::relativeError(forwardProjectViews(gpu, values, pixels, part),
                                    forwardProjectViews(cpu, values, pixels, part)),
                c.tolerance);
      for (int power = 1; power <= 2; ++power)
      {
        SCOPED_TRACE("power " + std::to_string(power));
        EXPECT_LT(test::relativeError(gpu.sparseBackProject(y.data(), pixels, power),
                                      cpu.sparseBackProject(y.data(), pixels, power)),
                  c.tolerance);
        EXPECT_LT(test::relativeError(backProjectViews(gpu, yPart, wPart, pixels, part, power),
                                      backProjectViews(cpu, yPart, wPart, pixels, part, power)),
                  c.tolerance);
        EXPECT_LT(test::relativeError(backProjectViews(gpu, yPart, {}, pixels, part, power),
                                      backProjectViews(cpu, yPart, {}, pixels, part, power)),
                  c.tolerance);
      }
    }
    EXPECT_LT(test::relativeError(gpu.hessianDiagonal(w.data()), cpu.hessianDiagonal(w.data())), c.tolerance);
  }
}

TEST_F(CudaBackendTest, RampFilterMatchesCpu)
{
  const auto cpu = makeCpuBackend();
  const auto gpu = makeCudaBackend(0);
  for (const SinogramShape & shape :
       { SinogramShape{ 7, 9, 21 }, SinogramShape{ 3, 1, 64 }, SinogramShape{ 4, 33, 5 } })
  {
    SCOPED_TRACE(shape.str());
    const std::vector<float>   y = test::uniformRandom(shape.size(), 11, -1.0f, 1.0f);
    std::vector<RampDirection> alongChannels(shape.views), directional(shape.views);
    for (int v = 0; v < shape.views; ++v)
    {
      // Per-view scales of either sign, one of them 0; directions all round, two along the axes.
      alongChannels[v] = RampDirection{ (v % 2 ? -1.0f : 1.0f) * 0.4f * static_cast<float>(v), 0.0f };
      directional[v] =
        RampDirection{ std::cos(0.9f * static_cast<float>(v)), 1.3f * std::sin(0.9f * static_cast<float>(v)) };
    }
    directional[0] = RampDirection{ 0.0f, 0.7f };
    directional[shape.views - 1] = RampDirection{ -1.2f, 0.0f };
    for (const auto * directions : { &alongChannels, &directional })
    {
      SCOPED_TRACE(directions == &alongChannels ? "along channels" : "directional");
      const std::vector<float> expected = rampFiltered(*cpu, shape, y, *directions, false);
      EXPECT_LT(test::relativeError(rampFiltered(*gpu, shape, y, *directions, false), expected), 1e-5);
      EXPECT_LT(test::relativeError(rampFiltered(*gpu, shape, y, *directions, true), expected), 1e-5);
    }
  }
}

TEST_F(CudaBackendTest, ElementwiseOperationsMatchCpu)
{
  const auto               cpu = makeCpuBackend();
  const auto               gpu = makeCudaBackend(0);
  const std::size_t        n = 1000, period = 37; // the last period is cut short
  const std::vector<float> x = test::uniformRandom(n, 12, -2.0f, 2.0f);
  const std::vector<float> factors = test::uniformRandom(period, 13, -1.0f, 3.0f);
  std::vector<float>       denominator = test::uniformRandom(n, 14, -1.0f, 1.0f);
  for (std::size_t i = 0; i < n; i += 7)
  {
    denominator[i] = 0.0f;
  }

  auto multiplied = [&](Backend & backend) {
    DeviceArray<float>       values = backend.upload(x.data(), n);
    const DeviceArray<float> f = backend.upload(factors.data(), period);
    backend.multiplyPeriodic(f.data(), period, values.data(), n);
    std::vector<float> result(n);
    backend.copyToHost(values.data(), result.data(), n * sizeof(float));
    return result;
  };
  // Element-wise IEEE products and quotients: the results agree exactly.
  EXPECT_EQ(multiplied(*gpu), multiplied(*cpu));

  // out separate from the inputs, aliasing the numerator, aliasing the denominator.
  for (int alias = 0; alias < 3; ++alias)
  {
    SCOPED_TRACE("alias " + std::to_string(alias));
    auto divided = [&](Backend & backend) {
      DeviceArray<float> num = backend.upload(x.data(), n);
      DeviceArray<float> den = backend.upload(denominator.data(), n);
      DeviceArray<float> separate = backend.allocate<float>(n);
      float *            out = alias == 0 ? separate.data() : alias == 1 ? num.data() : den.data();
      backend.divideWherePositive(num.data(), den.data(), out, n);
      std::vector<float> result(n);
      backend.copyToHost(out, result.data(), n * sizeof(float));
      return result;
    };
    const std::vector<float> expected = divided(*cpu);
    EXPECT_EQ(divided(*gpu), expected);
    EXPECT_EQ(expected[0], 0.0f);
  }
}

TEST_F(CudaBackendTest, DirectReconMatchesCpu)
{
  std::vector<RowMapCase> list = rowMapCases();
  list.insert(list.begin(), RowMapCase{ geometries().front(), 1e-5 });
  for (const RowMapCase & c : list)
  {
    SCOPED_TRACE(describe(c.geometry));
    const Projector          cpu(c.geometry, makeCpuBackend());
    const Projector          gpu(c.geometry, makeCudaBackend(0));
    const std::vector<float> object = test::uniformRandom(cpu.reconShape().size(), 15, 0.0f, 1.0f);
    const std::vector<float> sinogram = cpu.forwardProject(object.data());
    EXPECT_LT(test::relativeError(directRecon(gpu, sinogram), directRecon(cpu, sinogram)), std::max(1e-4, c.tolerance));
  }
}
