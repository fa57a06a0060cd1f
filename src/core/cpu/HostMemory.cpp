// The CPU backend's arrays. VCD's subsets reach scattered cylinders and detector columns all over the volume and the
// sinograms; on 4 KiB pages most of those reaches also miss the TLB, so arrays of a huge page or more are mapped on
// huge-page boundaries and advised to the kernel's transparent huge pages (MADV_HUGEPAGE, which the kernel's "madvise"
// setting waits for). Where the kernel has none to give, 4 KiB pages serve as before.

#include "HostMemory.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#  define MBIR_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define MBIR_ADDRESS_SANITIZER 1
#  endif
#endif

namespace mbir::cpu {
namespace {

std::size_t
roundUp(std::size_t n, std::size_t step)
{
  return (n + step - 1) / step * step;
}

// From a huge-page boundary plus a colour, a few KiB that differ from one array to the next: huge pages are
// physically contiguous, so the same entry of two arrays would otherwise fall in the same cache set, and a pass over
// several arrays at once (the error update reads and writes two sinograms) would evict its own lines.
void *
mapHugePages(std::size_t bytes)
{
  static std::atomic<unsigned> arrays{ 0 };
  const std::size_t            colour = (arrays++ % 31) * (4096 + 64);
  const std::size_t            size = roundUp(colour + bytes, kHugePageBytes);
  void * mapped = mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
  {
    return nullptr;
  }
  // Keep the aligned block of the mapping: return what lies before its first boundary and after its end.
  char * const      start = static_cast<char *>(mapped);
  char * const      block = reinterpret_cast<char *>(roundUp(reinterpret_cast<std::uintptr_t>(start), kHugePageBytes));
  const std::size_t head = static_cast<std::size_t>(block - start);
  if (head)
  {
    munmap(start, head);
  }
  munmap(block + size, kHugePageBytes - head);
#ifdef MADV_HUGEPAGE
  madvise(block, size, MADV_HUGEPAGE); // advice: refused (a kernel without THP), it changes nothing
#endif
  return block + colour;
}

} // namespace

std::size_t
hostAvailableBytes()
{
  std::size_t available = 0;
  if (std::ifstream meminfo("/proc/meminfo"); meminfo)
  {
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
    {
      if (key == "MemAvailable:")
      {
        available = kib << 10;
        break;
      }
    }
  }
  if (!available)
  {
    available = static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  }
  std::ifstream max("/sys/fs/cgroup/memory.max"), current("/sys/fs/cgroup/memory.current");
  std::size_t   limit = 0, used = 0;
  if (max >> limit && current >> used) // "max" (no limit) fails the read
  {
    available = std::min(available, limit > used ? limit - used : 0);
  }
  return available;
}

bool
hostArraysTakeHugePages()
{
#ifdef MBIR_ADDRESS_SANITIZER
  return false;
#else
  return true;
#endif
}

// Whether an array of `bytes` is mapped on huge pages (allocateHostArray and freeHostArray must agree).
static bool
takesHugePages(std::size_t bytes)
{
  return bytes >= kHugePageBytes && hostArraysTakeHugePages();
}

void *
allocateHostArray(std::size_t bytes)
{
  if (takesHugePages(bytes))
  {
    return mapHugePages(bytes);
  }
  return bytes ? std::calloc(bytes, 1) : nullptr;
}

void
freeHostArray(void * p, std::size_t bytes)
{
  if (takesHugePages(bytes))
  {
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t block = address / kHugePageBytes * kHugePageBytes;
    munmap(reinterpret_cast<void *>(block), roundUp(address - block + bytes, kHugePageBytes));
    return;
  }
  std::free(p);
}

} // namespace mbir::cpu
