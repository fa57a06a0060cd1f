// The CPU backend's instruction-set paths (baseline x86-64, AVX2 + FMA, AVX-512; cpu/CpuDispatch.cpp):
// every path this build has and this CPU runs gives the baseline path's results to float rounding, for
// every geometry and operation; MBIR_CPU_DISPATCH chooses the path and names the ones it refuses. Also the CPU
// backend's threads and the host memory of its arrays.

#include "MBIRTestSupport.h"
#include "SpecGeometries.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

using namespace mbir;
using test::ScopedEnvironment;

namespace {

// MBIR_CPU_DISPATCH for the scope.
class ScopedDispatch : public test::ScopedEnvironment
{
public:
  explicit ScopedDispatch(const std::optional<std::string> & path)
    : ScopedEnvironment("MBIR_CPU_DISPATCH", path)
  {}
};

// What one path computes: projections both ways, the direct recon, three VCD iterations, three denoising
// iterations (the qGGMRF prior and the noise statistic).
struct Results
{
  std::vector<float> forward, back, direct, recon, denoised;
};

Results
compute(const Geometry & geometry)
{
  const Projector          projector(geometry, makeCpuBackend());
  const ReconShape &       r = projector.reconShape();
  const std::vector<float> x = sheppLoganLowDynamicRange(r);
  Results                  results;
  results.forward = projector.forwardProject(x.data());
  results.back = projector.backProject(results.forward.data());
  results.direct = directRecon(projector, results.forward);
  const Reconstructor reconstructor(geometry, makeCpuBackend(), test::threeIterationParams(geometry));
  results.recon = reconstructor.recon(results.forward).recon;
  DenoiseParams denoise;
  denoise.verbose = 0;
  denoise.maxIterations = 3;
  results.denoised = qggmrfDenoise(ArrayView3(x, r), denoise, makeCpuBackend()).image;
  return results;
}

// The multi-device tests' small scans (prime sizes: loops of every length leave remainders) and two with
// enough slices (40) for whole AVX-512 vectors.
std::vector<test::NamedGeometry>
pathCases()
{
  std::vector<test::NamedGeometry> cases = test::primeShardCases();
  cases.push_back({ "parallel_40_slices", ParallelBeamGeometry({ 29, 40, 48 }, test::evenAngles(29, M_PI, 0.1)) });
  cases.push_back(
    { "cone_40_slices", ConeBeamGeometry({ 29, 40, 48 }, test::evenAngles(29, 2 * M_PI), 192.0f, 96.0f) });
  return cases;
}

class CpuPaths : public ::testing::TestWithParam<test::NamedGeometry>
{};

} // namespace

TEST_P(CpuPaths, EveryPathGivesTheBaselineResults)
{
  const std::vector<std::string> paths = cpuKernelPaths();
  if (paths.size() < 2)
  {
    GTEST_SKIP() << "one CPU path in this build on this CPU: " << paths.front();
  }
  const Geometry & geometry = GetParam().geometry;
  const Results    baseline = [&] {
    const ScopedDispatch dispatch(paths.front());
    return compute(geometry);
  }();
  for (std::size_t p = 1; p < paths.size(); ++p)
  {
    SCOPED_TRACE("path " + paths[p]);
    const ScopedDispatch dispatch(paths[p]);
    ASSERT_EQ(cpuKernelPath(), paths[p]);
    const Results results = compute(geometry);
    EXPECT_LT(test::relativeError(results.forward, baseline.forward), 1e-5);
    EXPECT_LT(test::relativeError(results.back, baseline.back), 1e-5);
    EXPECT_LT(test::relativeError(results.direct, baseline.direct), 1e-5);
    EXPECT_LT(nrmse(results.recon, baseline.recon), 1e-4);
    EXPECT_LT(nrmse(results.denoised, baseline.denoised), 1e-4);
  }
}

INSTANTIATE_TEST_SUITE_P(Geometries, CpuPaths, ::testing::ValuesIn(pathCases()), test::testName);

TEST(CpuDispatch, TakesTheBestPathUnlessOneIsNamed)
{
  const std::vector<std::string> paths = cpuKernelPaths();
  ASSERT_FALSE(paths.empty());
  EXPECT_TRUE(paths.front() == "baseline" || (paths.front() == "native" && paths.size() == 1)) << paths.front();
  {
    const ScopedDispatch dispatch(std::nullopt);
    EXPECT_EQ(cpuKernelPath(), paths.back());
  }
  {
    const ScopedDispatch dispatch(std::string("auto"));
    EXPECT_EQ(cpuKernelPath(), paths.back());
  }
  for (const std::string & path : paths)
  {
    const ScopedDispatch dispatch(path);
    EXPECT_EQ(cpuKernelPath(), path);
    EXPECT_NE(makeCpuBackend(1), nullptr);
  }
}

