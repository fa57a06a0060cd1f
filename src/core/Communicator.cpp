#include "mbir/Communicator.h"

#include "mbir/Backend.h"
#include "mbir/Config.h"

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
  }
  return "?";
}

std::unique_ptr<Communicator>
makeCommunicator(std::vector<Backend *> devices)
{
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

void
HostCommunicator::copyRows(int           from,
                           const float * src,
                           std::size_t   srcPitch,
                           int           to,
                           float *       dst,
                           std::size_t   dstPitch,
                           std::size_t   width,
                           std::size_t   rows)
{
  if (hostAddressable(*m_Devices[from]) && hostAddressable(*m_Devices[to]))
  {
    for (std::size_t r = 0; r < rows; ++r)
    {
      std::memcpy(dst + r * dstPitch, src + r * srcPitch, width * sizeof(float));
    }
    return;
  }
  // Through the host: the rows read, placed among the destination's, written back (rows == 0: nothing).
  if (rows == 0 || width == 0)
  {
    return;
  }
  std::vector<float> all(srcPitch * rows), target(dstPitch * rows);
  m_Devices[from]->copyToHost(src, all.data(), (srcPitch * (rows - 1) + width) * sizeof(float));
  m_Devices[to]->copyToHost(dst, target.data(), (dstPitch * (rows - 1) + width) * sizeof(float));
  for (std::size_t r = 0; r < rows; ++r)
  {
    std::memcpy(target.data() + r * dstPitch, all.data() + r * srcPitch, width * sizeof(float));
  }
  m_Devices[to]->copyToDevice(target.data(), dst, (dstPitch * (rows - 1) + width) * sizeof(float));
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

void
HostCommunicator::reduce(int root, const std::vector<float *> & buffers, std::size_t count)
{
  Backend &          target = *m_Devices[root];
  DeviceArray<float> staging;
  for (int d = 0; d < static_cast<int>(buffers.size()); ++d)
  {
    if (d == root)
    {
      continue;
    }
    const float * addend = buffers[d];
    if (!(hostAddressable(*m_Devices[d]) && hostAddressable(target)))
    {
      if (staging.empty())
      {
        staging = target.allocate<float>(count);
      }
      copy(d, buffers[d], root, staging.data(), count);
      addend = staging.data();
    }
    target.axpby(1.0f, addend, 1.0f, buffers[root], count);
  }
}

double
HostCommunicator::allReduceSum(const std::vector<double> & values)
{
  return std::accumulate(values.begin(), values.end(), 0.0);
}

} // namespace mbir
