#include "mbir/Backend.h"
#include "mbir/Config.h"

#include <stdexcept>

namespace mbir {

void
Backend::recordAllocation(std::size_t bytes)
{
  const std::size_t now = (m_BytesInUse += bytes);
  std::size_t       peak = m_PeakBytes.load();
  while (now > peak && !m_PeakBytes.compare_exchange_weak(peak, now))
  {}
}

#if !MBIR_USE_CUDA
int
cudaDeviceCount()
{
  return 0;
}

std::string
cudaUnavailableReason()
{
  return "this build of the engine has no CUDA support";
}

std::shared_ptr<Backend>
makeCudaBackend(int)
{
  throw std::runtime_error("this build of the MBIR engine has no CUDA support; rebuild with -DMBIR_USE_CUDA=ON "
                           "on a machine with the CUDA toolkit, or use the CPU backend");
}
#endif

} // namespace mbir