TEST(CpuDispatch, RefusesAPathItLacksByName)
{
  const std::vector<std::string> paths = cpuKernelPaths();
  std::string                    available;
  for (const std::string & path : paths)
  {
    available += (available.empty() ? "" : ", ") + path;
  }
  auto expectRefused = [&](const std::string & path, const std::string & why) {
    const ScopedDispatch dispatch(path);
    try
    {
      makeCpuBackend();
      ADD_FAILURE() << "MBIR_CPU_DISPATCH=" << path << " was accepted";
    }
    catch (const std::runtime_error & e)
    {
      const std::string message = e.what();
      EXPECT_NE(message.find("MBIR_CPU_DISPATCH=" + path), std::string::npos) << message;
      EXPECT_NE(message.find(why), std::string::npos) << message;
      EXPECT_NE(message.find("available here: " + available), std::string::npos) << message;
    }
  };
  expectRefused("sse9", "unknown");
  for (const std::string path : { "baseline", "avx2", "avx512", "native" })
  {
    if (std::find(paths.begin(), paths.end(), path) == paths.end())
    {
      expectRefused(path, "lacks");
    }
  }
}

// The default thread count: the CPUs this process may use (affinity, cgroup quota), less those busy elsewhere.
TEST(CpuThreads, BudgetTakesTheUsableCpusLessTheBusyOnes)
{
  EXPECT_EQ(cpuThreadBudget(8, 0.0, 8, 0), 8);
  EXPECT_EQ(cpuThreadBudget(8, 2.5, 8, 0), 3);   // a container's quota of 2.5 CPUs
  EXPECT_EQ(cpuThreadBudget(8, 0.25, 8, 0), 1);  // a quota under one CPU still gets a thread
  EXPECT_EQ(cpuThreadBudget(2, 0.0, 2, 1), 1);   // one of two cores taken by another process
  EXPECT_EQ(cpuThreadBudget(2, 0.0, 2, 7), 1);   // never fewer than one
  EXPECT_EQ(cpuThreadBudget(4, 0.0, 64, 10), 4); // busy CPUs elsewhere on a big node leave ours alone
  EXPECT_EQ(cpuThreadBudget(16, 0.0, 16, 4), 12);
}

TEST(CpuThreads, MbirNumThreadsSetsTheCountAndRefusesNonsense)
{
  {
    const ScopedEnvironment threads("MBIR_NUM_THREADS", std::string("3"));
    EXPECT_EQ(defaultCpuThreads(), 3);
    EXPECT_EQ(makeCpuBackend()->threadCount(), 3);
    EXPECT_EQ(makeCpuBackend(2)->threadCount(), 2); // an explicit count wins
  }
  for (const char * bad : { "0", "-2", "four", "3x" })
  {
    const ScopedEnvironment threads("MBIR_NUM_THREADS", std::string(bad));
    try
    {
      makeCpuBackend();
      ADD_FAILURE() << "MBIR_NUM_THREADS=" << bad << " was accepted";
    }
    catch (const std::runtime_error & e)
    {
      EXPECT_NE(std::string(e.what()).find("MBIR_NUM_THREADS=" + std::string(bad)), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("positive integer"), std::string::npos) << e.what();
    }
  }
}

TEST(CpuThreads, DefaultIsWithinTheCpusThisProcessMayUse)
{
  const ScopedEnvironment mbir("MBIR_NUM_THREADS", std::nullopt);
  const ScopedEnvironment omp("OMP_NUM_THREADS", std::nullopt);
  const int               threads = defaultCpuThreads();
  EXPECT_GE(threads, 1);
  EXPECT_LE(threads, static_cast<int>(std::thread::hardware_concurrency()));
}

