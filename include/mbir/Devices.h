#pragma once
// The devices one reconstruction runs on (ARCHITECTURE.md "Devices"): which are available, how a user
// chooses among them, and how an axis of the data is split into equal, zero-padded shares.

#include "mbir/Backend.h"
#include "mbir/Communicator.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mbir {

// How one axis (views of a sinogram, slices of a volume) is split over N devices: equal shares of
// ceil(real / N); the last shares hold padding, which is kept zero and never read.
struct ShardLayout
{
  int real = 0;      // the axis length of the problem
  int devices = 1;   // N
  int perDevice = 0; // ceil(real / N)

  ShardLayout() = default;
  ShardLayout(int realLength, int numDevices);

  int
  padded() const
  {
    return perDevice * devices;
  }
  // The first global index of device d's share, and how many of its entries are real.
  int
  first(int d) const
  {
    return d * perDevice;
  }
  int
  valid(int d) const;
};

// Which devices to use. Automatic (the default) means every GPU when any is present and allowed, else
// the CPU devices (MBIR_NUM_CPU_DEVICES of them, default 1, all sharing every core), skipping device
// counts that would leave a device with nothing but padding. An explicit choice is kept as given.
enum class UseGpu
{
  Automatic, // GPUs when present, else the CPU
  Full,      // the same; the word for users who expect GPUs (there is no partial offload)
  None       // the CPU even when GPUs are present
};

// "automatic", "full" or "none"; std::invalid_argument otherwise.
UseGpu
parseUseGpu(const std::string & name);

class DeviceSelection
{
public:
  // Every available device (automatic).
  DeviceSelection() = default;
  // The first n available devices.
  static DeviceSelection
  firstDevices(int n);
  // The available devices at these indices (see availableDevices()).
  static DeviceSelection
  atIndices(std::vector<int> indices);
  // Exactly these devices.
  static DeviceSelection
  of(std::vector<std::shared_ptr<Backend>> devices);
  // One device (the first available).
  static DeviceSelection
  single()
  {
    return firstDevices(1);
  }

  DeviceSelection &
  useGpu(UseGpu policy)
  {
    m_UseGpu = policy;
    return *this;
  }
  UseGpu
  useGpu() const
  {
    return m_UseGpu;
  }
  // False for the automatic choice, which is re-made for every problem; true for an explicit one.
  bool
  pinned() const
  {
    return m_Kind != Kind::Automatic;
  }

  // The devices for a problem with `views` views and `slices` slices (0: no such axis, e.g. a volume
  // alone); std::invalid_argument for an impossible choice (an index out of range, a duplicate, zero or no
  // devices), naming it.
  std::vector<std::shared_ptr<Backend>>
  resolve(int views, int slices) const;

  std::string
  describe() const;

  // Why this selection runs on the CPU although it allows GPUs (no driver, no device, no CUDA in the
  // build), e.g. "no GPU: CUDA reports: no CUDA-capable device is detected"; empty otherwise.
  std::string
  fallbackNote() const;

  friend bool
  operator==(const DeviceSelection & a, const DeviceSelection & b)
  {
    return a.m_Kind == b.m_Kind && a.m_Count == b.m_Count && a.m_Indices == b.m_Indices && a.m_Devices == b.m_Devices &&
           a.m_UseGpu == b.m_UseGpu;
  }

private:
  enum class Kind
  {
    Automatic,
    Count,
    Indices,
    Handles
  };
  Kind                                  m_Kind = Kind::Automatic;
  int                                   m_Count = 0;
  std::vector<int>                      m_Indices;
  std::vector<std::shared_ptr<Backend>> m_Devices;
  UseGpu                                m_UseGpu = UseGpu::Automatic;
};

// The devices of this process the policy can use, in index order: the GPUs when any are present and
// `policy` allows them, else the CPU devices. The same objects every time, so they can serve as handles.
std::vector<std::shared_ptr<Backend>>
availableDevices(UseGpu policy = UseGpu::Automatic);

// Number of CPU devices: MBIR_NUM_CPU_DEVICES when set (1 to 64), else 1.
int
cpuDeviceCount();

// The devices of one reconstruction and the communicator that joins them.
class DeviceGroup
{
public:
  // Joined by makeCommunicator()'s choice, or by the kind given.
  explicit DeviceGroup(std::vector<std::shared_ptr<Backend>> devices);
  DeviceGroup(std::vector<std::shared_ptr<Backend>> devices, CommunicatorKind kind);
  // Joined by the communicator `join` makes for them (a wrapper that counts or fails calls, in tests).
  DeviceGroup(std::vector<std::shared_ptr<Backend>>                                        devices,
              const std::function<std::unique_ptr<Communicator>(std::vector<Backend *>)> & join);

  int
  size() const
  {
    return static_cast<int>(m_Devices.size());
  }
  Backend &
  device(int d) const
  {
    return *m_Devices[d];
  }
  const std::shared_ptr<Backend> &
  devicePointer(int d) const
  {
    return m_Devices[d];
  }
  const std::vector<std::shared_ptr<Backend>> &
  devices() const
  {
    return m_Devices;
  }
  Communicator &
  communicator() const
  {
    return *m_Communicator;
  }
  // The same devices in the same order: data of one group can be used by the other.
  bool
  sameDevices(const DeviceGroup & other) const
  {
    return m_Devices == other.m_Devices;
  }

  // "1 x CPU", "4 x CPU (sharded, 2 threads)", "2 x GPU (sharded)", with padding noted for the given
  // layouts, e.g. "(views padded 181->184)".
  std::string
  summary(const ShardLayout & views, const ShardLayout & slices) const;
  std::string
  summary() const;

private:
  std::vector<std::shared_ptr<Backend>> m_Devices;
  std::unique_ptr<Communicator>         m_Communicator;
};

} // namespace mbir
