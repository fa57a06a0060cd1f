#pragma once
// The per-device executor (ARCHITECTURE.md rule 3): coarse operations on one device's data. The
// algorithms are written against this interface; the CPU (OpenMP) and CUDA backends implement it by
// running the shared kernels of include/mbir/kernels/.

#include "mbir/DeviceArray.h"
#include "mbir/Geometry.h"
#include "mbir/Shapes.h"
#include "mbir/kernels/QGGMRF.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace mbir {

// A device's copy of one geometry: kernel parameters plus a pointer to the view table in device memory.
template<typename Params>
struct GeometryModel
{
  using View = typename Params::View;
  Params       params;
  const View * views = nullptr;
};
template<typename G>
using GeometryModelOf = GeometryModel<decltype(std::declval<const G &>().kernelParams())>;

template<typename Variant>
struct DeviceModelsOf;
template<typename... G>
struct DeviceModelsOf<std::variant<G...>>
{
  using type = std::variant<GeometryModelOf<G>...>;
};
// One alternative per geometry, in the order of the Geometry variant.
using DeviceModel = DeviceModelsOf<Geometry>::type;
using ParallelBeamModel = GeometryModelOf<ParallelBeamGeometry>;

// Views [first, first + count) of the geometry's view table. A sinogram buffer passed with a range
// holds exactly those views, in the detector-column layout [view][channel][row].
struct ViewRange
{
  int first = 0;
  int count = 0;
};

// A batch of voxel cylinders: `pixels[b]` is the flat pixel index (row * cols + col) of cylinder b,
// whose `numSlices` values are contiguous at values + b * numSlices and hold the global slices
// [firstSlice, firstSlice + numSlices): a whole cylinder, or one device's share or band of it. Slices at
// or beyond the geometry's slice count (padding) are never read by projections and never written.
struct CylinderBatch
{
  const int * pixels = nullptr; // device memory
  int         numPixels = 0;
  int         numSlices = 0;
  int         firstSlice = 0;
};

// A ramp filter's direction on the detector, in (channel, row) frequency units; see Backend::rampFilter.
struct RampDirection
{
  float channel = 0.0f;
  float row = 0.0f;
};

// Backends are made by the factories below as std::shared_ptr; each allocation keeps its backend alive.
class Backend : public std::enable_shared_from_this<Backend>
{
public:
  virtual ~Backend() = default;

  // For logs, e.g. "CPU (2 threads)" or "GPU 0 (NVIDIA H200)".
  virtual std::string
  description() const = 0;

  enum class Kind
  {
    Cpu,
    Gpu
  };
  virtual Kind
  kind() const = 0;
  // A device another process owns (ProcessGroup.h): it holds nothing here and its operations do nothing.
  virtual bool
  remote() const
  {
    return false;
  }
  // Host threads a CPU device computes with (0 for a GPU).
  virtual int
  threadCount() const
  {
    return 0;
  }

  // Zero-filled device memory; OutOfDeviceMemory when the device cannot hold it (or it would pass the
  // memory limit), naming the device, what was asked for and what is free. The memory keeps this backend alive
  // (when a std::shared_ptr owns it), so it may outlive every other handle on it.
  DeviceAllocation
  allocateBytes(std::size_t bytes);

