#pragma once
// Sinograms and volumes kept where the engine computes, split over the devices of a DeviceGroup
// (host memory for CPU devices, GPU memory for CUDA), so that data used many times are transferred once
// and results stay for the next step. A sinogram is split by view, a volume by slice, in equal shares
// whose padding is zero (Devices.h). Values are checked when they arrive (finite) and never modified by
// the engine's operations that take them as input.

#include "mbir/ArrayView.h"
#include "mbir/Devices.h"
#include "mbir/Weights.h"

#include <memory>
#include <utility>
#include <vector>

namespace mbir {

// Device shard d holds views [views().first(d), ... + views().perDevice) in the layout
// [view][channel][row]; the views past the real count are zero.
class DeviceSinogram
{
public:
  DeviceSinogram() = default;
  // Zeros of the given (real) shape.
  DeviceSinogram(std::shared_ptr<const DeviceGroup> group, const SinogramShape & shape);
  // Uploads a host sinogram (views, rows, channels), shard by shard; std::invalid_argument on NaN/Inf,
  // naming the entry.
  static DeviceSinogram
  upload(std::shared_ptr<const DeviceGroup> group, ArrayView3 host);
  // The same on one device.
  static DeviceSinogram
  upload(std::shared_ptr<Backend> device, ArrayView3 host);
  // Uploads part of a sinogram of `views` views: `host` holds views [firstView, firstView + host.shape[0]). What one
  // process of an MPI job holds (ProcessGroup.h): only its own devices' views, which must lie in the part
  // (std::invalid_argument naming them otherwise); the other processes' devices hold nothing here.
  static DeviceSinogram
  uploadViews(std::shared_ptr<const DeviceGroup> group, ArrayView3 host, int firstView, int views);
  // The views this process's devices hold of a sinogram of `views` views, as [first, first + count): all of them in
  // one process, this rank's share under MPI.
  static std::pair<int, int>
  localViews(const DeviceGroup & group, int views);

  // The real views in the public layout (views, rows, channels).
  std::vector<float>
  download() const;
  // Only these (real) views, in the order given, each (rows, channels).
  std::vector<float>
  downloadViews(const std::vector<int> & views) const;

  const SinogramShape &
  shape() const
  {
    return m_Shape;
  }
  const ShardLayout &
  views() const
  {
    return m_Views;
  }
  // The shape of one shard, padding included.
  SinogramShape
  shardShape() const
  {
    return SinogramShape{ m_Views.perDevice, m_Shape.rows, m_Shape.channels };
  }
  const DeviceGroup &
  group() const
  {
    return *m_Group;
  }
  const std::shared_ptr<const DeviceGroup> &
  groupPointer() const
  {
    return m_Group;
  }
  bool
  empty() const
  {
    return m_Shards.empty();
  }
  const float *
  shard(int d) const
  {
    return m_Shards[d].data();
  }
  float *
  shard(int d)
  {
    return m_Shards[d].data();
  }

private:
  std::shared_ptr<const DeviceGroup> m_Group;
  SinogramShape                      m_Shape;
  ShardLayout                        m_Views;
  std::vector<DeviceArray<float>>    m_Shards;
};

// A volume (rows, cols, slices). Device shard d holds every pixel's slices [slices().first(d), ... +
// slices().perDevice), slices contiguous; the slices past the real count are zero.
class DeviceVolume
{
public:
  DeviceVolume() = default;
  DeviceVolume(std::shared_ptr<const DeviceGroup> group, const ReconShape & shape);
  // Uploads a host volume (rows, cols, slices); std::invalid_argument on NaN/Inf.
  static DeviceVolume
  upload(std::shared_ptr<const DeviceGroup> group, ArrayView3 host);
  static DeviceVolume
  upload(std::shared_ptr<Backend> device, ArrayView3 host);

  std::vector<float>
  download() const;
  // Only these rows, in the order given, each (cols, slices).
  std::vector<float>
  downloadRows(const std::vector<int> & rows) const;
  // The slices this process's devices hold of a volume of `slices` slices, as [first, first + count): all of them in
  // one process, this rank's share under MPI.
  static std::pair<int, int>
  localSlices(const DeviceGroup & group, int slices);
  // This process's slices (localSlices) slice by slice, (count, rows, cols): the memory order of an itk::Image, part
  // of whose buffer it is; no communication.
  std::vector<float>
  downloadLocalSlices() const;

  const ReconShape &
  shape() const
  {
    return m_Shape;
  }
  const ShardLayout &
  slices() const
  {
    return m_Slices;
  }
  ReconShape
  shardShape() const
  {
    return ReconShape{ m_Shape.rows, m_Shape.cols, m_Slices.perDevice };
  }
  const DeviceGroup &
  group() const
  {
    return *m_Group;
  }
  const std::shared_ptr<const DeviceGroup> &
  groupPointer() const
  {
    return m_Group;
  }
  bool
  empty() const
  {
    return m_Shards.empty();
  }
  const float *
  shard(int d) const
  {
    return m_Shards[d].data();
  }
  float *
  shard(int d)
  {
    return m_Shards[d].data();
  }

private:
  // Rows [first, first + count) into host (count, cols, slices).
  void
  copyRowsToHost(int first, int count, float * host) const;

  std::shared_ptr<const DeviceGroup> m_Group;
  ReconShape                         m_Shape;
  ShardLayout                        m_Slices;
  std::vector<DeviceArray<float>>    m_Shards;
};

// A group of one device.
std::shared_ptr<const DeviceGroup>
singleDevice(std::shared_ptr<Backend> device);

// Weights of `type` made from a sinogram where it lies, each device from its own views (Weights.h): no host copy
// of the whole sinogram, no communication; padding views keep weight 0.
DeviceSinogram
generateWeights(const DeviceSinogram & sinogram, WeightType type);

// Names the first non-finite entry of an array as "NaN at (a i, b j, c k)" with the given axis names, or
// returns an empty string; `firstIndex` is the first axis's index of the array's first entry (where it is part of a
// larger array).
std::string
firstNonFinite(const ArrayView3 & array, const char * const axes[3], int firstIndex = 0);

} // namespace mbir
