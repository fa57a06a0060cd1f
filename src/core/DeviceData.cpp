#include "mbir/DeviceData.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace mbir {
namespace {

const char * const kSinogramAxes[3] = { "view", "row", "channel" };
const char * const kVolumeAxes[3] = { "row", "col", "slice" };

void
requireGroup(const std::shared_ptr<const DeviceGroup> & group, const char * what)
{
  if (!group)
  {
    throw std::invalid_argument(std::string(what) + ": no devices given");
  }
}

// Host values are checked before they are sent; values in a GPU's memory are read there in place, which
// only GPUs can do, and checked after they arrive (see requireFiniteShards).
void
checkSource(const ArrayView3 &  values,
            const DeviceGroup & group,
            const char *        what,
            const char * const  axes[3],
            int                 firstIndex = 0)
{
  if (values.onHost())
  {
    if (const std::string bad = firstNonFinite(values, axes, firstIndex); !bad.empty())
    {
      throw std::invalid_argument(std::string("the ") + what + " contains " + bad +
                                  (std::string(what) == "sinogram" ? "; replace or mask bad detector values" : ""));
    }
    return;
  }
  for (int d = 0; d < group.size(); ++d)
  {
    if (group.device(d).kind() != Backend::Kind::Gpu)
    {
      throw std::invalid_argument(std::string("the ") + what + " is in the memory of GPU " +
                                  std::to_string(values.cudaDevice) + ", but device " + std::to_string(d) + " (" +
                                  group.device(d).description() +
                                  ") is not a GPU; copy it to the host first or compute on the GPUs");
    }
  }
}

// The part [first, first + count) of an axis of `length` split over the group that this process's devices hold.
std::pair<int, int>
localShare(const DeviceGroup & group, int length)
{
  const ShardLayout layout(length, group.size());
  int               first = length, last = 0;
  for (int d = 0; d < group.size(); ++d)
  {
    if (!group.device(d).remote() && layout.valid(d) > 0)
    {
      first = std::min(first, layout.first(d));
      last = std::max(last, layout.first(d) + layout.valid(d));
    }
  }
  return last > first ? std::pair{ first, last - first } : std::pair{ std::min(first, length), 0 };
}

// A sum of magnitudes is finite exactly when every value is (it is accumulated in double).
void
requireFiniteShards(const DeviceGroup & group, const std::vector<DeviceArray<float>> & shards, const char * what)
{
  for (int d = 0; d < group.size(); ++d)
  {
    if (!std::isfinite(group.device(d).sumAbs(shards[d].data(), shards[d].size())))
    {
      throw std::invalid_argument(std::string("the ") + what + " contains NaN or Inf (found on " +
                                  group.device(d).description() + ")");
    }
  }
}

} // namespace

std::shared_ptr<const DeviceGroup>
singleDevice(std::shared_ptr<Backend> device)
{
  if (!device)
  {
    throw std::invalid_argument("no device (backend) given");
  }
  return std::make_shared<const DeviceGroup>(std::vector<std::shared_ptr<Backend>>{ std::move(device) });
}

DeviceSinogram
generateWeights(const DeviceSinogram & sinogram, WeightType type)
{
  DeviceSinogram    weights(sinogram.groupPointer(), sinogram.shape());
  const std::size_t viewSize = static_cast<std::size_t>(sinogram.shape().rows) * sinogram.shape().channels;
  for (int d = 0; d < sinogram.group().size(); ++d)
  {
    Backend &         device = sinogram.group().device(d);
    const std::size_t n = viewSize * std::max(0, sinogram.views().valid(d)); // the shard's real views come first
    if (n == 0 || device.remote())
    {
      continue;
    }
    std::vector<float> values(n);
    device.copyToHost(sinogram.shard(d), values.data(), n * sizeof(float));
    values = generateWeights(values.data(), n, type); // entry by entry: the shard's layout does not matter
    device.copyToDevice(values.data(), weights.shard(d), n * sizeof(float));
  }
  return weights;
}

std::string
firstNonFinite(const ArrayView3 & a, const char * const axes[3], int firstIndex)
{
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    if (!std::isfinite(a.data[i]))
    {
      const std::size_t c = i % a.shape[2], b = (i / a.shape[2]) % a.shape[1],
                        v = i / (std::size_t(a.shape[1]) * a.shape[2]);
      std::ostringstream where;
      where << (std::isnan(a.data[i]) ? "NaN" : "Inf") << " at (" << axes[0] << " " << firstIndex + v << ", " << axes[1]
            << " " << b << ", " << axes[2] << " " << c << ")";
      return where.str();
    }
  }
  return {};
}