  // Memory: what the device could still allocate (free GPU memory; for the CPU the host's available
  // memory), and an optional cap on what this device may hold (0: none), e.g. to leave room for other
  // work on a shared machine. availableBytes() is the smaller of the two.
  virtual std::size_t
  freeBytes() const = 0;
  void
  setMemoryLimit(std::size_t bytes)
  {
    m_MemoryLimit = bytes;
  }
  std::size_t
  memoryLimit() const
  {
    return m_MemoryLimit;
  }
  std::size_t
  availableBytes() const;
  // Devices with the same memoryPool() draw on the same memory: every CPU device on the host's (-1), a
  // GPU on its own (its CUDA device index), however many backends use it.
  virtual int
  memoryPool() const = 0;
  // The most device memory the backend's own operations (ramp filter, projections) take besides their
  // inputs and outputs, on sinogram shards of this shape.
  virtual std::size_t
  workspaceBytes(const SinogramShape &) const
  {
    return 0;
  }
  // Transfers between host and device memory; counted (see transfers()).
  void
  copyToDevice(const void * host, void * device, std::size_t bytes)
  {
    countUpload(bytes);
    writeDevice(host, device, bytes);
  }
  void
  copyToHost(const void * device, void * host, std::size_t bytes)
  {
    countDownload(bytes);
    readDevice(device, host, bytes);
  }
  // `rows` rows of `rowBytes` bytes from `source` (rows `sourcePitch` bytes apart) into device memory
  // (rows `devicePitch` bytes apart): one shard's slices of every cylinder of a volume. The source is host
  // memory, or on a GPU backend any CUDA device's memory. Counted as an upload.
  void
  copyRowsToDevice(const void * source,
                   std::size_t  sourcePitch,
                   void *       device,
                   std::size_t  devicePitch,
                   std::size_t  rowBytes,
                   std::size_t  rows)
  {
    countUpload(rowBytes * rows);
    writeDeviceRows(source, sourcePitch, device, devicePitch, rowBytes, rows);
  }
  virtual void
  fillZero(void * device, std::size_t bytes) = 0;
  // Waits until the device has done the work given to it so far. Results never need it (the device keeps
  // its work in order, and downloads and scalars wait for it); timing does. The CPU works synchronously.
  virtual void
  synchronize()
  {}

  // Converts between the public sinogram layout (views, rows, channels) on the host and the device's
  // detector-column layout [view][channel][row], in which a column matches a voxel cylinder.
  void
  uploadSinogram(const float * host, const SinogramShape & shape, float * device)
  {
    countUpload(shape.size() * sizeof(float));
    writeSinogram(host, shape, device);
  }
  void
  downloadSinogram(const float * device, const SinogramShape & shape, float * host)
  {
    countDownload(shape.size() * sizeof(float));
    readSinogram(device, shape, host);
  }

  // sinogram(views) += A(views, cylinders) * values
  virtual void
  forwardProject(const DeviceModel &   model,
                 const CylinderBatch & cylinders,
                 const float *         values,
                 const ViewRange &     views,
                 float *               sinogram) = 0;
  // forwardProject, then the sum of w .* v .* v over the first `entries` entries v of the sinogram (w from
  // `weights`, 1 where null): the line search's norm of a VCD change. The sinogram must be 0 where the projection
  // does not write, which lets a backend sum each part of it as it finishes projecting there, while it is in cache;
  // by default the sum is a pass of its own.
  virtual double
  forwardProjectAndNorm(const DeviceModel &   model,
                        const CylinderBatch & cylinders,
                        const float *         values,
                        const ViewRange &     views,
                        const float *         weights,
                        std::size_t           entries,
                        float *               sinogram);

  // values += (A(views, cylinders) .^ power)^T * (weights .* sinogram(views)), weights == nullptr meaning
  // 1; power 1 is the back projection, 2 the Hessian diagonal when the sinogram holds the weights.
  virtual void
  backProject(const DeviceModel &   model,
              const CylinderBatch & cylinders,
              const float *         sinogram,
              const float *         weights,
              const ViewRange &     views,
              int                   power,
              float *               values) = 0;
  // VCD's error update, deferred to the next subset's back projection of the error: sinogram += scale * change over
  // the first `entries` entries, then change = 0 (as addScaledAndClear).
  struct PendingUpdate
  {
    float *     sinogram = nullptr;
    float *     change = nullptr;
    float       scale = 0.0f;
    std::size_t entries = 0;
  };
  // backProject of update.sinogram once the update is applied: one pass where a backend applies it view by view as
  // the back projection reaches each view, which then reads the view from cache (the CPU's); the update, then the
  // back projection, by default.
  virtual void
  backProjectUpdated(const PendingUpdate & update,
                     const DeviceModel &   model,
                     const CylinderBatch & cylinders,
                     const float *         weights,
                     const ViewRange &     views,
                     int                   power,
                     float *               values);

