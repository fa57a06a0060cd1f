// Concurrency and lifetimes: calls made at once from several threads on the same devices give the results they
// give one after another (the backends keep no unguarded shared state), and device memory may outlive every other
// handle on its backend.

#include "MBIRTestSupport.h"
#include "mbir/Denoiser.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

#include <thread>

using namespace mbir;
using mbir::test::cpuDevices;

namespace {

ReconParams
threeIterations()
{
  ReconParams params;
  params.verbose = 0;
  params.maxIterations = 3;
  return params;
}

} // namespace

TEST(Concurrency, DeviceMemoryKeepsItsBackendAlive)
{
  std::shared_ptr<Backend>     backend = makeCpuBackend();
  const std::weak_ptr<Backend> watch = backend;
  DeviceArray<float>           array = backend->allocate<float>(1000);
  backend.reset(); // the last handle but the memory's
  ASSERT_FALSE(watch.expired());
  EXPECT_EQ(watch.lock()->bytesInUse(), 1000 * sizeof(float));
  array.data()[999] = 1.0f; // still the backend's (host) memory
  array = DeviceArray<float>();
  EXPECT_TRUE(watch.expired()); // released with its memory, after it
}

TEST(Concurrency, ReconsInTwoThreadsOnTheSameDevicesEqualSequentialOnes)
{
  for (const int n : { 1, 2 })
  {
    SCOPED_TRACE(std::to_string(n) + " devices");
    const auto                 devices = cpuDevices(n);
    const ParallelBeamGeometry parallel({ 16, 6, 32 }, test::evenAngles(16, M_PI));
    const ConeBeamGeometry     cone({ 16, 6, 32 }, test::evenAngles(16, 2 * M_PI), 80.0f, 40.0f);
    const Reconstructor        first(parallel, devices, threeIterations());
    const Reconstructor        second(cone, devices, threeIterations());
    const std::vector<float>   y1 = first.forwardProject(sheppLoganLowDynamicRange(first.projector().reconShape()));
    const std::vector<float>   y2 = second.forwardProject(sheppLoganLowDynamicRange(second.projector().reconShape()));
    const std::vector<float>   alone1 = first.recon(y1).recon, alone2 = second.recon(y2).recon;
    const std::vector<float>   direct = first.directRecon(y1);
    DenoiseParams              denoise;
    denoise.verbose = 0;
    denoise.maxIterations = 2;
    const ReconShape         shape = first.projector().reconShape();
    const std::vector<float> denoised = qggmrfDenoise(ArrayView3(direct, shape), denoise, devices).image;

    std::vector<float> together1, together2, directTogether, denoisedTogether;
    std::thread        a([&] { together1 = first.recon(y1).recon; });
    std::thread        b([&] { together2 = second.recon(y2).recon; });
    std::thread        c([&] { directTogether = first.directRecon(y1); });
    std::thread        d([&] { denoisedTogether = qggmrfDenoise(ArrayView3(direct, shape), denoise, devices).image; });
    a.join();
    b.join();
    c.join();
    d.join();
    EXPECT_LT(nrmse(together1, alone1), 1e-6);
    EXPECT_LT(nrmse(together2, alone2), 1e-6);
    EXPECT_LT(nrmse(directTogether, direct), 1e-6);
    EXPECT_LT(nrmse(denoisedTogether, denoised), 1e-6);
  }
}