DeviceSinogram::DeviceSinogram(std::shared_ptr<const DeviceGroup> group, const SinogramShape & shape)
  : m_Group(std::move(group))
  , m_Shape(shape)
{
  requireGroup(m_Group, "DeviceSinogram");
  m_Views = ShardLayout(shape.views, m_Group->size());
  for (int d = 0; d < m_Group->size(); ++d)
  {
    m_Shards.push_back(m_Group->device(d).allocate<float>(shardShape().size()));
  }
}

DeviceSinogram
DeviceSinogram::upload(std::shared_ptr<const DeviceGroup> group, ArrayView3 host)
{
  return uploadViews(std::move(group), host, 0, host.shape[0]);
}

std::pair<int, int>
DeviceSinogram::localViews(const DeviceGroup & group, int views)
{
  return localShare(group, views);
}

DeviceSinogram
DeviceSinogram::uploadViews(std::shared_ptr<const DeviceGroup> group, ArrayView3 host, int firstView, int views)
{
  const int held = host.shape[0];
  if (host.empty() && (held > 0 || views < 1)) // a process whose devices need no views may hold none
  {
    throw std::invalid_argument("DeviceSinogram::upload: no sinogram given");
  }
  requireGroup(group, "DeviceSinogram::upload");
  if (firstView < 0 || views < 1 || held < 0 || firstView + held > views)
  {
    throw std::invalid_argument("DeviceSinogram::upload: views " + std::to_string(firstView) + " to " +
                                std::to_string(firstView + held - 1) + " are not part of a sinogram of " +
                                std::to_string(views) + " views");
  }
  const auto [needFirst, needCount] = localViews(*group, views);
  if (needCount > 0 && (needFirst < firstView || needFirst + needCount > firstView + held))
  {
    throw std::invalid_argument("the sinogram given holds views " + std::to_string(firstView) + " to " +
                                std::to_string(firstView + held - 1) + " of " + std::to_string(views) +
                                ", but the devices of this process need views " + std::to_string(needFirst) + " to " +
                                std::to_string(needFirst + needCount - 1) +
                                "; give those views (the whole sinogram "
                                "in a single process)");
  }
  checkSource(host, *group, "sinogram", kSinogramAxes, firstView);
  DeviceSinogram    sinogram(std::move(group), SinogramShape{ views, host.shape[1], host.shape[2] });
  const std::size_t viewSize = static_cast<std::size_t>(host.shape[1]) * host.shape[2];
  for (int d = 0; d < sinogram.group().size(); ++d)
  {
    const int valid = sinogram.m_Views.valid(d);
    if (valid > 0 && !sinogram.group().device(d).remote())
    {
      sinogram.group().device(d).uploadSinogram(host.data + (sinogram.m_Views.first(d) - firstView) * viewSize,
                                                SinogramShape{ valid, host.shape[1], host.shape[2] },
                                                sinogram.shard(d));
    }
  }
  if (!host.onHost())
  {
    requireFiniteShards(sinogram.group(), sinogram.m_Shards, "sinogram");
  }
  return sinogram;
}

DeviceSinogram
DeviceSinogram::upload(std::shared_ptr<Backend> device, ArrayView3 host)
{
  return upload(singleDevice(std::move(device)), host);
}

std::vector<float>
DeviceSinogram::download() const
{
  std::vector<float> host(m_Shape.size());
  const std::size_t  viewSize = static_cast<std::size_t>(m_Shape.rows) * m_Shape.channels;
  for (int d = 0; d < group().size(); ++d)
  {
    const int valid = m_Views.valid(d);
    if (valid > 0)
    {
      group().device(d).downloadSinogram(
        shard(d), SinogramShape{ valid, m_Shape.rows, m_Shape.channels }, host.data() + m_Views.first(d) * viewSize);
    }
  }
  group().communicator().completeOnHost(host.data(), host.size());
  return host;
}

std::vector<float>
DeviceSinogram::downloadViews(const std::vector<int> & views) const
{
  const std::size_t  viewSize = static_cast<std::size_t>(m_Shape.rows) * m_Shape.channels;
  std::vector<float> host(views.size() * viewSize);
  for (std::size_t i = 0; i < views.size(); ++i)
  {
    const int v = views[i];
    if (v < 0 || v >= m_Shape.views)
    {
      throw std::out_of_range("DeviceSinogram::downloadViews: view " + std::to_string(v) + " of " +
                              std::to_string(m_Shape.views));
    }
    const int d = v / m_Views.perDevice;
    group().device(d).downloadSinogram(shard(d) + (v - m_Views.first(d)) * viewSize,
                                       SinogramShape{ 1, m_Shape.rows, m_Shape.channels },
                                       host.data() + i * viewSize);
  }
  group().communicator().completeOnHost(host.data(), host.size());
  return host;
}

