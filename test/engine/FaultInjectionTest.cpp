// Fault injection: in a small MBIR, direct recon, projection and denoising on one and two CPU devices, the k-th
// allocation, transfer, kernel or collective fails, for every k the clean run makes. Each call must end with that
// exception (nothing swallowed, no crash, no hang), free every byte it allocated, and leave its input unchanged;
// the devices then work again.

#include "FaultInjection.h"
#include "MBIRTestSupport.h"
#include "mbir/Denoiser.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

#include <functional>

using namespace mbir;

namespace {

ParallelBeamGeometry
tinyParallel()
{
  return ParallelBeamGeometry(SinogramShape{ 12, 4, 24 }, test::evenAngles(12, M_PI));
}

ConeBeamGeometry
tinyCone()
{
  return ConeBeamGeometry(SinogramShape{ 12, 6, 24 }, test::evenAngles(12, 2 * M_PI), 80.0f, 40.0f);
}

ReconParams
twoIterations()
{
  ReconParams params;
  params.verbose = 0;
  params.maxIterations = 2;
  params.positivity = true; // its clipping path too
  return params;
}

// One engine call on a device group, reading `input` (never to be modified).
struct Case
{
  const char *                                                                                name;
  std::vector<float>                                                                          input;
  std::function<void(const std::shared_ptr<const DeviceGroup> &, const std::vector<float> &)> run;
};

std::vector<Case>
cases()
{
  const Reconstructor      parallel(tinyParallel(), makeCpuBackend(), twoIterations());
  const Reconstructor      cone(tinyCone(), makeCpuBackend(), twoIterations());
  const std::vector<float> phantom = sheppLoganLowDynamicRange(parallel.projector().reconShape());
  const std::vector<float> parallelSinogram = parallel.forwardProject(phantom);
  const std::vector<float> coneSinogram = cone.forwardProject(sheppLoganLowDynamicRange(cone.projector().reconShape()));
  const ReconShape         shape = parallel.projector().reconShape();
  return {
    { "parallel MBIR",
      parallelSinogram,
      [](const auto & devices, const auto & y) { Reconstructor(tinyParallel(), devices, twoIterations()).recon(y); } },
    { "cone MBIR",
      coneSinogram,
      [](const auto & devices, const auto & y) { Reconstructor(tinyCone(), devices, twoIterations()).recon(y); } },
    { "FBP",
      parallelSinogram,
      [](const auto & devices, const auto & y) {
        Reconstructor(tinyParallel(), devices, twoIterations()).directRecon(y);
      } },
    { "FDK",
      coneSinogram,
      [](const auto & devices, const auto & y) {
        Reconstructor(tinyCone(), devices, twoIterations()).directRecon(y);
      } },
    { "forward projection",
      phantom,
      [](const auto & devices, const auto & x) {
        Reconstructor(tinyParallel(), devices, twoIterations()).forwardProject(x);
      } },
    { "qGGMRF denoising",
      phantom,
      [shape](const auto & devices, const auto & x) {
        DenoiseParams params;
        params.verbose = 0;
        params.maxIterations = 2;
        params.numSubsets = 4;
        qggmrfDenoise(ArrayView3(x, shape), params, devices);
      } },
  };
}

class FaultInjection : public ::testing::TestWithParam<int>
{};

} // namespace

TEST_P(FaultInjection, EveryFaultEndsTheCallCleanly)
{
  const int devices = GetParam();
  for (const Case & c : cases())
  {
    SCOPED_TRACE(c.name);
    const std::vector<float>              original = c.input;
    auto                                  plan = std::make_shared<test::FaultPlan>();
    std::vector<std::shared_ptr<Backend>> inner;
    // The clean run: how many calls there are to fail.
    c.run(test::faultyCpuDevices(devices, plan, inner), c.input);
    const long total = plan->calls.load();
    ASSERT_GT(total, 10);
    int outOfMemory = 0, failures = 0;
    for (long k = 1; k <= total; ++k)
    {
      plan->calls = 0;
      plan->failAt = k;
      try
      {
        c.run(test::faultyCpuDevices(devices, plan, inner), c.input);
        ADD_FAILURE() << "call " << k << " of " << total << " failed, and the run did not say so";
      }
      catch (const OutOfDeviceMemory & e)
      {
        ++outOfMemory;
        EXPECT_NE(std::string(e.what()).find("injected fault at call " + std::to_string(k)), std::string::npos)
          << e.what();
      }
      catch (const test::DeviceFailure & e)
      {
        ++failures;
        EXPECT_NE(std::string(e.what()).find("injected fault at call " + std::to_string(k)), std::string::npos)
          << e.what();
      }
      for (const auto & device : inner)
        ASSERT_EQ(device->bytesInUse(), 0u) << "leaked after the fault at call " << k << " of " << total;
      ASSERT_EQ(c.input, original) << "input modified by the run that failed at call " << k;
    }
    EXPECT_GT(outOfMemory, 0);
    EXPECT_GT(failures, 0);
    // Past the last call nothing fails, and the devices work again.
    plan->calls = 0;
    plan->failAt = total + 1;
    EXPECT_NO_THROW(c.run(test::faultyCpuDevices(devices, plan, inner), c.input));
    RecordProperty(std::string(c.name) + " faults (" + std::to_string(devices) + " devices)", std::to_string(total));
    std::cout << c.name << " on " << devices << " device(s): " << total << " faults injected (" << outOfMemory
              << " allocations, " << failures << " operations and collectives)\n";
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, FaultInjection, ::testing::Values(1, 2), [](const auto & info) {
  return std::to_string(info.param) + "_devices";
});