  // Ramp-filters each view of a sinogram in the device layout: view v is convolved with the band-limited
  // ramp along the detector direction (channel, row) of directions[v], whose frequency response is
  // about |channel * f_u + row * f_v| (f in cycles per sample; exactly the Ram-Lak kernel of
  // spec/projectors.md §1.5 scaled by |channel| when row == 0). `in` and `out` may be the same buffer.
  virtual void
  rampFilter(const float *                      in,
             const SinogramShape &              shape,
             const std::vector<RampDirection> & directions,
             float *                            out) = 0;

  // --- vector operations on n floats ----------------------------------------------------------------------
  // x[i] *= factors[i % period]: a per-detector-cell weight on every view, or a per-slice one on a volume.
  virtual void
  multiplyPeriodic(const float * factors, std::size_t period, float * x, std::size_t n) = 0;
  // out = numerator / denominator where denominator > 0, else 0.
  virtual void
  divideWherePositive(const float * numerator, const float * denominator, float * out, std::size_t n) = 0;
  virtual void
  copy(const float * source, float * destination, std::size_t n) = 0;
  // `rows` runs of `width` floats within this device, pitches in floats: destination + r * destinationPitch =
  // source + r * sourcePitch. Moves whole cylinders to and from the owner-major blocks of the collectives.
  virtual void
  copyRows(const float * source,
           std::size_t   sourcePitch,
           float *       destination,
           std::size_t   destinationPitch,
           std::size_t   width,
           std::size_t   rows) = 0;
  virtual void
  fill(float value, float * x, std::size_t n) = 0;
  // y = a * x + b * y
  virtual void
  axpby(float a, const float * x, float b, float * y, std::size_t n) = 0;
  // y += a * x, then x = 0: VCD's error update, which leaves the predicted change clear for the next subset. One
  // pass where a backend can fuse them (the CPU's); these two by default.
  virtual void
  addScaledAndClear(float a, float * x, float * y, std::size_t n)
  {
    axpby(a, x, 1.0f, y, n);
    fillZero(x, n * sizeof(float));
  }
  virtual double
  sumAbs(const float * x, std::size_t n) = 0;
  // Sums of w .* a .* b and w .* b .* b (w == nullptr meaning 1), within 1e-6 of the sum of the terms' magnitudes
  // (the CPU adds up float partial sums in double).
  struct WeightedProducts
  {
    double ab = 0.0;
    double bb = 0.0;
  };
  virtual WeightedProducts
  weightedProducts(const float * a, const float * b, const float * w, std::size_t n) = 0;

  // --- operations on voxel cylinders of a volume (pixels x slices, slices contiguous) ---------------------
  // Sets slices [firstSlice, lastSlice) of every one of numPixels cylinders of `slices` values to `value`
  // (a constant start inside a shard's real slices, or zeros over its padding).
  virtual void
  fillSlices(float value, float * volume, std::size_t numPixels, int slices, int firstSlice, int lastSlice) = 0;
  // out(b, :) = volume(pixel b, :)
  virtual void
  gatherCylinders(const float * volume, const CylinderBatch & cylinders, float * out) = 0;
  // out(b) = volume(pixel b, localSlice): one slice of the cylinders (the halos of a slice shard).
  virtual void
  gatherSlice(const float * volume, const CylinderBatch & cylinders, int localSlice, float * out) = 0;
  // volume(pixel b, :) += alpha * values(b, :); returns the sum of |alpha * values|.
  virtual double
  scatterAddCylinders(float alpha, const float * values, const CylinderBatch & cylinders, float * volume) = 0;

