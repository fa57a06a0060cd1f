// The CUDA backend against the CPU backend on the same batches: the kernels are the same shared math,
// so the results agree to float rounding.

#include "MBIRTestSupport.h"
#include "mbir/Projector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

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
