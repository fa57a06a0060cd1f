#include "mbir/Devices.h"

#include "mbir/Communicator.h"
#include "mbir/ProcessGroup.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mbir {
namespace {

std::string
kindName(Backend::Kind kind)
{
  return kind == Backend::Kind::Gpu ? "GPU" : "CPU";
}

// The process's devices, made once so that handles stay valid and comparable.
struct Registry
{
  std::mutex                            mutex;
  bool                                  gpusProbed = false;
  std::vector<std::shared_ptr<Backend>> gpus;
  std::vector<std::shared_ptr<Backend>> cpus;
  std::vector<std::shared_ptr<Backend>> ranks[2]; // under MPI: one device per rank, [0] CPU, [1] GPU
};

// Under MPI with several processes: device r is rank r's, this rank's its own (its node's GPU localRank modulo
// the GPUs there, or a CPU device with its share of the node's cores), the others stand-ins.
std::vector<std::shared_ptr<Backend>> &
rankDevices(Registry & r, bool gpu)
{
  std::vector<std::shared_ptr<Backend>> & devices = r.ranks[gpu ? 1 : 0];
  if (devices.empty())
  {
    const ProcessGroup & world = processGroup();
    for (int rank = 0; rank < world.size; ++rank)
    {
      if (rank != world.rank)
        devices.push_back(makeRemoteDevice(gpu ? Backend::Kind::Gpu : Backend::Kind::Cpu, rank));
      else if (gpu)
        devices.push_back(r.gpus[world.localRank % r.gpus.size()]);
      else
        devices.push_back(makeCpuBackend(std::max(1, defaultCpuThreads() / world.localSize)));
    }
  }
  return devices;
}

Registry &
registry()
{
  static Registry r;
  return r;
}

// True when the last of n equal shares of `length` would hold nothing but padding.
bool
lastShareEmpty(int length, int n)
{
  return (length + n - 1) / n * (n - 1) >= length;
}

} // namespace

ShardLayout::ShardLayout(int realLength, int numDevices)
  : real(realLength)
  , devices(numDevices)
  , perDevice(numDevices > 0 ? (realLength + numDevices - 1) / numDevices : 0)
{
  if (numDevices < 1 || realLength < 0)
  {
    throw std::invalid_argument("ShardLayout: " + std::to_string(realLength) + " entries over " +
                                std::to_string(numDevices) + " devices");
  }
}

int
ShardLayout::valid(int d) const
{
  return std::clamp(real - first(d), 0, perDevice);
}

UseGpu
parseUseGpu(const std::string & name)
{
  if (name == "automatic")
    return UseGpu::Automatic;
  if (name == "full")
    return UseGpu::Full;
  if (name == "none")
    return UseGpu::None;
  throw std::invalid_argument("use_gpu must be automatic, full or none, got '" + name + "'");
}

int
cpuDeviceCount()
{
  const char * text = std::getenv("MBIR_NUM_CPU_DEVICES");
  if (text == nullptr || *text == '\0')
  {
    return 1;
  }
  char *     end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 64)
  {
    throw std::invalid_argument(std::string("MBIR_NUM_CPU_DEVICES must be a whole number from 1 to 64, got '") + text +
                                "'");
  }
  return static_cast<int>(n);
}

std::vector<std::shared_ptr<Backend>>
availableDevices(UseGpu policy)
{
  Registry &                  r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (policy != UseGpu::None)
  {
    if (!r.gpusProbed)
    {
      r.gpusProbed = true;
      for (int i = 0; i < cudaDeviceCount(); ++i)
      {
        r.gpus.push_back(makeCudaBackend(i));
      }
    }
    if (!r.gpus.empty())
    {
      return processGroup().size > 1 ? rankDevices(r, true) : r.gpus;
    }
  }
  if (processGroup().size > 1)
  {
    return rankDevices(r, false);
  }
  const int wanted = cpuDeviceCount();
  while (static_cast<int>(r.cpus.size()) < wanted)
  {
    r.cpus.push_back(makeCpuBackend()); // every CPU device takes the same cores (defaultCpuThreads)
  }
  return std::vector<std::shared_ptr<Backend>>(r.cpus.begin(), r.cpus.begin() + wanted);
}

DeviceSelection
DeviceSelection::firstDevices(int n)
{
  DeviceSelection selection;
  selection.m_Kind = Kind::Count;
  selection.m_Count = n;
  return selection;
}

DeviceSelection
DeviceSelection::atIndices(std::vector<int> indices)
{
  DeviceSelection selection;
  selection.m_Kind = Kind::Indices;
  selection.m_Indices = std::move(indices);
  return selection;
}

DeviceSelection
DeviceSelection::of(std::vector<std::shared_ptr<Backend>> devices)
{
  DeviceSelection selection;
  selection.m_Kind = Kind::Handles;
  selection.m_Devices = std::move(devices);
  return selection;
}

