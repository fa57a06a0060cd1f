#pragma once
// Forward and back projection, and the Hessian diagonal, of one geometry on one backend. The host-array
// methods take and return the public layouts (sinogram (views, rows, channels), recon (rows, cols,
// slices)); the arrays passed in are never modified.

#include "mbir/Backend.h"
#include "mbir/DeviceData.h"
#include "mbir/Geometry.h"

#include <memory>
#include <vector>

namespace mbir {

class Projector
{
public:
  // Validates the geometry (std::invalid_argument on bad parameters) and uploads its view table.
  Projector(Geometry geometry, std::shared_ptr<Backend> backend);

  const Geometry &
  geometry() const
  {
    return m_Geometry;
  }
  const SinogramShape &
  sinogramShape() const
  {
    return sinogramShapeOf(m_Geometry);
  }
  const ReconShape &
  reconShape() const
  {
    return reconShapeOf(m_Geometry);
  }
  // The ROR pixels (flat indices, ascending).
  const std::vector<int> &
  rorPixels() const
  {
    return m_RorPixels;
  }
  Backend &
  backend() const
  {
    return *m_Backend;
  }
  const std::shared_ptr<Backend> &
  backendPointer() const
  {
    return m_Backend;
  }
  const DeviceModel &
  deviceModel() const
  {
    return m_Model;
  }
  // The ROR pixels and all pixels as cylinder batches on the device.
  CylinderBatch
  rorCylinders() const
  {
    return CylinderBatch{ m_RorPixelsOnDevice.data(), static_cast<int>(m_RorPixels.size()), reconShape().slices };
  }
  CylinderBatch
  allCylinders() const
  {
    return CylinderBatch{ m_AllPixelsOnDevice.data(), static_cast<int>(m_AllPixels.size()), reconShape().slices };
  }
  // Every view of the geometry.
  ViewRange
  allViews() const
  {
    return ViewRange{ 0, sinogramShape().views };
  }
  // Size of a sinogram (or weights) buffer on the device.
  std::size_t
  sinogramSize() const
  {
    return sinogramShape().size();
  }

  // A x over the ROR cylinders of `recon`; voxels outside the ROR are ignored.
  std::vector<float>
  forwardProject(const float * recon) const;
  DeviceSinogram
  forwardProject(const DeviceVolume & recon) const;
  // A^T y on the ROR cylinders; zero outside the ROR.
  std::vector<float>
  backProject(const float * sinogram) const;
  DeviceVolume
  backProject(const DeviceSinogram & sinogram) const;

  // Throws std::invalid_argument unless the data live on this projector's backend and have its shapes.
  void
  checkOnDevice(const DeviceSinogram & sinogram, const char * what) const;
  void
  checkOnDevice(const DeviceVolume & volume, const char * what) const;
  // diag(A^T W A) over all pixels; weights == nullptr means W = 1.
  std::vector<float>
  hessianDiagonal(const float * weights) const;

  // A x for the cylinders values (pixels.size(), slices) at the given flat pixel indices.
  std::vector<float>
  sparseForwardProject(const float * values, const std::vector<int> & pixels) const;
  // (A .^ power)^T y at the given pixels, shape (pixels.size(), slices).
  std::vector<float>
  sparseBackProject(const float * sinogram, const std::vector<int> & pixels, int power = 1) const;

private:
  void
  checkPixels(const std::vector<int> & pixels) const;

  Geometry                 m_Geometry;
  std::shared_ptr<Backend> m_Backend;
  DeviceAllocation         m_ViewTable;
  DeviceModel              m_Model;
  std::vector<int>         m_RorPixels;
  std::vector<int>         m_AllPixels;
  DeviceArray<int>         m_RorPixelsOnDevice;
  DeviceArray<int>         m_AllPixelsOnDevice;
};

} // namespace mbir
