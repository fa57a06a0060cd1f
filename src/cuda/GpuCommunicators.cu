// Communicators between the GPUs of one process. PeerCommunicator copies device to device
// (cudaMemcpyPeer; the driver stages through the host where two GPUs cannot reach each other), so several
// shards of one GPU work too, which is how multi-shard GPU code is tested on a single GPU.
// NcclCommunicator runs NCCL with one rank per distinct GPU. Both issue their work on each device's
// legacy default stream, where the backend's kernels run, so it is ordered with them without waiting. The NCCL
// communicators of a list of GPUs are made once per process and shared (ncclRanksOf).

#include "mbir/Backend.h"
#include "mbir/Communicator.h"
#include "mbir/Config.h"

#include <cuda_runtime.h>
#if MBIR_USE_NCCL
#  include <nccl.h>
#endif

#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbir {
namespace {

void
check(cudaError_t status, const char * what)
{
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
  }
}

// Copies and scalar sums through the CUDA runtime; the subclasses differ in the collectives.
class GpuCommunicator : public Communicator
{
public:
  explicit GpuCommunicator(std::vector<Backend *> devices)
    : m_Devices(std::move(devices))
  {
    for (const Backend * device : m_Devices)
    {
      m_Gpus.push_back(device->memoryPool()); // a GPU's CUDA device index
    }
    // Direct copies between every pair of distinct GPUs that can reach each other (NVLink, PCIe P2P).
    for (const int a : m_Gpus)
    {
      for (const int b : m_Gpus)
      {
        int reachable = 0;
        if (a == b || cudaDeviceCanAccessPeer(&reachable, a, b) != cudaSuccess || !reachable)
        {
          continue;
        }
        check(cudaSetDevice(a), "cudaSetDevice");
        const cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
        if (status == cudaErrorPeerAccessAlreadyEnabled)
        {
          cudaGetLastError(); // enabled by an earlier group: fine
        }
        else
        {
          check(status, "cudaDeviceEnablePeerAccess");
        }
      }
    }
  }

  void
  copy(int from, const float * src, int to, float * dst, std::size_t count) override
  {
    if (count == 0 || src == dst)
    {
      return;
    }
    check(cudaMemcpyPeer(dst, m_Gpus[to], src, m_Gpus[from], count * sizeof(float)), "cudaMemcpyPeer");
  }

  double
  allReduceSum(const std::vector<double> & values) override
  {
    return std::accumulate(values.begin(), values.end(), 0.0); // already on the host
  }

  void
  barrier() override
  {
    for (const int gpu : m_Gpus)
    {
      check(cudaSetDevice(gpu), "cudaSetDevice");
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
  }

protected:
  std::vector<Backend *> m_Devices;
  std::vector<int>       m_Gpus;
};

class PeerCommunicator final : public GpuCommunicator
{
public:
  using GpuCommunicator::GpuCommunicator;

  CommunicatorKind
  kind() const override
  {
    return CommunicatorKind::Peer;
  }

  void
  broadcast(int root, const std::vector<float *> & buffers, std::size_t count) override
  {
    for (int d = 0; d < static_cast<int>(buffers.size()); ++d)
    {
      if (d != root)
      {
        copy(root, buffers[root], d, buffers[d], count);
      }
    }
  }

  // Each owner's block of its own buffer, then every other device's block copied next to it and added.
  void
  reduceScatter(const std::vector<const float *> & send,
                const std::vector<float *> &       receive,
                std::size_t                        count) override
  {
    const int n = static_cast<int>(send.size());
    for (int owner = 0; owner < n; ++owner)
    {
      Backend & target = *m_Devices[owner];
      copy(owner, send[owner] + owner * count, owner, receive[owner], count);
      DeviceArray<float> staging = n > 1 ? target.allocate<float>(count) : DeviceArray<float>();
      for (int d = 0; d < n; ++d)
      {
        if (d != owner)
        {
          copy(d, send[d] + owner * count, owner, staging.data(), count);
          target.axpby(1.0f, staging.data(), 1.0f, receive[owner], count);
        }
      }
    }
  }

