#pragma once
// Forward and back projection, and the Hessian diagonal, of one geometry over the devices of a group:
// the sinogram split by view, the volume by slice (ARCHITECTURE.md "One reconstruction, as data"). A
// back projection is a reduce-scatter by slice (each device back-projects its views onto whole
// cylinders, the owners of the slices sum them), a forward projection an all-gather (every owner's
// slices reach every device, which projects the whole cylinders onto its views), in chunks of cylinders
// a fraction of a volume shard big, so transient memory does not grow with the problem.
// Parallel beam over several GPUs of one process instead splits the solver's sinograms by detector row
// (SinogramSplit::ByRow): slice k meets row k only, so each device projects its slices onto its rows of every
// view and nothing is exchanged.
// The host-array methods take and return the public layouts; the arrays passed in are never modified.

#include "mbir/Backend.h"
#include "mbir/DeviceData.h"
#include "mbir/Geometry.h"

#include <memory>
#include <optional>
#include <vector>

namespace mbir {

// How the sinogram shards that forward() and back() read and write are split over the devices.
enum class SinogramSplit
{
  ByView, // device d: views viewLayout() of d, every row ([view][channel][row]); any geometry (DeviceSinogram's split)
  ByRow   // device d: every view, the rows of its slices (sliceLayout().valid(d) of them); parallel beam in one process
};

class Projector
{
public:
  // Validates the geometry (std::invalid_argument on bad parameters) and puts its view table and pixel
  // lists on every device.
  Projector(Geometry geometry, std::shared_ptr<const DeviceGroup> devices);
  // On one device.
  Projector(Geometry geometry, std::shared_ptr<Backend> device);

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
  int
  numDevices() const
  {
    return m_Group->size();
  }
  Backend &
  device(int d) const
  {
    return m_Group->device(d);
  }
  const ShardLayout &
  viewLayout() const
  {
    return m_Views;
  }
  const ShardLayout &
  sliceLayout() const
  {
    return m_Slices;
  }
  // "2 x CPU (sharded, 8 threads) (slices padded 63->64)"
  std::string
  deviceSummary() const
  {
    return m_Group->summary(m_Views, m_Slices);
  }

  // Device d's copy of the geometry, its real views, and its ROR and all pixels as cylinder batches over
  // its slice shard.
  const DeviceModel &
  deviceModel(int d) const
  {
    return m_Devices[d].model;
  }
  ViewRange
  views(int d) const
  {
    return ViewRange{ m_Views.first(d), m_Views.valid(d) };
  }
  CylinderBatch
  rorCylinders(int d) const;
  CylinderBatch
  allCylinders(int d) const;
  // Sizes of one device's sinogram shard and volume shard, padding included.
  std::size_t
  sinogramShardSize() const
  {
    return static_cast<std::size_t>(m_Views.perDevice) * sinogramShape().rows * sinogramShape().channels;
  }
  std::size_t
  volumeShardSize() const
  {
    return reconShape().numPixels() * m_Slices.perDevice;
  }

  // Floats each device takes besides inputs and outputs to forward- or back-project `pixels` cylinders
  // split over `numDevices` devices (the chunk buffers of the all-gather and reduce-scatter; none by row).
  std::size_t
  projectionWorkFloats(std::size_t pixels, int numDevices, SinogramSplit split = SinogramSplit::ByView) const;

  // The split an MBIR solve works in on `numDevices` devices (this projector's count when 0): by row for parallel
  // beam on several devices of this process with memories of their own (GPUs), else by view.
  // MBIR_SINOGRAM_SPLIT=row (where it applies) or view overrides the choice, to compare the two.
  SinogramSplit
  solverSplit(int numDevices = 0) const;
  // The floats of one device's shard in a split (padding included; the same on every device), and how many of
  // device d's come first and are real.
  std::size_t
  shardSize(SinogramSplit split) const;
  std::size_t
  realShardSize(SinogramSplit split, int d) const;
  // Copies a sinogram (split by view) into shards split by `split`, device by device; shards[d] holds
  // shardSize(split) floats.
  void
  copyInSplit(const DeviceSinogram & sinogram, SinogramSplit split, const std::vector<float *> & shards) const;

