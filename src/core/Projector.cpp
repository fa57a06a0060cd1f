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

void
Projector::checkOnDevice(const DeviceSinogram & sinogram, const char * what) const
{
  if (sinogram.empty() || &sinogram.backend() != m_Backend.get())
  {
    throw std::invalid_argument(
      std::string(what) +
      (sinogram.empty() ? " is empty" : " lives on another device (" + sinogram.backend().description() + ")") +
      "; upload it to " + m_Backend->description() + " first");
  }
  if (!(sinogram.shape() == sinogramShape()))
  {
    throw std::invalid_argument(std::string(what) + " has shape " + sinogram.shape().str() +
                                " but the geometry needs " + sinogramShape().str());
  }
}

void
Projector::checkOnDevice(const DeviceVolume & volume, const char * what) const
{
  if (volume.empty() || &volume.backend() != m_Backend.get())
  {
    throw std::invalid_argument(
      std::string(what) +
      (volume.empty() ? " is empty" : " lives on another device (" + volume.backend().description() + ")") +
      "; upload it to " + m_Backend->description() + " first");
  }
  if (!(volume.shape() == reconShape()))
  {
    throw std::invalid_argument(std::string(what) + " has shape " + volume.shape().str() + " but the geometry needs " +
                                reconShape().str());
  }
}

DeviceSinogram
Projector::forwardProject(const DeviceVolume & recon) const
{
  checkOnDevice(recon, "the volume");
  const CylinderBatch ror = rorCylinders();
  DeviceArray<float>  cylinders = m_Backend->allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
  m_Backend->gatherCylinders(recon.data(), ror, cylinders.data());
  DeviceSinogram sinogram(m_Backend, sinogramShape());
  m_Backend->forwardProject(m_Model, ror, cylinders.data(), allViews(), sinogram.data());
  return sinogram;
}

DeviceVolume
Projector::backProject(const DeviceSinogram & sinogram) const
{
  checkOnDevice(sinogram, "the sinogram");
  const CylinderBatch ror = rorCylinders();
  DeviceArray<float>  values = m_Backend->allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
  m_Backend->backProject(m_Model, ror, sinogram.data(), nullptr, allViews(), 1, values.data());
  DeviceVolume volume(m_Backend, reconShape());
  m_Backend->scatterAddCylinders(1.0f, values.data(), ror, volume.data());
  return volume;
}

std::vector<float>
Projector::forwardProject(const float * recon) const
{
  const ReconShape & r = reconShape();
  return forwardProject(DeviceVolume::upload(m_Backend, ArrayView3(recon, { r.rows, r.cols, r.slices }))).download();
}

std::vector<float>
Projector::backProject(const float * sinogram) const
{
  const SinogramShape & s = sinogramShape();
  return backProject(DeviceSinogram::upload(m_Backend, ArrayView3(sinogram, { s.views, s.rows, s.channels })))
    .download();
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
