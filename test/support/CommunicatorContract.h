#pragma once
// What every Communicator must do, checked on a group of devices of any kind: the CPU tests run it with
// the host communicator, the GPU tests with the peer (several shards of one GPU) and NCCL ones.

#include "CountingCommunicator.h"
#include "mbir/Devices.h"
#include "mbir/ProcessGroup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace mbir::test {

// Device d's buffer of `count` floats holding d * 1000 + i.
inline std::vector<DeviceArray<float>>
numberedBuffers(const DeviceGroup & group, std::size_t count)
{
  std::vector<DeviceArray<float>> buffers;
  for (int d = 0; d < group.size(); ++d)
  {
    std::vector<float> values(count);
    std::iota(values.begin(), values.end(), float(d * 1000));
    buffers.push_back(group.device(d).upload(values.data(), count));
  }
  return buffers;
}

inline std::vector<float>
read(const DeviceGroup & group, int d, const DeviceArray<float> & buffer)
{
  std::vector<float> values(buffer.size());
  group.device(d).copyToHost(buffer.data(), values.data(), values.size() * sizeof(float));
  return values;
}

// d * 1000 + i, i < count: what numberedBuffers puts on device d.
inline std::vector<float>
numbered(int d, std::size_t count)
{
  std::vector<float> values(count);
  std::iota(values.begin(), values.end(), float(d * 1000));
  return values;
}

// Checked on this process's devices: under MPI the others are other ranks' (they check theirs).
inline void
expectCollectivesWork(const DeviceGroup & group)
{
  const int         n = group.size();
  Communicator &    comm = group.communicator();
  const std::size_t count = 37;
  auto              mine = [&](int d) { return !group.device(d).remote(); };
  {
    SCOPED_TRACE("copy: each device's buffer to the next device");
    const auto sources = numberedBuffers(group, count);
    auto       targets = numberedBuffers(group, count);
    for (int d = 0; d < n; ++d)
    {
      comm.copy(d, sources[d].data(), (d + 1) % n, targets[(d + 1) % n].data(), count);
    }
    for (int d = 0; d < n; ++d)
    {
      if (mine((d + 1) % n))
        EXPECT_EQ(read(group, (d + 1) % n, targets[(d + 1) % n]), numbered(d, count)) << "from " << d;
    }
  }
  {
    SCOPED_TRACE("reduceScatter: owner o gets the sum of block o of every buffer");
    const auto                 sources = numberedBuffers(group, n * count);
    auto                       targets = numberedBuffers(group, count);
    std::vector<const float *> send;
    std::vector<float *>       receive;
    for (int d = 0; d < n; ++d)
    {
      send.push_back(sources[d].data());
      receive.push_back(targets[d].data());
    }
    comm.reduceScatter(send, receive, count);
    for (int owner = 0; owner < n; ++owner)
    {
      if (!mine(owner))
        continue;
      const std::vector<float> sum = read(group, owner, targets[owner]);
      for (std::size_t i = 0; i < count; ++i)
      {
        // sum over d of d * 1000 + owner * count + i
        EXPECT_EQ(sum[i], float(1000 * n * (n - 1) / 2 + n * int(owner * count + i))) << owner << ", " << i;
      }
    }
  }
  {
    SCOPED_TRACE("allGather: block o of every buffer is device o's");
    const auto                 sources = numberedBuffers(group, count);
    auto                       targets = numberedBuffers(group, n * count);
    std::vector<const float *> send;
    std::vector<float *>       receive;
    for (int d = 0; d < n; ++d)
    {
      send.push_back(sources[d].data());
      receive.push_back(targets[d].data());
    }
    comm.allGather(send, receive, count);
    for (int d = 0; d < n; ++d)
    {
      if (!mine(d))
        continue;
      const std::vector<float> all = read(group, d, targets[d]);
      for (int owner = 0; owner < n; ++owner)
      {
        EXPECT_EQ(std::vector<float>(all.begin() + owner * count, all.begin() + (owner + 1) * count),
                  numbered(owner, count))
          << "block " << owner << " on device " << d;
      }
    }
  }
  {
    SCOPED_TRACE("broadcast from the last device");
    auto                 buffers = numberedBuffers(group, count);
    std::vector<float *> pointers;
    for (auto & b : buffers)
      pointers.push_back(b.data());
    comm.broadcast(n - 1, pointers, count);
    for (int d = 0; d < n; ++d)
    {
      if (mine(d))
        EXPECT_EQ(read(group, d, buffers[d]), numbered(n - 1, count)) << "device " << d;
    }
  }
  {
    SCOPED_TRACE("completeOnHost: each device's block, written by the process that holds it, everywhere");
    std::vector<float> host(n * count, 0.0f);
    for (int d = 0; d < n; ++d)
    {
      if (mine(d))
        std::copy_n(numbered(d, count).begin(), count, host.begin() + d * count);
    }
    comm.completeOnHost(host.data(), host.size());
    for (int d = 0; d < n; ++d)
    {
      EXPECT_EQ(std::vector<float>(host.begin() + d * count, host.begin() + (d + 1) * count), numbered(d, count))
        << "block " << d;
    }
  }
  {
    SCOPED_TRACE("gatherOnHost: each process's part, of its own length, one after the other on process 0 alone");
    std::vector<float> part, whole; // a process's part: its devices' blocks, device d's d + 1 numbers long
    for (int d = 0; d < n; ++d)
    {
      const std::vector<float> block = numbered(d, d + 1);
      whole.insert(whole.end(), block.begin(), block.end());
      if (mine(d))
        part.insert(part.end(), block.begin(), block.end());
    }
    std::vector<float> gathered(whole.size(), -1.0f);
    comm.gatherOnHost(part.data(), part.size(), gathered.data());
    EXPECT_EQ(gathered, processGroup().rank == 0 ? whole : std::vector<float>(whole.size(), -1.0f));
  }
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), 0.5);
  EXPECT_DOUBLE_EQ(comm.allReduceSum(values), n * n / 2.0);
  EXPECT_NO_THROW(comm.barrier());
}

} // namespace mbir::test