std::vector<std::shared_ptr<Backend>>
DeviceSelection::resolve(int views, int slices) const
{
  if (m_Kind == Kind::Handles)
  {
    if (m_Devices.empty())
      throw std::invalid_argument("device selection: the list of devices is empty; give at least one");
    std::set<const Backend *> seen;
    for (const auto & device : m_Devices)
    {
      if (!device)
        throw std::invalid_argument("device selection: a device handle is null");
      if (!seen.insert(device.get()).second)
        throw std::invalid_argument("device selection: " + device->description() + " is listed twice");
      if (device->kind() != m_Devices.front()->kind())
        throw std::invalid_argument("device selection: CPU and GPU devices cannot share one reconstruction");
    }
    return m_Devices;
  }
  const std::vector<std::shared_ptr<Backend>> all = availableDevices(m_UseGpu);
  if (processGroup().size > 1)
  {
    if (m_Kind != Kind::Automatic && !(m_Kind == Kind::Count && m_Count == processGroup().size))
    {
      throw std::invalid_argument("device selection: under MPI each of the " + std::to_string(processGroup().size) +
                                  " ranks computes on its own device and all take part; leave the choice automatic, "
                                  "or start fewer ranks");
    }
    return all;
  }
  const std::string available = std::to_string(all.size()) + " available (" + std::to_string(all.size()) + " x " +
                                kindName(all.front()->kind()) + ")";
  switch (m_Kind)
  {
    case Kind::Automatic:
    {
      int n = static_cast<int>(all.size());
      while (n > 1 && ((views > 0 && lastShareEmpty(views, n)) || (slices > 0 && lastShareEmpty(slices, n))))
      {
        --n; // a device with nothing but padding would only cost time
      }
      return std::vector<std::shared_ptr<Backend>>(all.begin(), all.begin() + n);
    }
    case Kind::Count:
      if (m_Count < 1)
        throw std::invalid_argument("device selection: the device count must be >= 1, got " + std::to_string(m_Count));
      if (m_Count > static_cast<int>(all.size()))
        throw std::invalid_argument("device selection: " + std::to_string(m_Count) + " devices asked for, " +
                                    available + "; set MBIR_NUM_CPU_DEVICES for more CPU devices");
      return std::vector<std::shared_ptr<Backend>>(all.begin(), all.begin() + m_Count);
    case Kind::Indices:
    {
      if (m_Indices.empty())
        throw std::invalid_argument("device selection: the list of device indices is empty; give at least one");
      std::vector<std::shared_ptr<Backend>> chosen;
      std::set<int>                         seen;
      for (const int i : m_Indices)
      {
        if (i < 0 || i >= static_cast<int>(all.size()))
          throw std::invalid_argument("device selection: index " + std::to_string(i) + " is out of range, " +
                                      available + " (indices 0.." + std::to_string(all.size() - 1) + ")");
        if (!seen.insert(i).second)
          throw std::invalid_argument("device selection: index " + std::to_string(i) + " is listed twice");
        chosen.push_back(all[i]);
      }
      return chosen;
    }
    case Kind::Handles:
      break;
  }
  return {};
}

std::string
DeviceSelection::describe() const
{
  std::ostringstream text;
  switch (m_Kind)
  {
    case Kind::Automatic:
      text << "automatic";
      break;
    case Kind::Count:
      text << "first " << m_Count;
      break;
    case Kind::Indices:
      text << "indices";
      for (const int i : m_Indices)
        text << " " << i;
      break;
    case Kind::Handles:
      text << m_Devices.size() << " given devices";
      break;
  }
  if (m_UseGpu == UseGpu::None)
    text << ", CPU only";
  return text.str();
}

std::string
DeviceSelection::fallbackNote() const
{
  if (m_Kind == Kind::Handles || m_UseGpu == UseGpu::None)
  {
    return {};
  }
  const std::string reason = cudaUnavailableReason();
  return reason.empty() ? std::string() : "no GPU: " + reason;
}

namespace {

std::vector<Backend *>
checkedDevices(const std::vector<std::shared_ptr<Backend>> & devices)
{
  if (devices.empty())
  {
    throw std::invalid_argument("DeviceGroup: no devices given");
  }
  std::vector<Backend *> raw;
  for (const auto & d : devices)
  {
    if (!d)
      throw std::invalid_argument("DeviceGroup: a device is null");
    raw.push_back(d.get());
  }
  return raw;
}

} // namespace

DeviceGroup::DeviceGroup(std::vector<std::shared_ptr<Backend>> devices)
  : m_Devices(std::move(devices))
  , m_Communicator(makeCommunicator(checkedDevices(m_Devices)))
{}

DeviceGroup::DeviceGroup(std::vector<std::shared_ptr<Backend>> devices, CommunicatorKind kind)
  : m_Devices(std::move(devices))
  , m_Communicator(makeCommunicator(checkedDevices(m_Devices), kind))
{}

DeviceGroup::DeviceGroup(std::vector<std::shared_ptr<Backend>>                                        devices,
                         const std::function<std::unique_ptr<Communicator>(std::vector<Backend *>)> & join)
  : m_Devices(std::move(devices))
  , m_Communicator(join(checkedDevices(m_Devices)))
{}

std::string
DeviceGroup::summary() const
{
  std::ostringstream text;
  const Backend &    first = *m_Devices.front();
  text << size() << " x " << kindName(first.kind());
  if (m_Communicator->kind() == CommunicatorKind::Mpi)
  {
    const ProcessGroup & world = processGroup();
    text << " (MPI, " << world.size << " ranks";
    if (world.nodes > 1)
      text << ", " << world.nodes << " nodes";
    text << ")";
  }
  else if (size() > 1)
  {
    text << " (sharded";
    if (first.kind() == Backend::Kind::Cpu)
      text << ", " << first.threadCount() << (first.threadCount() == 1 ? " thread" : " threads");
    text << ")";
  }
  return text.str();
}

std::string
DeviceGroup::summary(const ShardLayout & views, const ShardLayout & slices) const
{
  std::string text = summary();
  if (views.padded() != views.real)
    text += " (views padded " + std::to_string(views.real) + "->" + std::to_string(views.padded()) + ")";
  if (slices.padded() != slices.real)
    text += " (slices padded " + std::to_string(slices.real) + "->" + std::to_string(slices.padded()) + ")";
  return text;
}

} // namespace mbir