  // qGGMRF gradient and surrogate-Hessian diagonal at the cylinders (spec/solver.md §1.3) of a volume
  // shard of `shape` (local slices), lying at `shard` in the whole volume; neighbours outside the volume
  // count as the voxel itself. `below` / `above` hold, per cylinder of the batch, the slice just before /
  // after the shard (nullptr at the volume's ends). Padding slices get gradient 0.
  virtual void
  qggmrfGradientHessian(const kernels::QGGMRFParams & prior,
                        const float *                 volume,
                        const ReconShape &            shape,
                        const kernels::SliceShard &   shard,
                        const CylinderBatch &         cylinders,
                        const float *                 below,
                        const float *                 above,
                        float *                       gradient,
                        float *                       hessian) = 0;
  // The qGGMRF prior h(x) of a volume shard: each adjacent pair once, weighted by its axis's neighbour
  // weight; `abovePlane` (all pixels of the slice after the shard, nullptr at the end) closes the pairs
  // that cross into the next shard.
  virtual double
  qggmrfCost(const kernels::QGGMRFParams & prior,
             const float *                 volume,
             const ReconShape &            shape,
             const kernels::SliceShard &   shard,
             const float *                 abovePlane) = 0;

  // The denoiser's noise statistic on a slice shard of `shape` (every row and column, shape.slices per
  // cylinder, the first `validSlices` real): over the real voxels >= threshold, the sum of
  // kernels::localDeviationAt (as ab) and their count (as bb). `previousSlice`: see localDeviationAt.
  virtual WeightedProducts
  localDeviationSums(const float *      volume,
                     const ReconShape & shape,
                     int                validSlices,
                     const float *      previousSlice,
                     double             threshold) = 0;

  // The VCD step direction of one subset (spec/solver.md §3.5): with g = -(dataScale * backProjection) +
  // priorGradient and h = dataScale * dataHessian + priorHessian, delta = -g / h. dataHessian == nullptr
  // means 1. Returns the line search's whole linear term sum(-g .* delta) (its data part, dataScale *
  // delta . A^T W e, equals dataScale * sum(W e .* A delta) without a pass over the sinogram) and the
  // prior's quadratic term sum(priorHessian .* delta.^2).
  struct DirectionSums
  {
    double linear = 0.0;
    double priorQuadratic = 0.0;
  };
  virtual DirectionSums
  vcdDirection(float         dataScale,
               const float * backProjection,
               const float * dataHessian,
               const float * priorGradient,
               const float * priorHessian,
               std::size_t   n,
               float *       delta) = 0;
  // delta = max(delta, -x / (alpha + eps)) so that x + alpha * delta stays >= 0.
  virtual void
  clipForPositivity(const float * x, float alpha, std::size_t n, float * delta) = 0;

  template<typename T>
  DeviceArray<T>
  allocate(std::size_t count)
  {
    return DeviceArray<T>(allocateBytes(count * sizeof(T)), count);
  }
  template<typename T>
  DeviceArray<T>
  upload(const T * host, std::size_t count)
  {
    DeviceArray<T> array = allocate<T>(count);
    copyToDevice(host, array.data(), count * sizeof(T));
    return array;
  }

  // Host-to-device and device-to-host transfers made through this backend so far.
  struct TransferCounts
  {
    std::size_t uploads = 0;
    std::size_t uploadedBytes = 0;
    std::size_t downloads = 0;
    std::size_t downloadedBytes = 0;
  };
  TransferCounts
  transfers() const
  {
    return TransferCounts{ m_Uploads.load(), m_UploadedBytes.load(), m_Downloads.load(), m_DownloadedBytes.load() };
  }

  // Bytes this backend has allocated and not yet released, and the most it has held at once.
  std::size_t
  bytesInUse() const
  {
    return m_BytesInUse.load();
  }
  std::size_t
  peakBytes() const
  {
    return m_PeakBytes.load();
  }

protected:
  // Zero-filled memory of this device; OutOfDeviceMemory when it fails.
  virtual DeviceAllocation
  allocateOnDevice(std::size_t bytes) = 0;
  // The message of OutOfDeviceMemory for an allocation of `bytes` that failed or would not fit.
  std::string
  outOfMemoryMessage(std::size_t bytes) const;

