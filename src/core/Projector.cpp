#include "mbir/Projector.h"

#include <numeric>
#include <stdexcept>

namespace mbir {
namespace {

// Uploads the view table and returns the device model that points at it.
template<typename G>
DeviceModel
makeDeviceModel(const G & geometry, Backend & backend, DeviceAllocation & viewTable)
{
  using Params = decltype(geometry.kernelParams());
  using View = typename Params::View;
  const std::vector<View> views = geometry.viewTable();
  const std::size_t       bytes = views.size() * sizeof(View);
  viewTable = backend.allocateBytes(bytes);
  backend.copyToDevice(views.data(), viewTable.get(), bytes);
  return GeometryModel<Params>{ geometry.kernelParams(), static_cast<const View *>(viewTable.get()) };
}

} // namespace

Projector::Projector(Geometry geometry, std::shared_ptr<Backend> backend)
  : m_Geometry(std::move(geometry))
  , m_Backend(std::move(backend))
{
  if (!m_Backend)
  {
    throw std::invalid_argument("Projector: no backend given");
  }
  std::visit(
    [this](const auto & g) {
      g.validate();
      m_Model = makeDeviceModel(g, *m_Backend, m_ViewTable);
      m_RorPixels = g.rorMask.pixelIndices(g.reconShape);
    },
    m_Geometry);
  m_AllPixels.resize(reconShape().numPixels());
  std::iota(m_AllPixels.begin(), m_AllPixels.end(), 0);
  m_RorPixelsOnDevice = m_Backend->upload(m_RorPixels.data(), m_RorPixels.size());
  m_AllPixelsOnDevice = m_Backend->upload(m_AllPixels.data(), m_AllPixels.size());
}

void
Projector::checkPixels(const std::vector<int> & pixels) const
{
  const int numPixels = static_cast<int>(reconShape().numPixels());
  for (const int p : pixels)
  {
    if (p < 0 || p >= numPixels)
    {
      throw std::invalid_argument("pixel index " + std::to_string(p) + " is outside the recon grid of " +
                                  std::to_string(numPixels) + " pixels");
    }
  }
}

std::vector<float>
Projector::sparseForwardProject(const float * values, const std::vector<int> & pixels) const
{
  checkPixels(pixels);
  const SinogramShape & sino = sinogramShape();
  const int             slices = reconShape().slices;
  DeviceArray<int>      devicePixels = m_Backend->upload(pixels.data(), pixels.size());
  DeviceArray<float>    deviceValues = m_Backend->upload(values, pixels.size() * slices);
  DeviceArray<float>    deviceSino = m_Backend->allocate<float>(sino.size());
  const CylinderBatch   batch{ devicePixels.data(), static_cast<int>(pixels.size()), slices };
  m_Backend->forwardProject(m_Model, batch, deviceValues.data(), ViewRange{ 0, sino.views }, deviceSino.data());
  std::vector<float> result(sino.size());
  m_Backend->downloadSinogram(deviceSino.data(), sino, result.data());
  return result;
}

std::vector<float>
Projector::sparseBackProject(const float * sinogram, const std::vector<int> & pixels, int power) const
{
  if (power != 1 && power != 2)
  {
    throw std::invalid_argument("back projection power must be 1 (A^T) or 2 (Hessian diagonal), got " +
                                std::to_string(power));
  }
  checkPixels(pixels);
  const SinogramShape & sino = sinogramShape();
  const int             slices = reconShape().slices;
  DeviceArray<int>      devicePixels = m_Backend->upload(pixels.data(), pixels.size());
  DeviceArray<float>    deviceSino = m_Backend->allocate<float>(sino.size());
  m_Backend->uploadSinogram(sinogram, sino, deviceSino.data());
  DeviceArray<float>  deviceValues = m_Backend->allocate<float>(pixels.size() * slices);
  const CylinderBatch batch{ devicePixels.data(), static_cast<int>(pixels.size()), slices };
  m_Backend->backProject(
    m_Model, batch, deviceSino.data(), nullptr, ViewRange{ 0, sino.views }, power, deviceValues.data());
  std::vector<float> result(pixels.size() * slices);
  m_Backend->copyToHost(deviceValues.data(), result.data(), result.size() * sizeof(float));
  return result;
}

std::vector<float>
Projector::forwardProject(const float * recon) const
{
  // Gather the ROR cylinders; the others do not contribute.
  const int          slices = reconShape().slices;
  std::vector<float> values(m_RorPixels.size() * slices);
  for (std::size_t b = 0; b < m_RorPixels.size(); ++b)
  {
    std::copy_n(recon + static_cast<std::size_t>(m_RorPixels[b]) * slices, slices, values.begin() + b * slices);
  }
  return sparseForwardProject(values.data(), m_RorPixels);
}

std::vector<float>
Projector::backProject(const float * sinogram) const
{
  const int                slices = reconShape().slices;
  const std::vector<float> values = sparseBackProject(sinogram, m_RorPixels, 1);
  std::vector<float>       recon(reconShape().size(), 0.0f);
  for (std::size_t b = 0; b < m_RorPixels.size(); ++b)
  {
    std::copy_n(values.begin() + b * slices, slices, recon.begin() + static_cast<std::size_t>(m_RorPixels[b]) * slices);
  }
  return recon;
}

std::vector<float>
Projector::hessianDiagonal(const float * weights) const
{
  if (weights)
  {
    return sparseBackProject(weights, m_AllPixels, 2);
  }
  const std::vector<float> ones(sinogramShape().size(), 1.0f);
  return sparseBackProject(ones.data(), m_AllPixels, 2);
}

} // namespace mbir
