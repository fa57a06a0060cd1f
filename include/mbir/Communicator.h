#pragma once
// How the devices of one reconstruction exchange data (ARCHITECTURE.md rule 3): the few collectives the
// algorithms need, written against device indices and device pointers so that a host implementation
// (CPU devices in one process), NCCL (one rank per GPU) or device-to-device copies can stand behind it.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace mbir {

class Backend;

enum class CommunicatorKind
{
  Host, // through host memory: CPU devices (and, slowly, anything else)
  Peer, // device-to-device copies between GPUs of this process, several shards of one GPU included
  Nccl, // NCCL, one rank per distinct GPU
  Mpi   // MPI, one device per process (ProcessGroup.h)
};

class Communicator
{
public:
  virtual ~Communicator() = default;

  virtual CommunicatorKind
  kind() const = 0;

  // The collectives take one buffer per device and involve every device in one call, with the blocks laid out
  // owner-major (block o of a buffer belongs to, or comes from, device o), so that one ncclReduceScatter or
  // ncclAllGather (MPI_Reduce_scatter_block, MPI_Allgather) does a whole projection step.

  // receive[o] (count floats on device o) = the sum over devices d of block o of send[d] (n * count floats):
  // a back projection's partial sums, each owner's slices summed.
  virtual void
  reduceScatter(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) = 0;
  // Block o of receive[d] (n * count floats on device d) = send[o] (count floats on device o): every owner's
  // slices of the cylinders a forward projection needs whole.
  virtual void
  allGather(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) = 0;
  // dst (on device `to`) = src (on device `from`), `count` floats: the halo exchange between neighbours.
  virtual void
  copy(int from, const float * src, int to, float * dst, std::size_t count) = 0;
  // Every buffer but the root's becomes a copy of the root's.
  virtual void
  broadcast(int root, const std::vector<float *> & buffers, std::size_t count) = 0;
  // The sum of one value per device (the line search's scalars, the statistics).
  virtual double
  allReduceSum(const std::vector<double> & values) = 0;
  virtual void
  barrier() = 0;
  // A host array that this process's devices filled with their parts (and zeros elsewhere) becomes the whole
  // array in every process: nothing to do in one process, where every device is this process's.
  virtual void
  completeOnHost(float * host, std::size_t count)
  {
    (void)host;
    (void)count;
  }
  // Process 0's `whole` becomes every process's `mine` (`count` floats each; the counts may differ) one after the
  // other in rank order, so that a result is held whole once, where it is written; the other processes leave
  // `whole` alone. In one process `mine` is the whole, copied into `whole` unless it is the same.
  virtual void
  gatherOnHost(const float * mine, std::size_t count, float * whole)
  {
    if (mine != whole)
      std::copy(mine, mine + count, whole);
  }
};

// For devices whose memory the host can address (the CPU backend): plain copies and additions.
class HostCommunicator final : public Communicator
{
public:
  explicit HostCommunicator(std::vector<Backend *> devices)
    : m_Devices(std::move(devices))
  {}

  CommunicatorKind
  kind() const override
  {
    return CommunicatorKind::Host;
  }
  void
  reduceScatter(const std::vector<const float *> & send,
                const std::vector<float *> &       receive,
                std::size_t                        count) override;
  void
  allGather(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) override;
  void
  copy(int from, const float * src, int to, float * dst, std::size_t count) override;
  void
  broadcast(int root, const std::vector<float *> & buffers, std::size_t count) override;
  double
  allReduceSum(const std::vector<double> & values) override;
  void
  barrier() override
  {}

private:
  // Whether every device's memory is the host's (CPU devices): then the collectives run as one loop over all
  // devices' blocks at once; otherwise they go through the host.
  bool
  allOnHost() const;

  std::vector<Backend *> m_Devices;
};

// The communicator for these devices: MPI where some are other processes' (ProcessGroup.h), NCCL between
// distinct GPUs where the engine was built with it, device copies between GPUs otherwise, the host's for CPU
// devices (or a mix).
std::unique_ptr<Communicator>
makeCommunicator(std::vector<Backend *> devices);
// A chosen kind; std::invalid_argument when it cannot serve these devices (Peer and Nccl need GPUs,
// Nccl distinct ones), std::runtime_error when this build lacks it.
std::unique_ptr<Communicator>
makeCommunicator(std::vector<Backend *> devices, CommunicatorKind kind);

// "host", "peer", "nccl", "mpi".
const char *
communicatorName(CommunicatorKind kind);

} // namespace mbir
