#include "mbir/Backend.h"
#include "mbir/Config.h"

#include <algorithm>
#include <cstdio>
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

DeviceAllocation
Backend::allocateBytes(std::size_t bytes)
{
  if (m_MemoryLimit && bytes > 0 && bytesInUse() + bytes > m_MemoryLimit)
  {
    throw OutOfDeviceMemory(outOfMemoryMessage(bytes));
  }
  DeviceAllocation memory = allocateOnDevice(bytes);
  memory.keepAlive(weak_from_this().lock());
  return memory;
}

double
Backend::forwardProjectAndNorm(const DeviceModel &   model,
                               const CylinderBatch & cylinders,
                               const float *         values,
                               const ViewRange &     views,
                               const float *         weights,
                               std::size_t           entries,
                               float *               sinogram)
{
  forwardProject(model, cylinders, values, views, sinogram);
  return weightedProducts(sinogram, sinogram, weights, entries).bb;
}

void
Backend::backProjectUpdated(const PendingUpdate & update,
                            const DeviceModel &   model,
                            const CylinderBatch & cylinders,
                            const float *         weights,
                            const ViewRange &     views,
                            int                   power,
                            float *               values)
{
  addScaledAndClear(update.scale, update.change, update.sinogram, update.entries);
  backProject(model, cylinders, update.sinogram, weights, views, power, values);
}

std::size_t
Backend::availableBytes() const
{
  const std::size_t free = freeBytes();
  if (!m_MemoryLimit)
  {
    return free;
  }
  const std::size_t inUse = bytesInUse();
  return std::min(free, m_MemoryLimit > inUse ? m_MemoryLimit - inUse : 0);
}

std::string
Backend::outOfMemoryMessage(std::size_t bytes) const
{
  std::string message = "out of memory on " + description() + ": " + formatBytes(bytes) + " more asked for, " +
                        formatBytes(availableBytes()) + " available";
  if (m_MemoryLimit)
  {
    message += " (memory limit " + formatBytes(m_MemoryLimit) + ", " + formatBytes(bytesInUse()) + " in use)";
  }
  return message + "; use more devices, free memory held elsewhere, or reconstruct a smaller problem";
}

std::string
formatBytes(std::size_t bytes)
{
  char text[32];
  if (bytes < (std::size_t(1) << 10))
  {
    std::snprintf(text, sizeof text, "%zu B", bytes);
  }
  else if (bytes < (std::size_t(1) << 20))
  {
    std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / (1 << 10));
  }
  else if (bytes < (std::size_t(1) << 30))
  {
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1 << 20));
  }
  else
  {
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / (1 << 30));
  }
  return text;
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
