// One reconstruction across MPI processes (run by ctest under mpirun with 1 to 4 ranks): the communicator
// contract on the MPI device group, and every geometry's projections, direct recon, MBIR and denoiser across the
// ranks equal to what one device in one process computes (each rank computes that reference itself), with prime
// view and slice counts and padding; on GPUs where the machine has them. main() is test/support/MpiTestMain.cpp.

#include "CommunicatorContract.h"
#include "MBIRTestSupport.h"
#include "SpecGeometries.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/ProcessGroup.h"
#include "mbir/Reconstructor.h"
#include "mbir/Weights.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mbir;

namespace {

// The automatic choice: one device per rank under MPI (a GPU where the node has one: then the ranks' blocks go
// through host memory), one device otherwise.
std::shared_ptr<const DeviceGroup>
everyRank()
{
  return std::make_shared<const DeviceGroup>(availableDevices(UseGpu::Automatic));
}

class AcrossRanks : public ::testing::TestWithParam<test::NamedGeometry>
{};

} // namespace

TEST(MpiGroup, OneDevicePerRankJoinedByMpi)
{
  const auto           group = everyRank();
  const ProcessGroup & world = processGroup();
  ASSERT_EQ(group->size(), world.size);
  EXPECT_FALSE(group->device(world.rank).remote());
  for (int d = 0; d < group->size(); ++d)
  {
    EXPECT_EQ(group->device(d).remote(), d != world.rank) << "device " << d;
  }
  if (world.size > 1)
  {
    EXPECT_EQ(group->communicator().kind(), CommunicatorKind::Mpi);
    const std::string kind = group->device(world.rank).kind() == Backend::Kind::Gpu ? " x GPU" : " x CPU";
    EXPECT_EQ(group->summary(), std::to_string(world.size) + kind + " (MPI, " + std::to_string(world.size) + " ranks)");
  }
}

TEST(MpiGroup, CollectivesWork)
{
  test::expectCollectivesWork(*everyRank());
}

TEST(MpiGroup, OtherSelectionsThanEveryRankAreRefusedWithTheReason)
{
  if (processGroup().size == 1)
  {
    GTEST_SKIP() << "one process: every selection is allowed";
  }
  try
  {
    DeviceSelection::firstDevices(1).resolve(10, 10);
    ADD_FAILURE() << "a one-device selection under MPI was accepted";
  }
  catch (const std::invalid_argument & e)
  {
    EXPECT_NE(std::string(e.what()).find("under MPI"), std::string::npos) << e.what();
  }
}

TEST_P(AcrossRanks, EveryOperationEqualsOneDevice)
{
  const Geometry &         geometry = GetParam().geometry;
  const Projector          one(geometry, makeCpuBackend());
  const ReconShape &       r = one.reconShape();
  const std::vector<float> x = sheppLoganLowDynamicRange(r);
  const std::vector<float> y = one.forwardProject(x.data());
  const auto               ranks = everyRank();
  const Projector          sharded(geometry, ranks);
  EXPECT_LT(test::relativeError(sharded.forwardProject(x.data()), y), 1e-5);
  EXPECT_LT(test::relativeError(sharded.backProject(y.data()), one.backProject(y.data())), 1e-5);
  EXPECT_LT(test::relativeError(directRecon(sharded, y), directRecon(one, y)), 1e-5);

  const Reconstructor reference(geometry, makeCpuBackend(), test::threeIterationParams(geometry));
  const Reconstructor reconstructor(geometry, ranks, test::threeIterationParams(geometry));
  const ReconResult   result = reconstructor.recon(y);
  EXPECT_LT(nrmse(result.recon, reference.recon(y).recon), 1e-4);
  EXPECT_EQ(result.log.size(), 3u);

  DenoiseParams denoise;
  denoise.verbose = 0;
  denoise.maxIterations = 3;
  EXPECT_LT(nrmse(qggmrfDenoise(ArrayView3(x, r), denoise, ranks).image,
                  qggmrfDenoise(ArrayView3(x, r), denoise, makeCpuBackend()).image),
            1e-4);
}

