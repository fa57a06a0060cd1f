#pragma once
// Engine-internal: the host memory behind the CPU backend's device arrays, and what the host can still give.

#include <cstddef>

namespace mbir::cpu {

// What the host can still give: MemAvailable, or less where a cgroup (a container, a CI job) caps the process.
std::size_t
hostAvailableBytes();

// Arrays of at least this size are mapped on its boundaries and offered to transparent huge pages.
constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;

// Whether large arrays take huge pages in this build (not under AddressSanitizer, whose redzones need malloc).
bool
hostArraysTakeHugePages();

// `bytes` of zeroed memory; null when the host has none left. Free with freeHostArray(p, bytes).
void *
allocateHostArray(std::size_t bytes);

void
freeHostArray(void * p, std::size_t bytes);

} // namespace mbir::cpu
