// The CUDA backend: device memory from cudaMalloc, kernels that launch the shared math of
// include/mbir/kernels/ over GPU threads.

#include "mbir/Backend.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace mbir {
namespace {

void
check(cudaError_t status, const char * what)
{
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
  }
}

constexpr int kTransposeTile = 32;
constexpr int kForwardGroup = 32; // cylinders per forward block; their footprints are shared
constexpr int kBackViews = 128;   // views whose footprints a back-projection block stages at once
constexpr int kThreads = 128;

// out[v] = transpose(in[v]) for each (rows x cols) matrix v = blockIdx.z.
__global__ void
transposeViewsKernel(const float * in, int rows, int cols, float * out)
{
  __shared__ float  tile[kTransposeTile][kTransposeTile + 1];
  const std::size_t offset = static_cast<std::size_t>(blockIdx.z) * rows * cols;
  const int         c = blockIdx.x * kTransposeTile + threadIdx.x;
  for (int dy = threadIdx.y; dy < kTransposeTile; dy += blockDim.y)
  {
    const int r = blockIdx.y * kTransposeTile + dy;
    if (r < rows && c < cols)
    {
      tile[dy][threadIdx.x] = in[offset + static_cast<std::size_t>(r) * cols + c];
    }
  }
  __syncthreads();
  const int r = blockIdx.y * kTransposeTile + threadIdx.x;
  for (int dy = threadIdx.y; dy < kTransposeTile; dy += blockDim.y)
  {
    const int cc = blockIdx.x * kTransposeTile + dy;
    if (r < rows && cc < cols)
    {
      out[offset + static_cast<std::size_t>(cc) * rows + r] = tile[threadIdx.x][dy];
    }
  }
}

// Block (group of cylinders, view); threads run along the detector column, so writes are coalesced.
__global__ void
forwardParallelBeamKernel(kernels::ParallelBeamParams       p,
                          const kernels::ParallelBeamView * views,
                          int                               firstView,
                          const int *                       pixels,
                          int                               numPixels,
                          int                               rows,
                          const float *                     values,
                          float *                           sinogram)
{
  __shared__ kernels::Footprint footprints[kForwardGroup];
  const int                     lv = blockIdx.y;
  const int                     first = blockIdx.x * kForwardGroup;
  const int                     count = min(kForwardGroup, numPixels - first);
  if (threadIdx.x < count)
  {
    footprints[threadIdx.x] =
      kernels::parallelBeamChannelFootprint(p, views[firstView + lv], pixels[first + threadIdx.x]);
  }
  __syncthreads();
  float * sinoView = sinogram + static_cast<std::size_t>(lv) * p.numDetChannels * rows;
  for (int k = threadIdx.x; k < rows; k += blockDim.x)
  {
    for (int g = 0; g < count; ++g)
    {
      const float x = values[static_cast<std::size_t>(first + g) * rows + k];
      if (x == 0.0f)
      {
        continue;
      }
      const kernels::Footprint fp = footprints[g];
      for (int n = fp.first; n <= fp.last; ++n)
      {
        atomicAdd(sinoView + static_cast<std::size_t>(n) * rows + k, fp.weight(n) * x);
      }
    }
  }
}

// Block per cylinder; threads run along the cylinder and gather over views: no atomics.
__global__ void
backParallelBeamKernel(kernels::ParallelBeamParams       p,
                       const kernels::ParallelBeamView * views,
                       int                               firstView,
                       int                               numViews,
                       const int *                       pixels,
                       int                               rows,
                       int                               power,
                       const float *                     sinogram,
                       float *                           values)
{
  __shared__ kernels::Footprint footprints[kBackViews];
  const int                     b = blockIdx.x;
  const int                     pixel = pixels[b];
  const std::size_t             viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
  for (int k0 = 0; k0 < rows; k0 += blockDim.x)
  {
    const int k = k0 + threadIdx.x;
    float     sum = 0.0f;
    for (int v0 = 0; v0 < numViews; v0 += kBackViews)
    {
      const int count = min(kBackViews, numViews - v0);
      __syncthreads();
      for (int t = threadIdx.x; t < count; t += blockDim.x)
      {
        footprints[t] = kernels::parallelBeamChannelFootprint(p, views[firstView + v0 + t], pixel);
      }
      __syncthreads();
      if (k < rows)
      {
        for (int t = 0; t < count; ++t)
        {
          const kernels::Footprint fp = footprints[t];
          const float *            sinoView = sinogram + (v0 + t) * viewSize;
          for (int n = fp.first; n <= fp.last; ++n)
          {
            sum += kernels::coefficientPower(fp.weight(n), power) * sinoView[static_cast<std::size_t>(n) * rows + k];
          }
        }
      }
    }
    if (k < rows)
    {
      values[static_cast<std::size_t>(b) * rows + k] += sum;
    }
  }
}

class CudaBackend final : public Backend
{
public:
  explicit CudaBackend(int device)
    : m_Device(device)
  {
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    m_Name = properties.name;
  }

  std::string
  description() const override
  {
    return "GPU " + std::to_string(m_Device) + " (" + m_Name + ")";
  }