  // The transfers themselves, uncounted; the sinogram ones convert between the public layout on the host
  // and the device layout.
  virtual void
  writeDevice(const void * host, void * device, std::size_t bytes) = 0;
  virtual void
  readDevice(const void * device, void * host, std::size_t bytes) = 0;
  virtual void
  writeSinogram(const float * host, const SinogramShape & shape, float * device) = 0;
  virtual void
  readSinogram(const float * device, const SinogramShape & shape, float * host) = 0;
  virtual void
  writeDeviceRows(const void * source,
                  std::size_t  sourcePitch,
                  void *       device,
                  std::size_t  devicePitch,
                  std::size_t  rowBytes,
                  std::size_t  rows) = 0;

  void
  recordAllocation(std::size_t bytes);
  void
  recordRelease(std::size_t bytes)
  {
    m_BytesInUse -= bytes;
  }

private:
  void
  countUpload(std::size_t bytes)
  {
    ++m_Uploads;
    m_UploadedBytes += bytes;
  }
  void
  countDownload(std::size_t bytes)
  {
    ++m_Downloads;
    m_DownloadedBytes += bytes;
  }

  std::atomic<std::size_t> m_Uploads{ 0 };
  std::atomic<std::size_t> m_UploadedBytes{ 0 };
  std::atomic<std::size_t> m_Downloads{ 0 };
  std::atomic<std::size_t> m_DownloadedBytes{ 0 };
  std::atomic<std::size_t> m_BytesInUse{ 0 };
  std::atomic<std::size_t> m_PeakBytes{ 0 };
  std::size_t              m_MemoryLimit = 0;
};

// A device cannot hold what a call needs: raised before anything is allocated when the memory plan sees
// it coming (MemoryPlan.h), or by an allocation that fails.
class OutOfDeviceMemory : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

// "512 B", "12.3 MiB", "1.50 GiB": byte counts for messages and logs.
std::string
formatBytes(std::size_t bytes);

// The threads a CPU backend takes unless told: MBIR_NUM_THREADS when set (std::runtime_error when it is not a
// positive integer); else OMP_NUM_THREADS when set; else the CPUs this process may use (its affinity mask and its
// cgroup's CPU quota, which taskset, Slurm and containers set), less those that other processes keep busy, measured
// once per process, at the first call (README "CPU threads and speed").
int
defaultCpuThreads();

// The rule of defaultCpuThreads: min(usableCpus, ceil(cpuQuota) where > 0, onlineCpus - busyElsewhere), at least 1.
int
cpuThreadBudget(int usableCpus, double cpuQuota, int onlineCpus, int busyElsewhere);

// defaultCpuThreads() threads unless numThreads > 0. Its kernels take the best instruction-set path of
// cpuKernelPaths(), or the one the environment variable MBIR_CPU_DISPATCH names (checked at each call;
// std::runtime_error when this build or this CPU lacks it).
std::shared_ptr<Backend>
makeCpuBackend(int numThreads = 0);

// The CPU backend's instruction-set paths that this build has and this CPU runs, from baseline to best:
// "baseline" (x86-64, SSE2), "avx2" (AVX2 + FMA), "avx512" (AVX-512 F, VL, BW, DQ); just "native" in a
// -DMBIR_NATIVE_CPU=ON build, just "baseline" where the paths are not built (compilers other than GCC,
// other processors).
std::vector<std::string>
cpuKernelPaths();

// The path makeCpuBackend() takes now (MBIR_CPU_DISPATCH or the best); throws as makeCpuBackend does.
std::string
cpuKernelPath();

// Number of usable CUDA devices; 0 when the engine was built without CUDA or no driver/GPU is present.
int
cudaDeviceCount();

// Why no GPU can be used (empty when one can): no CUDA in this build, no driver, no device...
std::string
cudaUnavailableReason();

// Throws std::runtime_error saying why when CUDA is unavailable or the index is out of range.
std::shared_ptr<Backend>
makeCudaBackend(int deviceIndex = 0);

} // namespace mbir