// The sinogram-wide sums and the error update of VCD on every path, against sums in long double: the float partial
// sums (cpu/CpuBackend.cpp weightedProducts) stay within 1e-6 of the sum of the terms' magnitudes, where one float
// sum per lane over a million terms drifts further. Sizes with and without a remainder of a block; the same array
// twice (the norms), whose ab is its bb.
TEST(CpuVectorOperations, SumsAndErrorUpdateOnEveryPath)
{
  for (const std::string & path : cpuKernelPaths())
  {
    SCOPED_TRACE("path " + path);
    const ScopedDispatch           dispatch(path);
    const std::shared_ptr<Backend> backend = makeCpuBackend(2);
    for (const std::size_t n : { std::size_t(1), std::size_t(17), std::size_t(256), std::size_t(1000003) })
    {
      SCOPED_TRACE("n = " + std::to_string(n));
      const std::vector<float> a = test::uniformRandom(n, 1, -1.0f, 1.0f);
      const std::vector<float> b = test::uniformRandom(n, 2, -1.0f, 1.0f);
      const std::vector<float> w = test::uniformRandom(n, 3, 0.0f, 2.0f);
      auto                     expectSums = [&](const float * x, const float * y, const float * weights) {
        long double ab = 0, bb = 0, magnitude = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
          const long double weight = weights ? weights[i] : 1.0L;
          ab += weight * x[i] * y[i];
          bb += weight * y[i] * y[i];
          magnitude += std::fabs(weight * x[i] * y[i]);
        }
        const Backend::WeightedProducts sums = backend->weightedProducts(x, y, weights, n);
        EXPECT_NEAR(sums.ab, static_cast<double>(ab), 1e-6 * static_cast<double>(magnitude));
        EXPECT_NEAR(sums.bb, static_cast<double>(bb), 1e-6 * static_cast<double>(bb));
      };
      expectSums(a.data(), b.data(), w.data());
      expectSums(a.data(), b.data(), nullptr);
      expectSums(b.data(), b.data(), w.data());
      expectSums(b.data(), b.data(), nullptr);

      std::vector<float> x = a, y = b;
      backend->addScaledAndClear(-0.7f, x.data(), y.data(), n);
      EXPECT_EQ(x, std::vector<float>(n, 0.0f));
      for (std::size_t i = 0; i < n; ++i)
      {
        ASSERT_NEAR(y[i], b[i] - 0.7f * a[i], 1e-6f) << "entry " << i;
      }
    }
  }
}

// The VmFlags of the mapping that holds `address` in /proc/self/smaps; empty where none holds it.
static std::string
vmFlagsOf(const void * address)
{
  std::ifstream smaps("/proc/self/smaps");
  std::string   line;
  bool          inside = false;
  const auto    at = reinterpret_cast<std::uintptr_t>(address);
  while (std::getline(smaps, line))
  {
    unsigned long      low = 0, high = 0;
    char               dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> low >> dash >> high && dash == '-')
    {
      inside = at >= low && at < high;
    }
    else if (inside && line.rfind("VmFlags:", 0) == 0)
    {
      return line;
    }
  }
  return "";
}

// Arrays of 2 MiB and more (the sinograms, the volume, the error and the change of a VCD) are advised to the
// kernel's transparent huge pages, each from its own offset within a huge page so that equal entries of two arrays
// do not share a cache set; they are zeroed, whole, and returned to the system when freed.
TEST(CpuBackendMemory, LargeArraysAreAdvisedToHugePagesZeroedAndReturned)
{
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer the arrays come from malloc, for its redzones";
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
  GTEST_SKIP() << "under AddressSanitizer the arrays come from malloc, for its redzones";
#  endif
#endif
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
  {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  constexpr std::size_t kHuge = std::size_t(2) << 20;
  const auto            backend = makeCpuBackend(1);
  const void *          first = nullptr;
  {
    DeviceArray<float> a = backend->allocate<float>((5 << 20) / sizeof(float));
    DeviceArray<float> b = backend->allocate<float>(kHuge / sizeof(float) + 7);
    first = a.data();
    for (DeviceArray<float> * array : { &a, &b })
    {
      float * p = array->data();
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
      EXPECT_NE(vmFlagsOf(p).find(" hg"), std::string::npos) << vmFlagsOf(p);
      EXPECT_TRUE(std::all_of(p, p + array->size(), [](float v) { return v == 0.0f; }));
      std::fill(p, p + array->size(), 1.0f); // every page of it is there to write
    }
    EXPECT_NE(reinterpret_cast<std::uintptr_t>(a.data()) % kHuge, reinterpret_cast<std::uintptr_t>(b.data()) % kHuge);
    EXPECT_EQ(backend->bytesInUse(), (5u << 20) + kHuge + 7 * sizeof(float));
  }
  EXPECT_EQ(backend->bytesInUse(), 0u);
  EXPECT_EQ(vmFlagsOf(first), "");
}
