// Runtime choice of the CPU backend's instruction-set path: the kernels (CpuBackend.cpp, CpuPrior.cpp) are
// compiled once per path (baseline x86-64, AVX2 + FMA, AVX-512), and makeCpuBackend() takes the best one
// this CPU runs, so that one binary runs everywhere and still uses the wide vectors where they exist.

#include "mbir/Backend.h"

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

// Set by src/core/CMakeLists.txt for this file: MBIR_NATIVE_CPU (one path, compiled with -march=native)
// and MBIR_CPU_DISPATCH_PATHS (the AVX2 and AVX-512 copies are built).
#ifndef MBIR_NATIVE_CPU
#  define MBIR_NATIVE_CPU 0
#endif
#ifndef MBIR_CPU_DISPATCH_PATHS
#  define MBIR_CPU_DISPATCH_PATHS 0
#endif

namespace mbir {

namespace cpu {
using MakeBackend = std::shared_ptr<Backend> (*)(int);
namespace baseline {
std::shared_ptr<Backend>
makeBackend(int numThreads);
}
#if MBIR_CPU_DISPATCH_PATHS
namespace avx2 {
std::shared_ptr<Backend>
makeBackend(int numThreads);
}
namespace avx512 {
std::shared_ptr<Backend>
makeBackend(int numThreads);
}
#endif
} // namespace cpu

namespace {

struct KernelPath
{
  std::string      name;
  cpu::MakeBackend make;
};

// The paths this build has and this CPU runs, baseline first.
std::vector<KernelPath>
supportedPaths()
{
#if MBIR_NATIVE_CPU
  return { { "native", cpu::baseline::makeBackend } };
#else
  std::vector<KernelPath> paths{ { "baseline", cpu::baseline::makeBackend } };
#  if MBIR_CPU_DISPATCH_PATHS
  // libgcc's checks include the operating system's support of the wide registers (XGETBV).
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2)
  {
    paths.push_back({ "avx2", cpu::avx2::makeBackend });
  }
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
  {
    paths.push_back({ "avx512", cpu::avx512::makeBackend });
  }
#  endif
  return paths;
#endif
}

const std::vector<KernelPath> &
paths()
{
  static const std::vector<KernelPath> supported = supportedPaths();
  return supported;
}

// MBIR_CPU_DISPATCH's path, or the best when it is unset, empty or "auto".
const KernelPath &
chosenPath()
{
  const std::vector<KernelPath> & supported = paths();
  const char *                    forced = std::getenv("MBIR_CPU_DISPATCH");
  if (!forced || !*forced || std::string(forced) == "auto")
  {
    return supported.back();
  }
  std::string names;
  for (const KernelPath & path : supported)
  {
    if (path.name == forced)
    {
      return path;
    }
    names += (names.empty() ? "" : ", ") + path.name;
  }
  const std::string known = " baseline avx2 avx512 native auto ";
  throw std::runtime_error("MBIR_CPU_DISPATCH=" + std::string(forced) +
                           (known.find(" " + std::string(forced) + " ") == std::string::npos
                              ? ": unknown instruction-set path (baseline, avx2, avx512, native or auto)"
                              : ": this build or this CPU lacks that path") +
                           "; available here: " + names);
}

} // namespace

std::shared_ptr<Backend>
makeCpuBackend(int numThreads)
{
  return chosenPath().make(numThreads > 0 ? numThreads : defaultCpuThreads());
}

std::vector<std::string>
cpuKernelPaths()
{
  std::vector<std::string> names;
  for (const KernelPath & path : paths())
  {
    names.push_back(path.name);
  }
  return names;
}

std::string
cpuKernelPath()
{
  return chosenPath().name;
}

} // namespace mbir
