#pragma once
// A communicator that passes every call on to the one it wraps and counts them: the calls by kind (tests of how
// often a VCD subset communicates) and the bytes one device sends (benchmarks), a reduce-scatter or all-gather
// counted as a ring moves it, (N-1)/N of its data.

#include "mbir/Communicator.h"

#include <memory>
#include <vector>

namespace mbir::test {

class CountingCommunicator final : public Communicator
{
public:
  CountingCommunicator(std::unique_ptr<Communicator> inner, int devices)
    : m_Inner(std::move(inner))
    , m_Devices(devices)
  {}

  int    reduceScatters = 0, allGathers = 0, copies = 0, broadcasts = 0, allReduces = 0, barriers = 0;
  double bytes = 0.0; // sent by one device

  CommunicatorKind
  kind() const override
  {
    return m_Inner->kind();
  }
  void
  reduceScatter(const std::vector<const float *> & send,
                const std::vector<float *> &       receive,
                std::size_t                        count) override
  {
    ++reduceScatters;
    bytes += 4.0 * count * (m_Devices - 1);
    m_Inner->reduceScatter(send, receive, count);
  }
  void
  allGather(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) override
  {
    ++allGathers;
    bytes += 4.0 * count * (m_Devices - 1);
    m_Inner->allGather(send, receive, count);
  }
  void
  copy(int from, const float * src, int to, float * dst, std::size_t count) override
  {
    ++copies;
    bytes += 4.0 * count / m_Devices; // one device's share of the halo traffic
    m_Inner->copy(from, src, to, dst, count);
  }
  void
  broadcast(int root, const std::vector<float *> & buffers, std::size_t count) override
  {
    ++broadcasts;
    bytes += 4.0 * count * (m_Devices - 1) / m_Devices;
    m_Inner->broadcast(root, buffers, count);
  }
  double
  allReduceSum(const std::vector<double> & values) override
  {
    ++allReduces;
    bytes += 8.0 * (m_Devices - 1) / m_Devices;
    return m_Inner->allReduceSum(values);
  }
  void
  barrier() override
  {
    ++barriers;
    m_Inner->barrier();
  }
  void
  completeOnHost(float * host, std::size_t count) override
  {
    m_Inner->completeOnHost(host, count);
  }

private:
  std::unique_ptr<Communicator> m_Inner;
  int                           m_Devices;
};

} // namespace mbir::test