  DeviceAllocation
  allocateBytes(std::size_t bytes) override
  {
    select();
    void * p = nullptr;
    if (bytes)
    {
      const cudaError_t status = cudaMalloc(&p, bytes);
      if (status != cudaSuccess)
      {
        cudaGetLastError(); // clear the sticky-free error state of a failed allocation
        std::size_t freeBytes = 0, totalBytes = 0;
        cudaMemGetInfo(&freeBytes, &totalBytes);
        throw std::runtime_error("out of GPU memory on " + description() + ": needed " + std::to_string(bytes >> 20) +
                                 " MiB more, " + std::to_string(freeBytes >> 20) + " MiB free of " +
                                 std::to_string(totalBytes >> 20) + " MiB; use more devices or a smaller problem");
      }
      check(cudaMemset(p, 0, bytes), "cudaMemset");
    }
    recordAllocation(bytes);
    return DeviceAllocation(p, bytes, [this](void * q, std::size_t n) {
      cudaSetDevice(m_Device);
      cudaFree(q);
      recordRelease(n);
    });
  }

  void
  copyToDevice(const void * host, void * device, std::size_t bytes) override
  {
    select();
    check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "copyToDevice");
  }
  void
  copyToHost(const void * device, void * host, std::size_t bytes) override
  {
    select();
    check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "copyToHost");
  }
  void
  fillZero(void * device, std::size_t bytes) override
  {
    select();
    check(cudaMemset(device, 0, bytes), "fillZero");
  }

  void
  uploadSinogram(const float * host, const SinogramShape & s, float * device) override
  {
    DeviceArray<float> staging = upload(host, s.size());
    transposeViews(staging.data(), s.rows, s.channels, s.views, device);
  }
  void
  downloadSinogram(const float * device, const SinogramShape & s, float * host) override
  {
    DeviceArray<float> staging = allocate<float>(s.size());
    transposeViews(device, s.channels, s.rows, s.views, staging.data());
    copyToHost(staging.data(), host, s.size() * sizeof(float));
  }

  void
  forwardProject(const DeviceModel &   model,
                 const CylinderBatch & cylinders,
                 const float *         values,
                 const ViewRange &     views,
                 float *               sinogram) override
  {
    select();
    std::visit([&](const auto & m) { forward(m, cylinders, values, views, sinogram); }, model);
    finish("forwardProject");
  }

  void
  backProject(const DeviceModel &   model,
              const CylinderBatch & cylinders,
              const float *         sinogram,
              const ViewRange &     views,
              int                   power,
              float *               values) override
  {
    select();
    std::visit([&](const auto & m) { back(m, cylinders, sinogram, views, power, values); }, model);
    finish("backProject");
  }

private:
  void
  select() const
  {
    check(cudaSetDevice(m_Device), "cudaSetDevice");
  }
  static void
  finish(const char * what)
  {
    check(cudaGetLastError(), what);
    check(cudaDeviceSynchronize(), what);
  }

  void
  transposeViews(const float * in, int rows, int cols, int views, float * out)
  {
    if (rows == 0 || cols == 0 || views == 0)
    {
      return;
    }
    const dim3 grid((cols + kTransposeTile - 1) / kTransposeTile, (rows + kTransposeTile - 1) / kTransposeTile, views);
    transposeViewsKernel<<<grid, dim3(kTransposeTile, 8)>>>(in, rows, cols, out);
    finish("transposeViews");
  }

  void
  forward(const ParallelBeamModel & m,
          const CylinderBatch &     batch,
          const float *             values,
          const ViewRange &         views,
          float *                   sinogram)
  {
    if (batch.numPixels == 0 || views.count == 0)
    {
      return;
    }
    const dim3 grid((batch.numPixels + kForwardGroup - 1) / kForwardGroup, views.count);
    forwardParallelBeamKernel<<<grid, kThreads>>>(
      m.params, m.views, views.first, batch.pixels, batch.numPixels, batch.numSlices, values, sinogram);
  }

  void
  back(const ParallelBeamModel & m,
       const CylinderBatch &     batch,
       const float *             sinogram,
       const ViewRange &         views,
       int                       power,
       float *                   values)
  {
    if (batch.numPixels == 0 || views.count == 0)
    {
      return;
    }
    backParallelBeamKernel<<<batch.numPixels, kThreads>>>(
      m.params, m.views, views.first, views.count, batch.pixels, batch.numSlices, power, sinogram, values);
  }

  int         m_Device;
  std::string m_Name;
};

} // namespace

int
cudaDeviceCount()
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess)
  {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::shared_ptr<Backend>
makeCudaBackend(int deviceIndex)
{
  const int count = cudaDeviceCount();
  if (count == 0)
  {
    throw std::runtime_error("no CUDA device is available (no GPU, or no driver); use the CPU backend");
  }
  if (deviceIndex < 0 || deviceIndex >= count)
  {
    throw std::runtime_error("CUDA device index " + std::to_string(deviceIndex) +
                             " is out of range: " + std::to_string(count) + " device(s) present");
  }
  return std::make_shared<CudaBackend>(deviceIndex);
}

} // namespace mbir