  // --- distributed operations on shards; `batches[d]` names the same cylinders on device d, whose
  // values on device d are that device's slices (numSlices = the slice share). -------------------------
  // What forward() also works out where asked: sums[d], the sum of w .* v .* v over the first entries[d] entries v of
  // sinograms[d] once projected (w from weights[d], 1 where null), the line search's norm of a VCD change. The
  // sinograms must be 0 where the projection does not write.
  struct SquaredNorms
  {
    std::vector<const float *> weights;
    std::vector<std::size_t>   entries;
    std::vector<double>        sums;
  };
  // sinograms[d] += A(views of d, cylinders) values
  void
  forward(SinogramSplit                      split,
          const std::vector<CylinderBatch> & batches,
          const std::vector<const float *> & values,
          const std::vector<float *> &       sinograms,
          SquaredNorms *                     norms = nullptr) const;
  // values[d] = (A .^ power)^T (weights .* sinograms) over every device's views, at device d's slices;
  // weights empty means 1. Where `pending` is given, device d first applies pending[d] to its sinogram
  // (pending[d].sinogram == sinograms[d]): VCD's deferred error update (Backend::backProjectUpdated).
  void
  back(SinogramSplit                               split,
       const std::vector<const float *> &          sinograms,
       const std::vector<const float *> &          weights,
       int                                         power,
       const std::vector<CylinderBatch> &          batches,
       const std::vector<float *> &                values,
       const std::vector<Backend::PendingUpdate> & pending = {}) const;

  // A x over the ROR cylinders; voxels outside the ROR are ignored.
  DeviceSinogram
  forwardProject(const DeviceVolume & recon) const;
  std::vector<float>
  forwardProject(const float * recon) const;
  // A^T y on the ROR cylinders; zero outside the ROR.
  DeviceVolume
  backProject(const DeviceSinogram & sinogram) const;
  std::vector<float>
  backProject(const float * sinogram) const;
  // diag(A^T W A) over all pixels; weights == nullptr means W = 1.
  DeviceVolume
  hessianDiagonal(const DeviceSinogram * weights) const;
  std::vector<float>
  hessianDiagonal(const float * weights) const;

  // A x for the cylinders values (pixels.size(), slices) at the given flat pixel indices.
  std::vector<float>
  sparseForwardProject(const float * values, const std::vector<int> & pixels) const;
  // (A .^ power)^T y at the given pixels, shape (pixels.size(), slices).
  std::vector<float>
  sparseBackProject(const float * sinogram, const std::vector<int> & pixels, int power = 1) const;

  // Throws std::invalid_argument unless the data live on this projector's devices and have its shapes.
  void
  checkOnDevices(const DeviceSinogram & sinogram, const char * what) const;
  void
  checkOnDevices(const DeviceVolume & volume, const char * what) const;

  // Pixel indices on every device, for cylinder batches.
  std::vector<DeviceArray<int>>
  uploadPixels(const std::vector<int> & pixels) const;
  std::vector<CylinderBatch>
  batchesOf(const std::vector<DeviceArray<int>> & pixels) const;

private:
  struct PerDevice
  {
    DeviceAllocation viewTable;
    DeviceModel      model;
    DeviceArray<int> rorPixels;
    DeviceArray<int> allPixels;
    DeviceModel      rowModel; // parallel beam: the geometry of this device's rows alone
  };

  void
  checkPixels(const std::vector<int> & pixels) const;
  std::size_t
  cylindersPerChunk(std::size_t pixels, const ShardLayout & slices) const;
  // By row: each device projects its slices onto its rows of every view, alone.
  void
  forwardByRow(const std::vector<CylinderBatch> & batches,
               const std::vector<const float *> & values,
               const std::vector<float *> &       sinograms,
               SquaredNorms *                     norms) const;
  // Device d's forwardProject, with its norm where asked (last: the call that completes its sinogram).
  void
  forwardOn(int                   d,
            const DeviceModel &   model,
            const CylinderBatch & batch,
            const float *         values,
            const ViewRange &     views,
            float *               sinogram,
            SquaredNorms *        norms) const;
  // Device d's backProject, after the pending update where one is given (null: none).
  void
  backOn(int                            d,
         const DeviceModel &            model,
         const CylinderBatch &          batch,
         const float *                  sinogram,
         const float *                  weights,
         const ViewRange &              views,
         int                            power,
         float *                        values,
         const Backend::PendingUpdate * pending) const;
  void
  backByRow(const std::vector<const float *> &          sinograms,
            const std::vector<const float *> &          weights,
            int                                         power,
            const std::vector<CylinderBatch> &          batches,
            const std::vector<float *> &                values,
            const std::vector<Backend::PendingUpdate> & pending) const;

  Geometry                           m_Geometry;
  std::shared_ptr<const DeviceGroup> m_Group;
  ShardLayout                        m_Views;
  ShardLayout                        m_Slices;
  std::vector<int>                   m_RorPixels;
  std::vector<PerDevice>             m_Devices;
  std::optional<SinogramSplit>       m_RequestedSplit; // MBIR_SINOGRAM_SPLIT
};

} // namespace mbir
