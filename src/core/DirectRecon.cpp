#include "mbir/DirectRecon.h"

#include "mbir/ArrayView.h"

#include <cmath>

namespace mbir {
namespace {

float
filterScale(const ParallelBeamGeometry & g)
{
  // 1 / (voxel area) cancels the area the adjoint spreads per voxel; pi / V is the angular step.
  const double area = double(g.deltaVoxel) * g.deltaVoxel * g.voxelRowAspect;
  return static_cast<float>(M_PI / g.sinogramShape.views / area);
}

} // namespace

float
directReconFilterScale(const Geometry & geometry)
{
  return std::visit([](const auto & g) { return filterScale(g); }, geometry);
}

void
directReconOnDevice(const Projector & projector, const float * sinogram, float * volume)
{
  Backend &           backend = projector.backend();
  const CylinderBatch ror = projector.rorCylinders();
  DeviceArray<float>  filtered = backend.allocate<float>(projector.sinogramSize());
  backend.rampFilter(
    sinogram, projector.sinogramShape(), directReconFilterScale(projector.geometry()), filtered.data());
  DeviceArray<float> values = backend.allocate<float>(static_cast<std::size_t>(ror.numPixels) * ror.numSlices);
  backend.backProject(projector.deviceModel(), ror, filtered.data(), nullptr, projector.allViews(), 1, values.data());
  // Overwrite the ROR cylinders: subtract what is there, then add the result.
  filtered = DeviceArray<float>();
  DeviceArray<float> previous = backend.allocate<float>(values.size());
  backend.gatherCylinders(volume, ror, previous.data());
  backend.scatterAddCylinders(-1.0f, previous.data(), ror, volume);
  backend.scatterAddCylinders(1.0f, values.data(), ror, volume);
}

std::vector<float>
directRecon(const Projector & projector, const std::vector<float> & sinogram)
{
  Backend &          backend = projector.backend();
  const ArrayView3   checked(sinogram, projector.sinogramShape());
  DeviceArray<float> deviceSino = backend.allocate<float>(projector.sinogramSize());
  backend.uploadSinogram(checked.data, projector.sinogramShape(), deviceSino.data());
  DeviceArray<float> volume = backend.allocate<float>(projector.reconShape().size());
  directReconOnDevice(projector, deviceSino.data(), volume.data());
  std::vector<float> result(projector.reconShape().size());
  backend.copyToHost(volume.data(), result.data(), result.size() * sizeof(float));
  return result;
}

} // namespace mbir
