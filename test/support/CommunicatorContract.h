#pragma once
// What every Communicator must do, checked on a group of devices of any kind: the CPU tests run it with
// the host communicator, the GPU tests with the peer (several shards of one GPU) and NCCL ones.

#include "mbir/Devices.h"

#include <gtest/gtest.h>

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

inline void
expectCollectivesWork(const DeviceGroup & group)
{
  const int         n = group.size();
  Communicator &    comm = group.communicator();
  const std::size_t count = 37;
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
      EXPECT_EQ(read(group, (d + 1) % n, targets[(d + 1) % n]), read(group, d, sources[d])) << "from " << d;
    }
  }
  {
    SCOPED_TRACE("copyRows: 5 runs of 3 from pitch 7 to pitch 4, the rest of the target untouched");
    const auto sources = numberedBuffers(group, count);
    auto       targets = numberedBuffers(group, count);
    const int  from = n - 1, to = 0;
    comm.copyRows(from, sources[from].data() + 2, 7, to, targets[to].data() + 1, 4, 3, 5);
    const std::vector<float> source = read(group, from, sources[from]), target = read(group, to, targets[to]);
    for (std::size_t i = 0; i < count; ++i)
    {
      const std::size_t row = (i - 1) / 4, column = (i - 1) % 4;
      const bool        written = i >= 1 && row < 5 && column < 3;
      EXPECT_EQ(target[i], written ? source[2 + row * 7 + column] : float(to * 1000 + i)) << "entry " << i;
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
      EXPECT_EQ(read(group, d, buffers[d]), read(group, n - 1, buffers[n - 1])) << "device " << d;
    }
  }
  {
    SCOPED_TRACE("reduce to the first device");
    auto                 buffers = numberedBuffers(group, count);
    std::vector<float *> pointers;
    for (auto & b : buffers)
      pointers.push_back(b.data());
    comm.reduce(0, pointers, count);
    const std::vector<float> sum = read(group, 0, buffers[0]);
    for (std::size_t i = 0; i < count; ++i)
    {
      EXPECT_EQ(sum[i], float(1000 * n * (n - 1) / 2 + n * int(i))) << "entry " << i;
    }
    for (int d = 1; d < n; ++d)
    {
      EXPECT_EQ(read(group, d, buffers[d])[5], float(d * 1000 + 5)) << "device " << d << " changed";
    }
  }
  std::vector<double> values(n);
  std::iota(values.begin(), values.end(), 0.5);
  EXPECT_DOUBLE_EQ(comm.allReduceSum(values), n * n / 2.0);
  EXPECT_NO_THROW(comm.barrier());
}

} // namespace mbir::test