  void
  allGather(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) override
  {
    const int n = static_cast<int>(send.size());
    for (int d = 0; d < n; ++d)
    {
      for (int owner = 0; owner < n; ++owner)
      {
        copy(owner, send[owner], d, receive[d] + owner * count, count);
      }
    }
  }
};

#if MBIR_USE_NCCL
void
checkNccl(ncclResult_t status, const char * what)
{
  if (status != ncclSuccess)
  {
    throw std::runtime_error(std::string("NCCL error in ") + what + ": " + ncclGetErrorString(status));
  }
}

// The NCCL communicators of one list of GPUs, one rank each.
struct NcclRanks
{
  explicit NcclRanks(std::vector<int> gpus)
    : comms(gpus.size())
  {
    checkNccl(ncclCommInitAll(comms.data(), static_cast<int>(gpus.size()), gpus.data()), "ncclCommInitAll");
  }
  ~NcclRanks()
  {
    for (ncclComm_t comm : comms)
    {
      ncclCommDestroy(comm);
    }
  }
  NcclRanks(const NcclRanks &) = delete;
  NcclRanks &
  operator=(const NcclRanks &) = delete;

  std::vector<ncclComm_t> comms;
  std::mutex              use; // one grouped call at a time: every rank then sees the calls in the same order
};

// Made once per list of GPUs and process (ncclCommInitAll takes up to seconds, and every filter Update builds a
// device group) and shared by every communicator of those GPUs; destroyed at exit, before the CUDA runtime goes
// (this cache is made after it).
std::shared_ptr<NcclRanks>
ncclRanksOf(const std::vector<int> & gpus)
{
  static std::mutex                                             mutex;
  static std::map<std::vector<int>, std::shared_ptr<NcclRanks>> cache;
  const std::lock_guard<std::mutex>                             lock(mutex);
  std::shared_ptr<NcclRanks> &                                  ranks = cache[gpus];
  if (!ranks)
  {
    ranks = std::make_shared<NcclRanks>(gpus);
  }
  return ranks;
}

// One rank per GPU, all driven from this thread through grouped calls: every collective and copy goes
// through NCCL.
class NcclCommunicator final : public GpuCommunicator
{
public:
  explicit NcclCommunicator(std::vector<Backend *> devices)
    : GpuCommunicator(std::move(devices))
    , m_Ranks(ncclRanksOf(m_Gpus))
    , m_Comms(m_Ranks->comms)
  {}

  CommunicatorKind
  kind() const override
  {
    return CommunicatorKind::Nccl;
  }

  void
  copy(int from, const float * src, int to, float * dst, std::size_t count) override
  {
    if (count == 0 || src == dst)
    {
      return;
    }
    if (from == to)
    {
      GpuCommunicator::copy(from, src, to, dst, count);
      return;
    }
    const std::lock_guard<std::mutex> lock(m_Ranks->use);
    checkNccl(ncclGroupStart(), "ncclGroupStart");
    checkNccl(ncclSend(src, count, ncclFloat, to, m_Comms[from], cudaStreamLegacy), "ncclSend");
    checkNccl(ncclRecv(dst, count, ncclFloat, from, m_Comms[to], cudaStreamLegacy), "ncclRecv");
    checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  }

  void
  broadcast(int root, const std::vector<float *> & buffers, std::size_t count) override
  {
    const std::lock_guard<std::mutex> lock(m_Ranks->use);
    checkNccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t d = 0; d < buffers.size(); ++d)
    {
      checkNccl(ncclBroadcast(buffers[d], buffers[d], count, ncclFloat, root, m_Comms[d], cudaStreamLegacy),
                "ncclBroadcast");
    }
    checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  }

  void
  reduceScatter(const std::vector<const float *> & send,
                const std::vector<float *> &       receive,
                std::size_t                        count) override
  {
    const std::lock_guard<std::mutex> lock(m_Ranks->use);
    checkNccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t d = 0; d < send.size(); ++d)
    {
      checkNccl(ncclReduceScatter(send[d], receive[d], count, ncclFloat, ncclSum, m_Comms[d], cudaStreamLegacy),
                "ncclReduceScatter");
    }
    checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  }

  void
  allGather(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) override
  {
    const std::lock_guard<std::mutex> lock(m_Ranks->use);
    checkNccl(ncclGroupStart(), "ncclGroupStart");
    for (std::size_t d = 0; d < send.size(); ++d)
    {
      checkNccl(ncclAllGather(send[d], receive[d], count, ncclFloat, m_Comms[d], cudaStreamLegacy), "ncclAllGather");
    }
    checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  }

private:
  std::shared_ptr<NcclRanks>      m_Ranks;
  const std::vector<ncclComm_t> & m_Comms;
};
#endif

} // namespace

namespace detail {

std::unique_ptr<Communicator>
makeGpuCommunicator(std::vector<Backend *> devices, CommunicatorKind kind)
{
#if MBIR_USE_NCCL
  if (kind == CommunicatorKind::Nccl)
  {
    return std::make_unique<NcclCommunicator>(std::move(devices));
  }
#endif
  (void)kind;
  return std::make_unique<PeerCommunicator>(std::move(devices));
}

} // namespace detail
} // namespace mbir
