#include "mbir/MemoryPlan.h"

#include <map>

namespace mbir {
namespace {

// The advice that ends the message: more devices where they would help (GPUs each bring their own
// memory; CPU devices share the host's), else a smaller problem.
std::string
advice(const DeviceGroup & devices, const std::function<MemoryNeed(int)> & needOn, std::size_t available)
{
  const int n = devices.size();
  if (devices.device(0).kind() == Backend::Kind::Gpu)
  {
    for (int more = 2 * n; more <= 64 * n; more *= 2)
    {
      const std::size_t each = needOn(more).perDevice;
      if (each <= available || more == 64 * n)
      {
        return "use more GPUs (on " + std::to_string(more) + " each needs about " + formatBytes(each) +
               "), free GPU memory held elsewhere, or reconstruct a smaller problem (fewer views, a smaller or "
               "cropped recon grid)";
      }
    }
  }
  std::string text = "free host memory, run on GPUs, or reconstruct a smaller problem (fewer views, a smaller or "
                     "cropped recon grid)";
  if (devices.device(0).memoryLimit())
  {
    text += ", or raise the devices' memory limit";
  }
  return text;
}

} // namespace

void
requireMemory(const DeviceGroup &                    devices,
              const MemoryNeed &                     need,
              const std::string &                    task,
              const std::function<MemoryNeed(int)> & needOn)
{
  const std::string head = task + " on " + devices.summary() + " needs " + formatBytes(need.perDevice) +
                           (devices.size() > 1 ? " on each device" : "");
  std::size_t smallest = static_cast<std::size_t>(-1);
  for (int d = 0; d < devices.size(); ++d)
  {
    smallest = std::min(smallest, devices.device(d).availableBytes());
  }
  for (int d = 0; d < devices.size(); ++d)
  {
    const Backend &   device = devices.device(d);
    const std::size_t available = device.availableBytes();
    if (need.perDevice > available)
    {
      throw OutOfDeviceMemory(head + ", but " + device.description() + " has " + formatBytes(available) +
                              (device.memoryLimit() ? " left within its memory limit" : " free") + "; " +
                              advice(devices, needOn, smallest));
    }
  }
  // Devices sharing one memory need it together; the host copies come out of the host's.
  std::map<int, std::size_t> pools;
  for (int d = 0; d < devices.size(); ++d)
  {
    pools[devices.device(d).memoryPool()] += need.perDevice;
  }
  if (pools.count(-1))
  {
    pools[-1] += need.host;
  }
  for (const auto & [pool, total] : pools)
  {
    int first = 0;
    while (devices.device(first).memoryPool() != pool)
      ++first;
    const std::size_t free = devices.device(first).freeBytes();
    if (total > free)
    {
      const std::string where = pool < 0 ? "the host" : devices.device(first).description();
      throw OutOfDeviceMemory(head + ", " + formatBytes(total) + " in all on " + where +
                              (need.host && pool < 0 ? " with the results brought back" : "") + ", but " + where +
                              " has " + formatBytes(free) + " free; " + advice(devices, needOn, smallest));
    }
  }
}

} // namespace mbir
