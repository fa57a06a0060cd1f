#include "mbir/Communicator.h"

#include "mbir/Backend.h"
#include "mbir/Config.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <stdexcept>
#include <vector>

namespace mbir {
namespace {

bool
hostAddressable(const Backend & device)
{
  return device.kind() == Backend::Kind::Cpu;
}

// The first device that is not a GPU, or nullptr; `gpus` collects the CUDA device indices of the others.
const Backend *
firstNonGpu(const std::vector<Backend *> & devices, std::set<int> & gpus)
{
  for (const Backend * device : devices)
  {
    if (device->kind() != Backend::Kind::Gpu)
    {
      return device;
    }
    gpus.insert(device->memoryPool());
  }
  return nullptr;
}

} // namespace

#if MBIR_USE_CUDA
namespace detail {
// src/cuda/GpuCommunicators.cu: Peer and (with NCCL) Nccl for GPU devices, checked by the caller.
std::unique_ptr<Communicator>
makeGpuCommunicator(std::vector<Backend *> devices, CommunicatorKind kind);
} // namespace detail
#endif
namespace detail {
// src/core/ProcessGroup.cpp: MPI, one device per process.
std::unique_ptr<Communicator>
makeMpiCommunicator(std::vector<Backend *> devices);
} // namespace detail

const char *
communicatorName(CommunicatorKind kind)
{
  switch (kind)
  {
    case CommunicatorKind::Host:
      return "host";
    case CommunicatorKind::Peer:
      return "peer";
    case CommunicatorKind::Nccl:
      return "nccl";
    case CommunicatorKind::Mpi:
      return "mpi";
  }
  return "?";
}

std::unique_ptr<Communicator>
makeCommunicator(std::vector<Backend *> devices)
{
  if (std::any_of(devices.begin(), devices.end(), [](const Backend * d) { return d->remote(); }))
  {
    return detail::makeMpiCommunicator(std::move(devices));
  }
  std::set<int> gpus;
  if (firstNonGpu(devices, gpus))
  {
    return std::make_unique<HostCommunicator>(std::move(devices));
  }
  const bool distinct = gpus.size() == devices.size();
  return makeCommunicator(std::move(devices),
                          MBIR_USE_NCCL && distinct && devices.size() > 1 ? CommunicatorKind::Nccl
                                                                          : CommunicatorKind::Peer);
}

std::unique_ptr<Communicator>
makeCommunicator(std::vector<Backend *> devices, CommunicatorKind kind)
{
  if (kind == CommunicatorKind::Host)
  {
    return std::make_unique<HostCommunicator>(std::move(devices));
  }
  if (kind == CommunicatorKind::Mpi)
  {
    return detail::makeMpiCommunicator(std::move(devices));
  }
  std::set<int> gpus;
  if (const Backend * other = firstNonGpu(devices, gpus))
  {
    throw std::invalid_argument(std::string("the ") + communicatorName(kind) + " communicator joins GPUs only, not " +
                                other->description());
  }
  if (kind == CommunicatorKind::Nccl && gpus.size() != devices.size())
  {
    throw std::invalid_argument("NCCL takes one rank per GPU; for several shards of one GPU use the peer communicator");
  }
#if MBIR_USE_CUDA
  if (kind == CommunicatorKind::Nccl && !MBIR_USE_NCCL)
  {
    throw std::runtime_error("this build of the engine has no NCCL; rebuild with NCCL found (MBIR_USE_NCCL=ON)");
  }
  return detail::makeGpuCommunicator(std::move(devices), kind);
#else
  throw std::runtime_error("this build of the engine has no CUDA support");
#endif
}

// CPU devices share the host's memory: a copy is a memcpy. Other devices go through a host buffer.
void
HostCommunicator::copy(int from, const float * src, int to, float * dst, std::size_t count)
{
  if (count == 0 || src == dst)
  {
    return;
  }
  if (hostAddressable(*m_Devices[from]) && hostAddressable(*m_Devices[to]))
  {
    std::memcpy(dst, src, count * sizeof(float));
    return;
  }
  std::vector<float> staging(count);
  m_Devices[from]->copyToHost(src, staging.data(), count * sizeof(float));
  m_Devices[to]->copyToDevice(staging.data(), dst, count * sizeof(float));
}

bool
HostCommunicator::allOnHost() const
{
  for (const Backend * device : m_Devices)
  {
    if (!hostAddressable(*device))
    {
      return false;
    }
  }
  return true;
}

// One loop over every owner's block: the CPU devices share the cores, so all of them work at once.
void
HostCommunicator::reduceScatter(const std::vector<const float *> & send,
                                const std::vector<float *> &       receive,
                                std::size_t                        count)
{
  const int         n = static_cast<int>(m_Devices.size());
  const std::size_t total = count * n;
  if (allOnHost())
  {
    [[maybe_unused]] const int threads = m_Devices[0]->threadCount();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(total); ++i)
    {
      const std::size_t owner = i / count, offset = i - owner * count;
      float             sum = 0.0f;
      for (int d = 0; d < n; ++d)
      {
        sum += send[d][i];
      }
      receive[owner][offset] = sum;
    }
    return;
  }
  // Through the host: every buffer read, the sums written to their owners.
  std::vector<float> all(total), sums(total, 0.0f);
  for (int d = 0; d < n; ++d)
  {
    m_Devices[d]->copyToHost(send[d], all.data(), total * sizeof(float));
    for (std::size_t i = 0; i < total; ++i)
    {
      sums[i] += all[i];
    }
  }
  for (int owner = 0; owner < n; ++owner)
  {
    m_Devices[owner]->copyToDevice(sums.data() + owner * count, receive[owner], count * sizeof(float));
  }
}

void
HostCommunicator::allGather(const std::vector<const float *> & send,
                            const std::vector<float *> &       receive,
                            std::size_t                        count)
{
  const int n = static_cast<int>(m_Devices.size());
  if (allOnHost())
  {
    [[maybe_unused]] const int threads = m_Devices[0]->threadCount();
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads)
    for (int d = 0; d < n; ++d)
    {
      for (int owner = 0; owner < n; ++owner)
      {
        std::memcpy(receive[d] + owner * count, send[owner], count * sizeof(float));
      }
    }
    return;
  }
  std::vector<float> all(count * n);
  for (int owner = 0; owner < n; ++owner)
  {
    m_Devices[owner]->copyToHost(send[owner], all.data() + owner * count, count * sizeof(float));
  }
  for (int d = 0; d < n; ++d)
  {
    m_Devices[d]->copyToDevice(all.data(), receive[d], all.size() * sizeof(float));
  }
}

void
HostCommunicator::broadcast(int root, const std::vector<float *> & buffers, std::size_t count)
{
  for (int d = 0; d < static_cast<int>(buffers.size()); ++d)
  {
    if (d != root)
    {
      copy(root, buffers[root], d, buffers[d], count);
    }
  }
}

double
HostCommunicator::allReduceSum(const std::vector<double> & values)
{
  return std::accumulate(values.begin(), values.end(), 0.0);
}

} // namespace mbir
