#pragma once
// Engine-internal: the default thread count (Backend.h, defaultCpuThreads) for OpenMP loops outside a backend.

namespace mbir {

// For its lifetime, OpenMP regions of the calling thread without a num_threads clause take defaultCpuThreads()
// threads (MBIR_NUM_THREADS, the CPUs this process may use less the busy ones); the previous count comes back after.
class ScopedCpuThreads
{
public:
  ScopedCpuThreads();
  ~ScopedCpuThreads();
  ScopedCpuThreads(const ScopedCpuThreads &) = delete;
  ScopedCpuThreads &
  operator=(const ScopedCpuThreads &) = delete;

private:
  int m_Previous;
};

} // namespace mbir
