#pragma once
// A communicator that passes every call on to the one it wraps and counts them: the calls by kind (tests of how
// often a VCD subset communicates) and the bytes one device sends (benchmarks).

#include "ForwardingCommunicator.h"

namespace mbir::test {

class CountingCommunicator final : public ForwardingCommunicator
{
public:
  using ForwardingCommunicator::ForwardingCommunicator;

  int    reduceScatters = 0, allGathers = 0, copies = 0, broadcasts = 0, allReduces = 0, barriers = 0;
  double bytes = 0.0; // sent by one device

private:
  void
  before(Collective collective, double sent) override
  {
    bytes += sent;
    switch (collective)
    {
      case Collective::ReduceScatter:
        ++reduceScatters;
        break;
      case Collective::AllGather:
        ++allGathers;
        break;
      case Collective::HaloCopy:
        ++copies;
        break;
      case Collective::Broadcast:
        ++broadcasts;
        break;
      case Collective::AllReduceSum:
        ++allReduces;
        break;
      case Collective::Barrier:
        ++barriers;
        break;
      case Collective::CompleteOnHost:
      case Collective::GatherOnHost:
        break;
    }
  }
};

} // namespace mbir::test