DeviceVolume::DeviceVolume(std::shared_ptr<const DeviceGroup> group, const ReconShape & shape)
  : m_Group(std::move(group))
  , m_Shape(shape)
{
  requireGroup(m_Group, "DeviceVolume");
  m_Slices = ShardLayout(shape.slices, m_Group->size());
  for (int d = 0; d < m_Group->size(); ++d)
  {
    m_Shards.push_back(m_Group->device(d).allocate<float>(shardShape().size()));
  }
}

DeviceVolume
DeviceVolume::upload(std::shared_ptr<const DeviceGroup> group, ArrayView3 host)
{
  if (host.empty())
  {
    throw std::invalid_argument("DeviceVolume::upload: no volume given");
  }
  requireGroup(group, "DeviceVolume::upload");
  checkSource(host, *group, "volume", kVolumeAxes);
  DeviceVolume       volume(std::move(group), ReconShape{ host.shape[0], host.shape[1], host.shape[2] });
  const ReconShape & r = volume.m_Shape;
  const int          per = volume.m_Slices.perDevice;
  // Each device takes its slices of every cylinder; its padding slices stay zero from the allocation.
  for (int d = 0; d < volume.group().size(); ++d)
  {
    const int valid = volume.m_Slices.valid(d);
    if (valid > 0)
    {
      volume.group().device(d).copyRowsToDevice(host.data + volume.m_Slices.first(d),
                                                r.slices * sizeof(float),
                                                volume.shard(d),
                                                per * sizeof(float),
                                                valid * sizeof(float),
                                                r.numPixels());
    }
  }
  if (!host.onHost())
  {
    requireFiniteShards(volume.group(), volume.m_Shards, "volume");
  }
  return volume;
}

DeviceVolume
DeviceVolume::upload(std::shared_ptr<Backend> device, ArrayView3 host)
{
  return upload(singleDevice(std::move(device)), host);
}

std::vector<float>
DeviceVolume::download() const
{
  std::vector<float> host(m_Shape.size());
  copyRowsToHost(0, m_Shape.rows, host.data());
  return host;
}

std::vector<float>
DeviceVolume::downloadRows(const std::vector<int> & rows) const
{
  const std::size_t  rowSize = static_cast<std::size_t>(m_Shape.cols) * m_Shape.slices;
  std::vector<float> host(rows.size() * rowSize);
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    if (rows[i] < 0 || rows[i] >= m_Shape.rows)
    {
      throw std::out_of_range("DeviceVolume::downloadRows: row " + std::to_string(rows[i]) + " of " +
                              std::to_string(m_Shape.rows));
    }
    copyRowsToHost(rows[i], 1, host.data() + i * rowSize);
  }
  return host;
}

std::pair<int, int>
DeviceVolume::localSlices(const DeviceGroup & group, int slices)
{
  return localShare(group, slices);
}

std::vector<float>
DeviceVolume::downloadLocalSlices() const
{
  const auto [localFirst, count] = localSlices(group(), m_Shape.slices);
  const std::size_t  pixels = m_Shape.numPixels(), per = m_Slices.perDevice;
  std::vector<float> host(pixels * count), staging(pixels * per), bySlice(pixels * per);
  for (int d = 0; d < group().size(); ++d)
  {
    const int valid = m_Slices.valid(d);
    if (valid == 0 || group().device(d).remote())
      continue;
    group().device(d).copyToHost(shard(d), staging.data(), staging.size() * sizeof(float));
    transposeMatrices(staging.data(), 1, pixels, per, bySlice.data(), 0); // (pixels, slices) to (slices, pixels)
    std::copy_n(bySlice.begin(), valid * pixels, host.begin() + (m_Slices.first(d) - localFirst) * pixels);
  }
  return host;
}

void
DeviceVolume::copyRowsToHost(int first, int count, float * host) const
{
  const std::size_t pixels = static_cast<std::size_t>(count) * m_Shape.cols;
  const std::size_t offset = static_cast<std::size_t>(first) * m_Shape.cols * m_Slices.perDevice;
  if (group().size() == 1)
  {
    group().device(0).copyToHost(shard(0) + offset, host, pixels * m_Shape.slices * sizeof(float));
    return;
  }
  const int          per = m_Slices.perDevice;
  std::vector<float> staging(pixels * per);
  for (int d = 0; d < group().size(); ++d)
  {
    group().device(d).copyToHost(shard(d) + offset, staging.data(), staging.size() * sizeof(float));
    const int firstSlice = m_Slices.first(d), valid = m_Slices.valid(d);
    for (std::size_t p = 0; p < pixels; ++p)
    {
      std::copy_n(staging.begin() + p * per, valid, host + p * m_Shape.slices + firstSlice);
    }
  }
  group().communicator().completeOnHost(host, pixels * m_Shape.slices);
}

} // namespace mbir
