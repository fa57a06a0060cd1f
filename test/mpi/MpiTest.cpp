// One reconstruction across MPI processes (run by ctest under mpirun with 1 to 4 ranks): the communicator
// contract on the MPI device group, and every geometry's projections, direct recon, MBIR and denoiser across the
// ranks equal to what one device in one process computes (each rank computes that reference itself), with prime
// view and slice counts and padding; on GPUs where the machine has them. Only rank 0 prints the gtest report; any
// rank's failure fails the run.

#include "CommunicatorContract.h"
#include "MBIRTestSupport.h"
#include "SpecGeometries.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/ProcessGroup.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

#include <iostream>

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

INSTANTIATE_TEST_SUITE_P(Geometries, AcrossRanks, ::testing::ValuesIn(test::primeShardCases()), test::testName);

int
main(int argc, char ** argv)
{
  ::testing::InitGoogleTest(&argc, argv);
  const ProcessGroup & world = processGroup(); // starts MPI under a launcher
  if (world.rank != 0)
  {
    // The other ranks report only their failures, after rank 0's report.
    ::testing::TestEventListeners & listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int status = RUN_ALL_TESTS();
  if (status != 0 && world.rank != 0)
  {
    std::cerr << "rank " << world.rank << " of " << world.size << ": tests failed\n";
  }
  return status;
}