// Each rank holds only its own views (what mbir-recon reads under MPI): the devices get the same sinogram, the back
// projection equals one device's, and weights made on each rank from its views equal the host's; a NaN is named by
// its view in the whole sinogram.
TEST_P(AcrossRanks, EachRankHoldsOnlyItsViews)
{
  const Geometry &         geometry = GetParam().geometry;
  const Projector          one(geometry, makeCpuBackend());
  const SinogramShape &    s = one.sinogramShape();
  const std::vector<float> y = one.forwardProject(sheppLoganLowDynamicRange(one.reconShape()).data());
  const auto               ranks = everyRank();
  const auto [first, count] = DeviceSinogram::localViews(*ranks, s.views);
  const ShardLayout layout(s.views, processGroup().size);
  EXPECT_EQ(first, std::min(layout.first(processGroup().rank), s.views));
  EXPECT_EQ(count, layout.valid(processGroup().rank));

  const std::size_t    viewSize = std::size_t(s.rows) * s.channels;
  std::vector<float>   part(y.begin() + first * viewSize, y.begin() + (first + count) * viewSize);
  const DeviceSinogram held =
    DeviceSinogram::uploadViews(ranks, ArrayView3(part.data(), { count, s.rows, s.channels }), first, s.views);
  EXPECT_EQ(held.download(), y);
  const Projector sharded(geometry, ranks);
  EXPECT_LT(test::relativeError(sharded.backProject(held).download(), one.backProject(y.data())), 1e-5);
  EXPECT_EQ(generateWeights(held, WeightType::Transmission).download(),
            generateWeights(y.data(), y.size(), WeightType::Transmission));

  if (count > 0)
  {
    part[viewSize * (count - 1) + 1] = NAN;
    try
    {
      DeviceSinogram::uploadViews(ranks, ArrayView3(part.data(), { count, s.rows, s.channels }), first, s.views);
      ADD_FAILURE() << "a NaN was accepted";
    }
    catch (const std::invalid_argument & e)
    {
      const std::string where = "NaN at (view " + std::to_string(first + count - 1) + ", row 0, channel 1)";
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  }
}

// A volume comes back whole once: each rank downloads only its slices, slice by slice (an itk::Image's memory order),
// and rank 0 gathers them into the whole volume; 11 slices over 1 to 4 ranks leave some with fewer or none.
TEST(MpiGroup, EachRankDownloadsItsSlicesAndRankZeroGathersTheWhole)
{
  const ReconShape         shape{ 5, 6, 11 };
  const std::vector<float> x = test::uniformRandom(shape.size(), 3); // (pixels, slices)
  std::vector<float>       bySlice(x.size());                        // (slices, pixels)
  for (std::size_t p = 0; p < shape.numPixels(); ++p)
    for (int k = 0; k < shape.slices; ++k)
      bySlice[k * shape.numPixels() + p] = x[p * shape.slices + k];
  const auto         ranks = everyRank();
  const DeviceVolume volume = DeviceVolume::upload(ranks, ArrayView3(x, shape));
  const auto [first, count] = DeviceVolume::localSlices(*ranks, shape.slices);
  const ShardLayout layout(shape.slices, processGroup().size);
  EXPECT_EQ(count, layout.valid(processGroup().rank));
  const std::vector<float> mine = volume.downloadLocalSlices();
  ASSERT_EQ(mine.size(), std::size_t(count) * shape.numPixels());
  EXPECT_TRUE(std::equal(mine.begin(), mine.end(), bySlice.begin() + std::size_t(first) * shape.numPixels()));
  std::vector<float> whole(x.size(), -1.0f);
  ranks->communicator().gatherOnHost(mine.data(), mine.size(), whole.data());
  EXPECT_EQ(whole, processGroup().rank == 0 ? bySlice : std::vector<float>(x.size(), -1.0f));
}

INSTANTIATE_TEST_SUITE_P(Geometries, AcrossRanks, ::testing::ValuesIn(test::primeShardCases()), test::testName);
