#pragma once
// A communicator that passes every call on to the one it wraps after one hook, `before`, which the test wrappers
// override: counting the calls and bytes (CountingCommunicator.h), failing the k-th (FaultInjection.h).

#include "mbir/Communicator.h"

#include <memory>
#include <vector>

namespace mbir::test {

enum class Collective
{
  ReduceScatter,
  AllGather,
  HaloCopy,
  Broadcast,
  AllReduceSum,
  Barrier,
  CompleteOnHost,
  GatherOnHost
};

inline const char *
collectiveName(Collective collective)
{
  static const char * const names[] = { "reduceScatter", "allGather", "halo copy",      "broadcast",
                                        "allReduceSum",  "barrier",   "completeOnHost", "gatherOnHost" };
  return names[static_cast<int>(collective)];
}

class ForwardingCommunicator : public Communicator
{
public:
  ForwardingCommunicator(std::unique_ptr<Communicator> inner, int devices)
    : m_Inner(std::move(inner))
    , m_Devices(devices)
  {}

  CommunicatorKind
  kind() const override
  {
    return m_Inner->kind();
  }
  // Each call's `bytes` is what one device sends: a reduce-scatter or all-gather as a ring moves it, (N-1)/N of its
  // data; a halo copy's share per device.
  void
  reduceScatter(const std::vector<const float *> & send,
                const std::vector<float *> &       receive,
                std::size_t                        count) override
  {
    before(Collective::ReduceScatter, 4.0 * count * (m_Devices - 1));
    m_Inner->reduceScatter(send, receive, count);
  }
  void
  allGather(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) override
  {
    before(Collective::AllGather, 4.0 * count * (m_Devices - 1));
    m_Inner->allGather(send, receive, count);
  }
  void
  copy(int from, const float * src, int to, float * dst, std::size_t count) override
  {
    before(Collective::HaloCopy, 4.0 * count / m_Devices);
    m_Inner->copy(from, src, to, dst, count);
  }
  void
  broadcast(int root, const std::vector<float *> & buffers, std::size_t count) override
  {
    before(Collective::Broadcast, 4.0 * count * (m_Devices - 1) / m_Devices);
    m_Inner->broadcast(root, buffers, count);
  }
  double
  allReduceSum(const std::vector<double> & values) override
  {
    before(Collective::AllReduceSum, 8.0 * (m_Devices - 1) / m_Devices);
    return m_Inner->allReduceSum(values);
  }
  void
  barrier() override
  {
    before(Collective::Barrier, 0.0);
    m_Inner->barrier();
  }
  void
  completeOnHost(float * host, std::size_t count) override
  {
    before(Collective::CompleteOnHost, 0.0);
    m_Inner->completeOnHost(host, count);
  }
  void
  gatherOnHost(const float * mine, std::size_t count, float * whole) override
  {
    before(Collective::GatherOnHost, 0.0);
    m_Inner->gatherOnHost(mine, count, whole);
  }

protected:
  virtual void
  before(Collective collective, double bytes) = 0;

private:
  std::unique_ptr<Communicator> m_Inner;
  int                           m_Devices;
};

} // namespace mbir::test
