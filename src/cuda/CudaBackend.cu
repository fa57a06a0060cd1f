// The CUDA backend: device memory from a stream-ordered pool per GPU, kernels that launch the shared math of
// include/mbir/kernels/ over GPU threads.

#include "mbir/Backend.h"

#include "mbir/kernels/LocalDeviation.h"
#include "mbir/kernels/RampFilter.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbir {
namespace {

void
check(cudaError_t status, const char * what)
{
  if (status == cudaErrorMemoryAllocation)
  {
    cudaGetLastError();
    throw OutOfDeviceMemory(std::string("out of GPU memory in ") + what +
                            "; use more devices, free memory held elsewhere, or reconstruct a smaller problem");
  }
  if (status != cudaSuccess)
  {
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
  }
}

constexpr int kTransposeTile = 32;
constexpr int kForwardGroup = 32; // cylinders per forward block; their footprints are shared
// Views sit on gridDim.y (forward) or gridDim.z (layout transpose), which hold at most 65,535: a longer
// range of views (a long helical scan) launches in chunks of that many.
constexpr int kMaxGridViews = 65535;
constexpr int kBackViews = 128; // views whose footprints a back-projection block stages at once
constexpr int kThreads = 128;

// Back projection of the row-map geometries.
constexpr int kRowMapThreads = 256;    // threads per block (one cylinder)
constexpr int kSlicesPerThread = 8;    // slices a thread sums in registers per pass over the views
constexpr int kMaxSharedColumn = 8192; // tallest detector whose column stays in shared memory (32 KiB)

constexpr std::size_t kScratchFloats = std::size_t(1) << 24; // global columns per launch for taller ones
constexpr std::size_t kFilterSamples = std::size_t(1) << 26; // real FFT samples per ramp-filter batch

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
// Cylinder values hold global slices [firstSlice, firstSlice + stride); slice k is detector row k.
__global__ void
forwardParallelBeamKernel(kernels::ParallelBeamParams       p,
                          const kernels::ParallelBeamView * views,
                          int                               firstView,
                          const int *                       pixels,
                          int                               numPixels,
                          int                               stride,
                          int                               firstSlice,
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
  const int rows = p.numDetRows;
  const int g0 = max(firstSlice, 0), g1 = min(firstSlice + stride, rows);
  float *   sinoView = sinogram + static_cast<std::size_t>(lv) * p.numDetChannels * rows;
  for (int k = g0 + threadIdx.x; k < g1; k += blockDim.x)
  {
    for (int g = 0; g < count; ++g)
    {
      const float x = values[static_cast<std::size_t>(first + g) * stride + (k - firstSlice)];
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
template<bool Weighted>
__global__ void
backParallelBeamKernel(kernels::ParallelBeamParams       p,
                       const kernels::ParallelBeamView * views,
                       int                               firstView,
                       int                               numViews,
                       const int *                       pixels,
                       int                               stride,
                       int                               firstSlice,
                       int                               power,
                       const float *                     sinogram,
                       const float *                     weights,
                       float *                           values)
{
  __shared__ kernels::Footprint footprints[kBackViews];
  const int                     b = blockIdx.x;
  const int                     pixel = pixels[b];
  const int                     rows = p.numDetRows;
  const int                     g0 = max(firstSlice, 0), g1 = min(firstSlice + stride, rows);
  const std::size_t             viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
  for (int k0 = g0; k0 < g1; k0 += blockDim.x)
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
      if (k < g1)
      {
        for (int t = 0; t < count; ++t)
        {
          const kernels::Footprint fp = footprints[t];
          const std::size_t        view = (v0 + t) * viewSize;
          for (int n = fp.first; n <= fp.last; ++n)
          {
            const std::size_t entry = view + static_cast<std::size_t>(n) * rows + k;
            const float       y = Weighted ? weights[entry] * sinogram[entry] : sinogram[entry];
            sum += kernels::coefficientPower(fp.weight(n), power) * y;
          }
        }
      }
    }
    if (k < g1)
    {
      values[static_cast<std::size_t>(b) * stride + (k - firstSlice)] += sum;
    }
  }
}

// Geometries with a row map (cone, translation, multi-axis). Block (group of cylinders, view); threads
// run along the detector rows and gather each row's value over the slices that reach it, through the
// same b(m, k) as the back projection (so the pair is an exact adjoint), then add it to the channels
// the cylinder hits: writes along a detector column are coalesced.
template<typename Params>
__global__ void
forwardRowMapKernel(Params                        p,
                    const typename Params::View * views,
                    int                           firstView,
                    const int *                   pixels,
                    int                           numPixels,
                    int                           stride,
                    int                           firstSlice,
                    const float *                 values,
                    float *                       sinogram)
{
  __shared__ kernels::PixelProjection projections[kForwardGroup];
  const int                           lv = blockIdx.y;
  const int                           first = blockIdx.x * kForwardGroup;
  const int                           count = min(kForwardGroup, numPixels - first);
  if (threadIdx.x < count)
  {
    projections[threadIdx.x] = kernels::pixelProjection(p, views[firstView + lv], pixels[first + threadIdx.x]);
  }
  __syncthreads();
  const int rows = p.numDetRows;
  const int g0 = max(firstSlice, 0), g1 = min(firstSlice + stride, p.reconSlices);
  float *   sinoView = sinogram + static_cast<std::size_t>(lv) * p.numDetChannels * rows;
  for (int g = 0; g < count && g0 < g1; ++g)
  {
    const kernels::PixelProjection proj = projections[g];
    if (proj.channels.last < proj.channels.first)
    {
      continue;
    }
    const kernels::RowRange reached = proj.rows.rowsReached(g0, g1 - 1, rows);
    const int               firstRow = reached.first, lastRow = reached.last;
    const float * x = values + static_cast<std::size_t>(first + g) * stride - firstSlice;
    for (int m = firstRow + threadIdx.x; m <= lastRow; m += blockDim.x)
    {
      int kFirst, kLast;
      proj.rows.slicesReaching(m, g1, kFirst, kLast);
      float column = 0.0f;
      for (int k = max(kFirst, g0); k <= kLast; ++k)
      {
        const kernels::Footprint fp = proj.rows.slice(k, rows);
        if (m >= fp.first && m <= fp.last)
        {
          column += fp.weight(m) * x[k];
        }
      }
      if (column == 0.0f)
      {
        continue;
      }
      for (int n = proj.channels.first; n <= proj.channels.last; ++n)
      {
        atomicAdd(sinoView + static_cast<std::size_t>(n) * rows + m, proj.channels.weight(n) * column);
      }
    }
  }
}

// Row-map geometries: block per cylinder, which it owns, so no atomics. Per view the block gathers the
// channels into one detector column (threads along the rows), then each thread sums that column over
// the footprint rows of its slices. The column lives in dynamic shared memory, or at scratch + block *
// rows when the detector is too tall for it.
template<bool Weighted, typename Params>
__global__ void
backRowMapKernel(Params                        p,
                 const typename Params::View * views,
                 int                           firstView,
                 int                           numViews,
                 const int *                   pixels,
                 int                           stride,
                 int                           firstSlice,
                 int                           power,
                 const float *                 sinogram,
                 const float *                 weights,
                 float *                       scratch,
                 float *                       values)
{
  extern __shared__ float sharedColumn[];
  __shared__ kernels::PixelProjection projections[kBackViews];
  const int                           rows = p.numDetRows;
  const int                           b = blockIdx.x;
  const int                           pixel = pixels[b];
  const std::size_t                   viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
  float *                             column = scratch ? scratch + static_cast<std::size_t>(b) * rows : sharedColumn;
  float *                             out = values + static_cast<std::size_t>(b) * stride - firstSlice;
  const int                           g0 = max(firstSlice, 0), g1 = min(firstSlice + stride, p.reconSlices);
  // Slices in passes of kSlicesPerThread per thread, so the sums stay in registers.
  for (int k0 = g0; k0 < g1; k0 += kSlicesPerThread * blockDim.x)
  {
    float sums[kSlicesPerThread] = {};
    for (int v0 = 0; v0 < numViews; v0 += kBackViews)
    {
      const int count = min(kBackViews, numViews - v0);
      __syncthreads();
      for (int t = threadIdx.x; t < count; t += blockDim.x)
      {
        projections[t] = kernels::pixelProjection(p, views[firstView + v0 + t], pixel);
      }
      __syncthreads();
      for (int t = 0; t < count; ++t)
      {
        const kernels::PixelProjection proj = projections[t];
        const kernels::RowRange        reached = proj.rows.rowsReached(g0, g1 - 1, rows);
        const int                      firstRow = reached.first, lastRow = reached.last;
        // The same for every thread of the block, so no thread skips a barrier alone.
        if (proj.channels.last < proj.channels.first || lastRow < firstRow)
        {
          continue;
        }
        const std::size_t view = (v0 + t) * viewSize;
        for (int m = firstRow + threadIdx.x; m <= lastRow; m += blockDim.x)
        {
          float c = 0.0f;
          for (int n = proj.channels.first; n <= proj.channels.last; ++n)
          {
            const float       a = kernels::coefficientPower(proj.channels.weight(n), power);
            const std::size_t entry = view + static_cast<std::size_t>(n) * rows + m;
            c += Weighted ? a * weights[entry] * sinogram[entry] : a * sinogram[entry];
          }
          column[m] = c;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kSlicesPerThread; ++j)
        {
          const int k = k0 + j * blockDim.x + threadIdx.x;
          if (k < g1)
          {
            const kernels::Footprint fp = proj.rows.slice(k, rows);
            const int                low = max(fp.first, firstRow), high = min(fp.last, lastRow);
            float                    sum = 0.0f;
            for (int m = low; m <= high; ++m)
            {
              sum += kernels::coefficientPower(fp.weight(m), power) * column[m];
            }
            sums[j] += sum;
          }
        }
        __syncthreads(); // the next view overwrites the column
      }
    }
#pragma unroll
    for (int j = 0; j < kSlicesPerThread; ++j)
    {
      const int k = k0 + j * blockDim.x + threadIdx.x;
      if (k < g1)
      {
        out[k] += sums[j];
      }
    }
  }
}

// Grid-stride loops over n elements.
#define MBIR_GRID_LOOP(i, n)                                                                                           \
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < (n);                                    \
       i += std::size_t(blockDim.x) * gridDim.x)

__global__ void
fillKernel(float value, float * x, std::size_t n)
{
  MBIR_GRID_LOOP(i, n)
  {
    x[i] = value;
  }
}

__global__ void
axpbyKernel(float a, const float * x, float b, float * y, std::size_t n)
{
  MBIR_GRID_LOOP(i, n)
  {
    y[i] = a * x[i] + b * y[i];
  }
}

__global__ void
multiplyPeriodicKernel(const float * factors, std::size_t period, float * x, std::size_t n)
{
  MBIR_GRID_LOOP(i, n)
  {
    x[i] *= factors[i % period];
  }
}

// Element by element, so out may alias either input.
__global__ void
divideWherePositiveKernel(const float * numerator, const float * denominator, float * out, std::size_t n)
{
  MBIR_GRID_LOOP(i, n)
  {
    const float d = denominator[i];
    out[i] = d > 0.0f ? numerator[i] / d : 0.0f;
  }
}

__global__ void
clipForPositivityKernel(const float * x, float inverseAlpha, std::size_t n, float * delta)
{
  MBIR_GRID_LOOP(i, n)
  {
    delta[i] = fmaxf(delta[i], -x[i] * inverseAlpha);
  }
}

// Sums two per-element terms over n elements into sums[0..1] (double, one atomic per block).
template<typename Terms>
__global__ void
reduceKernel(Terms terms, std::size_t n, double * sums)
{
  __shared__ double partial[2][kThreads];
  double            first = 0.0, second = 0.0;
  MBIR_GRID_LOOP(i, n)
  {
    terms(i, first, second);
  }
  partial[0][threadIdx.x] = first;
  partial[1][threadIdx.x] = second;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2)
  {
    if (threadIdx.x < stride)
    {
      partial[0][threadIdx.x] += partial[0][threadIdx.x + stride];
      partial[1][threadIdx.x] += partial[1][threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
  {
    atomicAdd(sums, partial[0][0]);
    atomicAdd(sums + 1, partial[1][0]);
  }
}

struct AbsTerms
{
  const float * x;
  __device__ void
  operator()(std::size_t i, double & a, double &) const
  {
    a += fabsf(x[i]);
  }
};

// The denoiser's noise statistic: kernels::localDeviationAt over the voxels >= threshold, and their count.
struct LocalDeviationTerms
{
  const float * volume;
  int           rows, cols, stride, valid;
  const float * previous;
  double        threshold;
  __device__ void
  operator()(std::size_t i, double & sum, double & count) const
  {
    const std::size_t pixel = i / valid;
    const int         k = static_cast<int>(i - pixel * valid);
    if (volume[pixel * stride + k] >= threshold)
    {
      const int row = static_cast<int>(pixel / cols), col = static_cast<int>(pixel - std::size_t(row) * cols);
      sum += kernels::localDeviationAt(volume, rows, cols, stride, valid, previous, row, col, k);
      count += 1.0;
    }
  }
};

struct WeightedProductTerms
{
  const float *a, *b, *w;
  __device__ void
  operator()(std::size_t i, double & ab, double & bb) const
  {
    const float weight = w ? w[i] : 1.0f;
    ab += double(weight * a[i]) * b[i];
    bb += double(weight * b[i]) * b[i];
  }
};

// The VCD direction, element by element, the line search's linear sum and the prior's quadratic sum.
struct DirectionTerms
{
  float         dataScale;
  const float * backProjection;
  const float * dataHessian;
  const float * priorGradient;
  const float * priorHessian;
  float *       delta;
  __device__ void
  operator()(std::size_t i, double & linear, double & quadratic) const
  {
    const float d = kernels::vcdDirectionElement(
      dataScale, backProjection[i], dataHessian ? dataHessian[i] : 1.0f, priorGradient[i], priorHessian[i]);
    delta[i] = d;
    linear += double(dataScale * backProjection[i] - priorGradient[i]) * d;
    quadratic += double(priorHessian[i]) * d * d;
  }
};

// volume(pixel b, k) += alpha * values(b, k); atomics keep repeated pixels of a batch exact.
struct ScatterAddTerms
{
  float         alpha;
  const float * values;
  const int *   pixels;
  int           slices;
  float *       volume;
  __device__ void
  operator()(std::size_t i, double & l1, double &) const
  {
    const std::size_t b = i / slices, k = i - b * slices;
    const float       step = alpha * values[i];
    atomicAdd(volume + static_cast<std::size_t>(pixels[b]) * slices + k, step);
    l1 += fabsf(step);
  }
};

__global__ void
fillSlicesKernel(float value, float * volume, int slices, int firstSlice, int span, std::size_t n)
{
  MBIR_GRID_LOOP(i, n)
  {
    const std::size_t p = i / span;
    volume[p * slices + firstSlice + (i - p * span)] = value;
  }
}

__global__ void
gatherSliceKernel(const float * volume, const int * pixels, int slices, int localSlice, std::size_t n, float * out)
{
  MBIR_GRID_LOOP(b, n)
  {
    out[b] = volume[static_cast<std::size_t>(pixels[b]) * slices + localSlice];
  }
}

__global__ void
gatherCylindersKernel(const float * volume, const int * pixels, int slices, std::size_t n, float * out)
{
  MBIR_GRID_LOOP(i, n)
  {
    const std::size_t b = i / slices, k = i - b * slices;
    out[i] = volume[static_cast<std::size_t>(pixels[b]) * slices + k];
  }
}

// One voxel of a volume shard: the shared neighbour rule of kernels/QGGMRF.h (halos at the shard's
// ends, padding inert) and the prior's gradient and curvature there.
__global__ void
qggmrfGradientHessianKernel(kernels::QGGMRFParams prior,
                            const float *         volume,
                            ReconShape            shape,
                            kernels::SliceShard   shard,
                            const int *           pixels,
                            const float *         below,
                            const float *         above,
                            std::size_t           n,
                            float *               gradient,
                            float *               hessian)
{
  MBIR_GRID_LOOP(i, n)
  {
    const std::size_t s = shape.slices;
    const std::size_t b = i / s;
    const int         k = static_cast<int>(i - b * s);
    const int         pixel = pixels[b];
    const int         row = pixel / shape.cols, col = pixel - row * shape.cols;
    const float *     self = volume + pixel * s;
    float             x, nbr[6];
    kernels::shardNeighbours(self,
                             row + 1 < shape.rows ? self + shape.cols * s : nullptr,
                             row > 0 ? self - shape.cols * s : nullptr,
                             col + 1 < shape.cols ? self + s : nullptr,
                             col > 0 ? self - s : nullptr,
                             below ? below + b : nullptr,
                             above ? above + b : nullptr,
                             k,
                             shape.slices,
                             shard,
                             x,
                             nbr);
    kernels::qggmrfGradientHessian(x, nbr, prior, gradient[i], hessian[i]);
  }
}

// Each adjacent pair of real voxels once: voxel i with its row+1, col+1 and slice+1 neighbours, the
// last through `abovePlane` when it lies in the next shard.
struct QGGMRFCostTerms
{
  kernels::QGGMRFParams prior;
  const float *         volume;
  ReconShape            shape;
  kernels::SliceShard   shard;
  const float *         abovePlane;
  __device__ void
  operator()(std::size_t i, double & cost, double &) const
  {
    const std::size_t s = shape.slices;
    const int         pixel = static_cast<int>(i / s), k = static_cast<int>(i - pixel * s);
    const int         global = shard.first + k;
    if (global >= shard.total)
      return;
    const int   row = pixel / shape.cols, col = pixel - row * shape.cols;
    const float x = volume[i];
    if (row + 1 < shape.rows)
      cost += prior.b[0] * kernels::qggmrfPotential(x - volume[i + shape.cols * s], prior);
    if (col + 1 < shape.cols)
      cost += prior.b[2] * kernels::qggmrfPotential(x - volume[i + s], prior);
    if (global + 1 < shard.total)
    {
      if (k + 1 < shape.slices)
        cost += prior.b[4] * kernels::qggmrfPotential(x - volume[i + 1], prior);
      else if (abovePlane)
        cost += prior.b[4] * kernels::qggmrfPotential(x - abovePlane[pixel], prior);
    }
  }
};

// Copies rows [channel][row] of views into zero-padded lines (one per view and row) of length n.
__global__ void
padRowsKernel(const float * in, int channels, int rows, int views, int length, float * lines)
{
  const std::size_t total = static_cast<std::size_t>(views) * rows * length;
  MBIR_GRID_LOOP(i, total)
  {
    const std::size_t line = i / length;
    const int         c = static_cast<int>(i - line * length);
    const int         v = static_cast<int>(line / rows), k = static_cast<int>(line - std::size_t(v) * rows);
    lines[i] = c < channels ? in[(std::size_t(v) * channels + c) * rows + k] : 0.0f;
  }
}

// Bin f of the line of (view v, row k) times ramp[f] * viewScale[v].
__global__ void
scaleRowSpectraKernel(cufftComplex * spectrum,
                      const float *  ramp,
                      int            bins,
                      int            rows,
                      const float *  viewScale,
                      std::size_t    total)
{
  MBIR_GRID_LOOP(i, total)
  {
    const std::size_t line = i / bins;
    const float       g = ramp[i - line * bins] * viewScale[line / rows];
    spectrum[i].x *= g;
    spectrum[i].y *= g;
  }
}

__global__ void
unpadRowsKernel(const float * lines, int channels, int rows, int views, int length, float * out)
{
  const std::size_t total = static_cast<std::size_t>(views) * channels * rows;
  MBIR_GRID_LOOP(i, total)
  {
    const std::size_t v = i / (std::size_t(channels) * rows);
    const std::size_t rest = i - v * channels * rows;
    const int         c = static_cast<int>(rest / rows), k = static_cast<int>(rest - std::size_t(c) * rows);
    out[i] = lines[(v * rows + k) * length + c];
  }
}

// Copies each [channel][row] view into the corner of a zero [planeChannels][planeRows] plane.
__global__ void
padPlanesKernel(const float * in, int channels, int rows, int views, int planeChannels, int planeRows, float * planes)
{
  const std::size_t total = static_cast<std::size_t>(views) * planeChannels * planeRows;
  MBIR_GRID_LOOP(i, total)
  {
    const std::size_t line = i / planeRows;
    const int         r = static_cast<int>(i - line * planeRows);
    const int v = static_cast<int>(line / planeChannels), c = static_cast<int>(line - std::size_t(v) * planeChannels);
    planes[i] = c < channels && r < rows ? in[(std::size_t(v) * channels + c) * rows + r] : 0.0f;
  }
}

// Bin (kc, kr) of view v's 2-D spectrum times the directional ramp of directions[v], normalised.
__global__ void
scaleDirectionalSpectraKernel(cufftComplex *        spectrum,
                              const float *         ramp,
                              int                   planeChannels,
                              int                   planeRows,
                              const RampDirection * directions,
                              float                 norm,
                              std::size_t           total)
{
  const int bins = planeRows / 2 + 1;
  MBIR_GRID_LOOP(i, total)
  {
    const std::size_t   line = i / bins;
    const int           kr = static_cast<int>(i - line * bins);
    const int           v = static_cast<int>(line / planeChannels);
    const int           kc = static_cast<int>(line - std::size_t(v) * planeChannels);
    const RampDirection d = directions[v];
    const int           signedKc = kc < planeChannels / 2 ? kc : kc - planeChannels; // negative frequencies
    const float         fu = static_cast<float>(signedKc) / static_cast<float>(planeChannels);
    const float         fv = static_cast<float>(kr) / static_cast<float>(planeRows);
    const float         g = kernels::directionalRampGain(ramp, planeChannels, d.channel, d.row, fu, fv) * norm;
    spectrum[i].x *= g;
    spectrum[i].y *= g;
  }
}

__global__ void
cropPlanesKernel(const float * planes, int channels, int rows, int views, int planeChannels, int planeRows, float * out)
{
  const std::size_t total = static_cast<std::size_t>(views) * channels * rows;
  MBIR_GRID_LOOP(i, total)
  {
    const std::size_t line = i / rows;
    const int         r = static_cast<int>(i - line * rows);
    const int         v = static_cast<int>(line / channels), c = static_cast<int>(line - std::size_t(v) * channels);
    out[i] = planes[(std::size_t(v) * planeChannels + c) * planeRows + r];
  }
}

int
gridFor(std::size_t n)
{
  const std::size_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

void
checkCufft(cufftResult status, const char * what)
{
  if (status == CUFFT_ALLOC_FAILED)
  {
    throw OutOfDeviceMemory(std::string("out of GPU memory in ") + what +
                            " (the ramp filter's FFT plans); use more devices or free memory held elsewhere");
  }
  if (status != CUFFT_SUCCESS)
  {
    throw std::runtime_error(std::string("cuFFT error in ") + what + ": code " + std::to_string(int(status)));
  }
}

// The process's stream-ordered memory pool of one GPU, shared by its backends: a buffer freed in one VCD
// subset serves the next allocation without cudaFree's device-wide synchronisation. The pool keeps what is
// freed (release threshold: all of it) until a backend of the GPU goes, and GPUs that can reach this one may
// read and write its buffers, as peer access allows for cudaMalloc memory.
cudaMemPool_t
gpuMemoryPool(int device)
{
  static std::mutex                   mutex;
  static std::map<int, cudaMemPool_t> pools;
  const std::lock_guard<std::mutex>   lock(mutex);
  if (const auto found = pools.find(device); found != pools.end())
  {
    return found->second;
  }
  cudaMemPoolProps properties{};
  properties.allocType = cudaMemAllocationTypePinned;
  properties.location.type = cudaMemLocationTypeDevice;
  properties.location.id = device;
  cudaMemPool_t pool = nullptr;
  check(cudaMemPoolCreate(&pool, &properties), "cudaMemPoolCreate");
  std::uint64_t keepAll = std::numeric_limits<std::uint64_t>::max();
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll), "cudaMemPoolSetAttribute");
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  for (int other = 0; other < count; ++other)
  {
    int reaches = 0;
    if (other != device && cudaDeviceCanAccessPeer(&reaches, other, device) == cudaSuccess && reaches)
    {
      cudaMemAccessDesc access{};
      access.location.type = cudaMemLocationTypeDevice;
      access.location.id = other;
      access.flags = cudaMemAccessFlagsProtReadWrite;
      check(cudaMemPoolSetAccess(pool, &access, 1), "cudaMemPoolSetAccess");
    }
  }
  pools.emplace(device, pool);
  return pool;
}

// A batched cuFFT plan of contiguous transforms, released on every exit path.
class FftPlan
{
public:
  FftPlan(int rank, int * dims, int batch, cufftType type)
  {
    checkCufft(cufftPlanMany(&m_Handle, rank, dims, nullptr, 1, 0, nullptr, 1, 0, type, batch), "cufftPlanMany");
  }
  ~FftPlan() { cufftDestroy(m_Handle); }
  FftPlan(const FftPlan &) = delete;
  FftPlan &
  operator=(const FftPlan &) = delete;

  cufftHandle
  get() const
  {
    return m_Handle;
  }

private:
  cufftHandle m_Handle = 0;
};

class CudaBackend final : public Backend
{
public:
  explicit CudaBackend(int device)
    : m_Device(device)
  {
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
    m_Name = properties.name;
    m_Pool = gpuMemoryPool(device);
    double * hostSums = nullptr;
    check(cudaMallocHost(&hostSums, 2 * sizeof(double)), "cudaMallocHost of the reduction sums");
    m_HostSums.reset(hostSums);
  }
  // Gives the pool's idle memory back to the driver, once this backend's work is done.
  ~CudaBackend() override
  {
    cudaSetDevice(m_Device);
    cudaDeviceSynchronize();
    cudaMemPoolTrimTo(m_Pool, 0);
  }
  CudaBackend(const CudaBackend &) = delete;
  CudaBackend &
  operator=(const CudaBackend &) = delete;

  std::string
  description() const override
  {
    return "GPU " + std::to_string(m_Device) + " (" + m_Name + ")";
  }
  Kind
  kind() const override
  {
    return Kind::Gpu;
  }

  std::size_t
  freeBytes() const override
  {
    cudaSetDevice(m_Device);
    std::size_t freeBytes = 0, totalBytes = 0;
    cudaMemGetInfo(&freeBytes, &totalBytes);
    // Memory the pool holds for reuse is free to this process's allocations.
    std::uint64_t reserved = 0, used = 0;
    cudaMemPoolGetAttribute(m_Pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
    cudaMemPoolGetAttribute(m_Pool, cudaMemPoolAttrUsedMemCurrent, &used);
    return freeBytes + static_cast<std::size_t>(reserved > used ? reserved - used : 0);
  }
  int
  memoryPool() const override
  {
    return m_Device;
  }
  // The ramp filter's real and complex batch buffers and cuFFT's work area for the pair of plans (each
  // about one batch), the global columns of a detector too tall for shared memory, and room for the
  // allocator's rounding and the reductions' scalars.
  std::size_t
  workspaceBytes(const SinogramShape & shape) const override
  {
    const std::size_t perView = static_cast<std::size_t>(kernels::rampFftSize(shape.channels)) * shape.rows;
    const std::size_t views = std::max<std::size_t>(1, std::min<std::size_t>(shape.views, kFilterSamples / perView));
    const std::size_t columns = shape.rows > kMaxSharedColumn ? kScratchFloats : 0;
    constexpr std::size_t kRounding = std::size_t(64) << 20;
    return (4 * views * perView + columns) * sizeof(float) + kRounding;
  }

  DeviceAllocation
  allocateOnDevice(std::size_t bytes) override
  {
    select();
    void * p = nullptr;
    if (bytes)
    {
      // Stream-ordered on the legacy stream, where the kernels, copies and collectives run.
      if (cudaMallocFromPoolAsync(&p, bytes, m_Pool, cudaStreamLegacy) != cudaSuccess)
      {
        cudaGetLastError(); // a failed allocation leaves no sticky error; clear the last-error slot
        throw OutOfDeviceMemory(outOfMemoryMessage(bytes));
      }
      check(cudaMemsetAsync(p, 0, bytes, cudaStreamLegacy), "cudaMemsetAsync");
    }
    recordAllocation(bytes);
    return DeviceAllocation(p, bytes, [this](void * q, std::size_t n) {
      cudaSetDevice(m_Device);
      cudaFreeAsync(q, cudaStreamLegacy); // after the work queued on it, without waiting for it
      recordRelease(n);
    });
  }

  void
  writeDevice(const void * host, void * device, std::size_t bytes) override
  {
    select();
    // Default: the source may also be another array on a GPU (a CuPy or PyTorch tensor), read in place.
    check(cudaMemcpy(device, host, bytes, cudaMemcpyDefault), "copyToDevice");
  }
  void
  writeDeviceRows(const void * source,
                  std::size_t  sourcePitch,
                  void *       device,
                  std::size_t  devicePitch,
                  std::size_t  rowBytes,
                  std::size_t  rows) override
  {
    select();
    if (rows > 0 && rowBytes > 0)
    {
      check(cudaMemcpy2D(device, devicePitch, source, sourcePitch, rowBytes, rows, cudaMemcpyDefault),
            "copyRowsToDevice");
    }
  }
  void
  readDevice(const void * device, void * host, std::size_t bytes) override
  {
    select();
    check(cudaMemcpy(host, device, bytes, cudaMemcpyDefault), "copyToHost");
  }
  void
  fillZero(void * device, std::size_t bytes) override
  {
    select();
    check(cudaMemset(device, 0, bytes), "fillZero");
  }
  void
  synchronize() override
  {
    select();
    check(cudaDeviceSynchronize(), "synchronize");
  }

  // Sinograms go through a staging buffer in the public layout, transposed on the device.
  void
  writeSinogram(const float * host, const SinogramShape & s, float * device) override
  {
    DeviceArray<float> staging = allocate<float>(s.size());
    writeDevice(host, staging.data(), s.size() * sizeof(float));
    transposeViews(staging.data(), s.rows, s.channels, s.views, device);
  }
  void
  readSinogram(const float * device, const SinogramShape & s, float * host) override
  {
    DeviceArray<float> staging = allocate<float>(s.size());
    transposeViews(device, s.channels, s.rows, s.views, staging.data());
    readDevice(staging.data(), host, s.size() * sizeof(float));
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
              const float *         weights,
              const ViewRange &     views,
              int                   power,
              float *               values) override
  {
    select();
    std::visit([&](const auto & m) { back(m, cylinders, sinogram, weights, views, power, values); }, model);
    finish("backProject");
  }

  void
  rampFilter(const float *                      in,
             const SinogramShape &              shape,
             const std::vector<RampDirection> & directions,
             float *                            out) override;

  void
  multiplyPeriodic(const float * factors, std::size_t period, float * x, std::size_t n) override
  {
    if (n == 0)
    {
      return;
    }
    if (period == 0)
    {
      throw std::invalid_argument("multiplyPeriodic: the period must be positive");
    }
    select();
    multiplyPeriodicKernel<<<gridFor(n), kThreads>>>(factors, period, x, n);
    finish("multiplyPeriodic");
  }
  void
  divideWherePositive(const float * numerator, const float * denominator, float * out, std::size_t n) override
  {
    select();
    divideWherePositiveKernel<<<gridFor(n), kThreads>>>(numerator, denominator, out, n);
    finish("divideWherePositive");
  }

  void
  copy(const float * source, float * destination, std::size_t n) override
  {
    select();
    check(cudaMemcpy(destination, source, n * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
  }
  void
  copyRows(const float * source,
           std::size_t   sourcePitch,
           float *       destination,
           std::size_t   destinationPitch,
           std::size_t   width,
           std::size_t   rows) override
  {
    if (rows == 0 || width == 0)
    {
      return;
    }
    select();
    check(cudaMemcpy2D(destination,
                       destinationPitch * sizeof(float),
                       source,
                       sourcePitch * sizeof(float),
                       width * sizeof(float),
                       rows,
                       cudaMemcpyDeviceToDevice),
          "copyRows");
  }
  void
  fill(float value, float * x, std::size_t n) override
  {
    select();
    fillKernel<<<gridFor(n), kThreads>>>(value, x, n);
    finish("fill");
  }
  void
  axpby(float a, const float * x, float b, float * y, std::size_t n) override
  {
    select();
    axpbyKernel<<<gridFor(n), kThreads>>>(a, x, b, y, n);
    finish("axpby");
  }
  double
  sumAbs(const float * x, std::size_t n) override
  {
    return reduce(AbsTerms{ x }, n, "sumAbs").ab;
  }
  WeightedProducts
  weightedProducts(const float * a, const float * b, const float * w, std::size_t n) override
  {
    return reduce(WeightedProductTerms{ a, b, w }, n, "weightedProducts");
  }
  void
  gatherCylinders(const float * volume, const CylinderBatch & c, float * out) override
  {
    select();
    const std::size_t n = static_cast<std::size_t>(c.numPixels) * c.numSlices;
    gatherCylindersKernel<<<gridFor(n), kThreads>>>(volume, c.pixels, c.numSlices, n, out);
    finish("gatherCylinders");
  }
  void
  fillSlices(float value, float * volume, std::size_t numPixels, int slices, int firstSlice, int lastSlice) override
  {
    select();
    const int         span = lastSlice - firstSlice;
    const std::size_t n = numPixels * std::max(span, 0);
    if (n == 0)
    {
      return;
    }
    fillSlicesKernel<<<gridFor(n), kThreads>>>(value, volume, slices, firstSlice, span, n);
    finish("fillSlices");
  }
  void
  gatherSlice(const float * volume, const CylinderBatch & c, int localSlice, float * out) override
  {
    select();
    const std::size_t n = static_cast<std::size_t>(c.numPixels);
    if (n == 0)
    {
      return;
    }
    gatherSliceKernel<<<gridFor(n), kThreads>>>(volume, c.pixels, c.numSlices, localSlice, n, out);
    finish("gatherSlice");
  }
  double
  scatterAddCylinders(float alpha, const float * values, const CylinderBatch & c, float * volume) override
  {
    const std::size_t n = static_cast<std::size_t>(c.numPixels) * c.numSlices;
    return reduce(ScatterAddTerms{ alpha, values, c.pixels, c.numSlices, volume }, n, "scatterAddCylinders").ab;
  }
  void
  qggmrfGradientHessian(const kernels::QGGMRFParams & prior,
                        const float *                 volume,
                        const ReconShape &            shape,
                        const kernels::SliceShard &   shard,
                        const CylinderBatch &         c,
                        const float *                 below,
                        const float *                 above,
                        float *                       gradient,
                        float *                       hessian) override
  {
    select();
    const std::size_t n = static_cast<std::size_t>(c.numPixels) * c.numSlices;
    if (n == 0)
    {
      return;
    }
    qggmrfGradientHessianKernel<<<gridFor(n), kThreads>>>(
      prior, volume, shape, shard, c.pixels, below, above, n, gradient, hessian);
    finish("qggmrfGradientHessian");
  }
  double
  qggmrfCost(const kernels::QGGMRFParams & prior,
             const float *                 volume,
             const ReconShape &            shape,
             const kernels::SliceShard &   shard,
             const float *                 abovePlane) override
  {
    return reduce(QGGMRFCostTerms{ prior, volume, shape, shard, abovePlane }, shape.size(), "qggmrfCost").ab;
  }
  WeightedProducts
  localDeviationSums(const float *      volume,
                     const ReconShape & shape,
                     int                validSlices,
                     const float *      previousSlice,
                     double             threshold) override
  {
    return reduce(
      LocalDeviationTerms{ volume, shape.rows, shape.cols, shape.slices, validSlices, previousSlice, threshold },
      shape.numPixels() * validSlices,
      "localDeviationSums");
  }
  DirectionSums
  vcdDirection(float         dataScale,
               const float * backProjection,
               const float * dataHessian,
               const float * priorGradient,
               const float * priorHessian,
               std::size_t   n,
               float *       delta) override
  {
    const WeightedProducts sums = reduce(
      DirectionTerms{ dataScale, backProjection, dataHessian, priorGradient, priorHessian, delta }, n, "vcdDirection");
    return DirectionSums{ sums.ab, sums.bb };
  }
  void
  clipForPositivity(const float * x, float alpha, std::size_t n, float * delta) override
  {
    select();
    clipForPositivityKernel<<<gridFor(n), kThreads>>>(x, 1.0f / (alpha + kernels::kFloatEpsilon), n, delta);
    finish("clipForPositivity");
  }

private:
  // Runs a two-term reduction and brings its sums to the host (the algorithm needs them as scalars).
  template<typename Terms>
  WeightedProducts
  reduce(const Terms & terms, std::size_t n, const char * what)
  {
    select();
    if (!m_Sums)
    {
      double * sums = nullptr;
      check(cudaMalloc(&sums, 2 * sizeof(double)), "cudaMalloc of the reduction sums");
      m_Sums.reset(sums);
    }
    check(cudaMemsetAsync(m_Sums.get(), 0, 2 * sizeof(double)), what);
    if (n > 0)
    {
      reduceKernel<<<gridFor(n), kThreads>>>(terms, n, m_Sums.get());
      finish(what);
    }
    // The scalars the algorithm needs: into pinned memory, the one wait for the device.
    check(cudaMemcpyAsync(m_HostSums.get(), m_Sums.get(), 2 * sizeof(double), cudaMemcpyDeviceToHost, cudaStreamLegacy),
          what);
    check(cudaStreamSynchronize(cudaStreamLegacy), what);
    return WeightedProducts{ m_HostSums.get()[0], m_HostSums.get()[1] };
  }

  void
  select() const
  {
    check(cudaSetDevice(m_Device), "cudaSetDevice");
  }
  // Reports a failed launch. Kernels run asynchronously, in order on the device's legacy default stream
  // (as do copies, cuFFT and the communicators), so the host waits only for scalars and downloads;
  // MBIR_CUDA_SYNC=1 waits after every kernel, so that a fault is reported at the kernel that made it.
  static void
  finish(const char * what)
  {
    static const bool waitForEach = [] {
      const char * value = std::getenv("MBIR_CUDA_SYNC");
      return value && std::string(value) == "1";
    }();
    check(cudaGetLastError(), what);
    if (waitForEach)
    {
      check(cudaDeviceSynchronize(), what);
    }
  }

  void
  transposeViews(const float * in, int rows, int cols, int views, float * out)
  {
    if (rows == 0 || cols == 0 || views == 0)
    {
      return;
    }
    const std::size_t viewSize = std::size_t(rows) * cols;
    for (int v0 = 0; v0 < views; v0 += kMaxGridViews)
    {
      const dim3 grid((cols + kTransposeTile - 1) / kTransposeTile,
                      (rows + kTransposeTile - 1) / kTransposeTile,
                      std::min(kMaxGridViews, views - v0));
      transposeViewsKernel<<<grid, dim3(kTransposeTile, 8)>>>(in + v0 * viewSize, rows, cols, out + v0 * viewSize);
    }
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
    const std::size_t viewSize = std::size_t(m.params.numDetChannels) * m.params.numDetRows;
    for (int v0 = 0; v0 < views.count; v0 += kMaxGridViews)
    {
      const dim3 grid((batch.numPixels + kForwardGroup - 1) / kForwardGroup, std::min(kMaxGridViews, views.count - v0));
      forwardParallelBeamKernel<<<grid, kThreads>>>(m.params,
                                                    m.views,
                                                    views.first + v0,
                                                    batch.pixels,
                                                    batch.numPixels,
                                                    batch.numSlices,
                                                    batch.firstSlice,
                                                    values,
                                                    sinogram + v0 * viewSize);
    }
  }

  void
  back(const ParallelBeamModel & m,
       const CylinderBatch &     batch,
       const float *             sinogram,
       const float *             weights,
       const ViewRange &         views,
       int                       power,
       float *                   values)
  {
    if (batch.numPixels == 0 || views.count == 0)
    {
      return;
    }
    if (weights)
    {
      backParallelBeamKernel<true><<<batch.numPixels, kThreads>>>(m.params,
                                                                  m.views,
                                                                  views.first,
                                                                  views.count,
                                                                  batch.pixels,
                                                                  batch.numSlices,
                                                                  batch.firstSlice,
                                                                  power,
                                                                  sinogram,
                                                                  weights,
                                                                  values);
    }
    else
    {
      backParallelBeamKernel<false><<<batch.numPixels, kThreads>>>(m.params,
                                                                   m.views,
                                                                   views.first,
                                                                   views.count,
                                                                   batch.pixels,
                                                                   batch.numSlices,
                                                                   batch.firstSlice,
                                                                   power,
                                                                   sinogram,
                                                                   weights,
                                                                   values);
    }
  }

  template<typename Params>
  void
  forward(const GeometryModel<Params> & m,
          const CylinderBatch &         batch,
          const float *                 values,
          const ViewRange &             views,
          float *                       sinogram)
  {
    if (batch.numPixels == 0 || views.count == 0)
    {
      return;
    }
    const std::size_t viewSize = std::size_t(m.params.numDetChannels) * m.params.numDetRows;
    for (int v0 = 0; v0 < views.count; v0 += kMaxGridViews)
    {
      const dim3 grid((batch.numPixels + kForwardGroup - 1) / kForwardGroup, std::min(kMaxGridViews, views.count - v0));
      forwardRowMapKernel<<<grid, kThreads>>>(m.params,
                                              m.views,
                                              views.first + v0,
                                              batch.pixels,
                                              batch.numPixels,
                                              batch.numSlices,
                                              batch.firstSlice,
                                              values,
                                              sinogram + v0 * viewSize);
    }
  }

  template<typename Params>
  void
  back(const GeometryModel<Params> & m,
       const CylinderBatch &         batch,
       const float *                 sinogram,
       const float *                 weights,
       const ViewRange &             views,
       int                           power,
       float *                       values)
  {
    if (batch.numPixels == 0 || views.count == 0)
    {
      return;
    }
    const int rows = m.params.numDetRows;
    // A detector too tall for shared memory gets global columns, for a bounded number of cylinders per launch.
    int                perLaunch = batch.numPixels;
    DeviceArray<float> scratch;
    if (rows > kMaxSharedColumn)
    {
      perLaunch =
        static_cast<int>(std::min<std::size_t>(batch.numPixels, std::max<std::size_t>(1, kScratchFloats / rows)));
      scratch = allocate<float>(std::size_t(perLaunch) * rows); // its cudaFree waits for the launches below
    }
    const std::size_t sharedBytes = scratch.data() ? 0 : rows * sizeof(float);
    const auto        kernel = weights ? backRowMapKernel<true, Params> : backRowMapKernel<false, Params>;
    for (int b0 = 0; b0 < batch.numPixels; b0 += perLaunch)
    {
      const int count = std::min(perLaunch, batch.numPixels - b0);
      kernel<<<count, kRowMapThreads, sharedBytes>>>(m.params,
                                                     m.views,
                                                     views.first,
                                                     views.count,
                                                     batch.pixels + b0,
                                                     batch.numSlices,
                                                     batch.firstSlice,
                                                     power,
                                                     sinogram,
                                                     weights,
                                                     scratch.data(),
                                                     values + std::size_t(b0) * batch.numSlices);
    }
  }

  // Ramp filtering with cuFFT in batches of views that bound the transient buffers: `pad` writes views
  // [v0, v0 + count) as transformsPerView zero-padded real arrays of shape dims each (so that the
  // circular convolution equals the linear one), `scale` multiplies their spectra, `crop` writes the
  // filtered views back.
  template<typename Pad, typename Scale, typename Crop>
  void
  filterViews(int views, int rank, int * dims, int transformsPerView, Pad pad, Scale scale, Crop crop)
  {
    std::size_t samples = 1, bins = 1; // per transform
    for (int d = 0; d < rank; ++d)
    {
      samples *= dims[d];
      bins *= d + 1 < rank ? dims[d] : dims[d] / 2 + 1;
    }
    const std::size_t perView = samples * transformsPerView;
    const int         viewsPerBatch =
      static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(views, kFilterSamples / perView)));
    DeviceArray<float>     real = allocate<float>(viewsPerBatch * perView);
    DeviceArray<float>     complexBuffer = allocate<float>(2 * viewsPerBatch * bins * transformsPerView);
    cufftComplex *         spectrum = reinterpret_cast<cufftComplex *>(complexBuffer.data());
    std::optional<FftPlan> forward, inverse;
    int                    planned = 0; // views per batch the plans were made for
    for (int v0 = 0; v0 < views; v0 += viewsPerBatch)
    {
      const int count = std::min(viewsPerBatch, views - v0);
      if (count != planned)
      {
        forward.reset();
        inverse.reset();
        forward.emplace(rank, dims, count * transformsPerView, CUFFT_R2C);
        inverse.emplace(rank, dims, count * transformsPerView, CUFFT_C2R);
        planned = count;
      }
      pad(v0, count, real.data());
      checkCufft(cufftExecR2C(forward->get(), real.data(), spectrum), "cufftExecR2C");
      scale(v0, count, spectrum);
      checkCufft(cufftExecC2R(inverse->get(), spectrum, real.data()), "cufftExecC2R");
      crop(v0, count, real.data());
      finish("rampFilter");
    }
  }

  struct FreeOnDevice
  {
    int device;
    void
    operator()(double * p) const
    {
      cudaSetDevice(device);
      cudaFree(p);
    }
  };

  struct FreePinned
  {
    void
    operator()(double * p) const
    {
      cudaFreeHost(p);
    }
  };

  int                                 m_Device;
  std::string                         m_Name;
  cudaMemPool_t                       m_Pool = nullptr;
  std::unique_ptr<double, FreePinned> m_HostSums;
  // The two sums of every reduction, kept for the backend's life (16 bytes outside the accounting) so
  // that a reduction costs no allocation.
  std::unique_ptr<double, FreeOnDevice> m_Sums{ nullptr, FreeOnDevice{ m_Device } };
};

// When every direction lies along the channels, each view's rows are filtered in 1-D (scaled by
// |channel|); otherwise each view gets the 2-D directional ramp of filterDirectional on the CPU.
void
CudaBackend::rampFilter(const float *                      in,
                        const SinogramShape &              shape,
                        const std::vector<RampDirection> & directions,
                        float *                            out)
{
  if (directions.size() != static_cast<std::size_t>(shape.views))
  {
    throw std::invalid_argument("rampFilter: " + std::to_string(directions.size()) + " directions for " +
                                std::to_string(shape.views) + " views");
  }
  if (shape.size() == 0)
  {
    return;
  }
  select();
  const int         C = shape.channels, R = shape.rows;
  const std::size_t viewSize = static_cast<std::size_t>(C) * R;
  const bool        alongChannels =
    std::all_of(directions.begin(), directions.end(), [](const RampDirection & d) { return d.row == 0.0f; });
  if (alongChannels)
  {
    int                      N = kernels::rampFftSize(C);
    const int                bins = N / 2 + 1;
    const DeviceArray<float> ramp = upload(kernels::rampSpectrum(C, N).data(), bins);
    std::vector<float>       scales(shape.views);
    for (int v = 0; v < shape.views; ++v)
    {
      scales[v] = std::fabs(directions[v].channel) / static_cast<float>(N); // cuFFT's inverse is unnormalised
    }
    const DeviceArray<float> viewScales = upload(scales.data(), scales.size());
    filterViews(
      shape.views,
      1,
      &N,
      R,
      [&](int v0, int count, float * lines) {
        padRowsKernel<<<gridFor(std::size_t(count) * R * N), kThreads>>>(in + v0 * viewSize, C, R, count, N, lines);
      },
      [&](int v0, int count, cufftComplex * spectrum) {
        const std::size_t total = std::size_t(count) * R * bins;
        scaleRowSpectraKernel<<<gridFor(total), kThreads>>>(
          spectrum, ramp.data(), bins, R, viewScales.data() + v0, total);
      },
      [&](int v0, int count, const float * lines) {
        unpadRowsKernel<<<gridFor(count * viewSize), kThreads>>>(lines, C, R, count, N, out + v0 * viewSize);
      });
    return;
  }

  int                              dims[] = { kernels::rampFftSize(C), kernels::rampFftSize(R) };
  const int                        NC = dims[0], NR = dims[1];
  const DeviceArray<float>         ramp = upload(kernels::rampSpectrum(C, NC).data(), NC / 2 + 1);
  const DeviceArray<RampDirection> deviceDirections = upload(directions.data(), directions.size());
  const float                      norm = 1.0f / (static_cast<float>(NC) * static_cast<float>(NR));
  filterViews(
    shape.views,
    2,
    dims,
    1,
    [&](int v0, int count, float * planes) {
      padPlanesKernel<<<gridFor(std::size_t(count) * NC * NR), kThreads>>>(
        in + v0 * viewSize, C, R, count, NC, NR, planes);
    },
    [&](int v0, int count, cufftComplex * spectrum) {
      const std::size_t total = std::size_t(count) * NC * (NR / 2 + 1);
      scaleDirectionalSpectraKernel<<<gridFor(total), kThreads>>>(
        spectrum, ramp.data(), NC, NR, deviceDirections.data() + v0, norm, total);
    },
    [&](int v0, int count, const float * planes) {
      cropPlanesKernel<<<gridFor(count * viewSize), kThreads>>>(planes, C, R, count, NC, NR, out + v0 * viewSize);
    });
}

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

std::string
cudaUnavailableReason()
{
  int               count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess)
  {
    cudaGetLastError();
    return std::string("CUDA reports: ") + cudaGetErrorString(status);
  }
  return count > 0 ? std::string() : std::string("no CUDA device is present");
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
