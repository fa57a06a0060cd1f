#include "mbir/DeviceData.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace mbir {
namespace {

const char * const kSinogramAxes[3] = { "view", "row", "channel" };
const char * const kVolumeAxes[3] = { "row", "col", "slice" };

void
requireBackend(const std::shared_ptr<Backend> & backend, const char * what)
{
  if (!backend)
  {
    throw std::invalid_argument(std::string(what) + ": no backend given");
  }
}

} // namespace

std::string
firstNonFinite(const ArrayView3 & a, const char * const axes[3])
{
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    if (!std::isfinite(a.data[i]))
    {
      const std::size_t c = i % a.shape[2], b = (i / a.shape[2]) % a.shape[1],
                        v = i / (std::size_t(a.shape[1]) * a.shape[2]);
      std::ostringstream where;
      where << (std::isnan(a.data[i]) ? "NaN" : "Inf") << " at (" << axes[0] << " " << v << ", " << axes[1] << " " << b
            << ", " << axes[2] << " " << c << ")";
      return where.str();
    }
  }
  return {};
}

DeviceSinogram::DeviceSinogram(std::shared_ptr<Backend> backend, const SinogramShape & shape)
  : m_Backend(std::move(backend))
  , m_Shape(shape)
{
  requireBackend(m_Backend, "DeviceSinogram");
  m_Values = m_Backend->allocate<float>(shape.size());
}

DeviceSinogram
DeviceSinogram::upload(std::shared_ptr<Backend> backend, ArrayView3 host)
{
  if (host.empty())
  {
    throw std::invalid_argument("DeviceSinogram::upload: no sinogram given");
  }
  if (const std::string bad = firstNonFinite(host, kSinogramAxes); !bad.empty())
  {
    throw std::invalid_argument("the sinogram contains " + bad + "; replace or mask bad detector values");
  }
  DeviceSinogram sinogram(std::move(backend), SinogramShape{ host.shape[0], host.shape[1], host.shape[2] });
  sinogram.backend().uploadSinogram(host.data, sinogram.m_Shape, sinogram.data());
  return sinogram;
}

std::vector<float>
DeviceSinogram::download() const
{
  std::vector<float> host(m_Shape.size());
  if (!host.empty())
  {
    m_Backend->downloadSinogram(data(), m_Shape, host.data());
  }
  return host;
}

DeviceVolume::DeviceVolume(std::shared_ptr<Backend> backend, const ReconShape & shape)
  : m_Backend(std::move(backend))
  , m_Shape(shape)
{
  requireBackend(m_Backend, "DeviceVolume");
  m_Values = m_Backend->allocate<float>(shape.size());
}

DeviceVolume
DeviceVolume::upload(std::shared_ptr<Backend> backend, ArrayView3 host)
{
  if (host.empty())
  {
    throw std::invalid_argument("DeviceVolume::upload: no volume given");
  }
  if (const std::string bad = firstNonFinite(host, kVolumeAxes); !bad.empty())
  {
    throw std::invalid_argument("the volume contains " + bad);
  }
  DeviceVolume volume(std::move(backend), ReconShape{ host.shape[0], host.shape[1], host.shape[2] });
  volume.backend().copyToDevice(host.data, volume.data(), host.size() * sizeof(float));
  return volume;
}

std::vector<float>
DeviceVolume::download() const
{
  std::vector<float> host(m_Shape.size());
  if (!host.empty())
  {
    m_Backend->copyToHost(data(), host.data(), host.size() * sizeof(float));
  }
  return host;
}

} // namespace mbir
