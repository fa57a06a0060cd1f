#pragma once
// The memory half of the Plan (ARCHITECTURE.md): what a call will hold on each device at its peak,
// worked out from the shapes before anything is allocated (Reconstructor::memoryNeed,
// denoiseMemoryNeed), and the check of it against what the devices have free. A problem that cannot
// fit fails at once, saying what it needs, what is free and what would help, rather than part-way
// through or by the kernel's out-of-memory killer.

#include "mbir/Devices.h"

#include <cstddef>
#include <functional>
#include <string>

namespace mbir {

struct MemoryNeed
{
  std::size_t perDevice = 0; // bytes each device allocates at the peak of the call
  std::size_t host = 0;      // bytes of host copies made on the way (results brought back, statistics)
};

// Throws OutOfDeviceMemory unless `need` fits on every device of the group: each device within its
// availableBytes(), and devices drawing on one memory (CPU devices and the host copies all on the host's)
// within it together. `needOn(n)`, the need on n devices, lets the message say what more devices would
// need. `task` begins the message, e.g. "MBIR of sinogram 1024x1024x1024".
void
requireMemory(const DeviceGroup &                    devices,
              const MemoryNeed &                     need,
              const std::string &                    task,
              const std::function<MemoryNeed(int)> & needOn);

} // namespace mbir
