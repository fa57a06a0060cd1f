// The CPU backend: device memory is host memory, kernels run as OpenMP loops over the shared math.

#include "mbir/ArrayView.h"
#include "mbir/Backend.h"
#include "mbir/Config.h"
#include "CpuBackend.h"
#include "HostMemory.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <new>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

#if MBIR_CPU_PATH > 0
// GCC 12 warns of the AVX-512 headers' own _mm512_undefined_* values (GCC bug 105593): silenced for them alone.
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#  include <immintrin.h>
#  pragma GCC diagnostic pop
#endif

#if MBIR_USE_OPENMP
#  include <omp.h>
#endif

#include "CpuPathTarget.h" // last: what follows is compiled for this file's instruction-set path

namespace mbir {
namespace {

#if MBIR_CPU_PATH > 0
// The vectors of this path for the hand-written kernels: float arithmetic by GCC's vector operators (a scalar operand
// stands for a vector of it), the rest named; lookup(table, index) takes each lane's entry of table[0, 2 Width).
#  if MBIR_CPU_PATH == 2
struct Lanes
{
  using Float = __m512;
  using Int = __m512i;
  static constexpr int kWidth = 16;
  static Float
  laneNumbers()
  {
    return _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }
  static Float
  zero()
  {
    return _mm512_setzero_ps();
  }
  static Float
  load(const float * p)
  {
    return _mm512_loadu_ps(p);
  }
  static void
  store(float * p, Float v)
  {
    _mm512_storeu_ps(p, v);
  }
  static Float
  min(Float a, Float b)
  {
    return _mm512_min_ps(a, b);
  }
  static Float
  max(Float a, Float b)
  {
    return _mm512_max_ps(a, b);
  }
  // The square root of a > 0 from the reciprocal-root estimate and one Newton step: within 2 ulp, and pipelined
  // where the square-root instruction is not.
  static Float
  sqrtNewton(Float a)
  {
    const Float y = _mm512_rsqrt14_ps(a), s = a * y;
    return s * (1.5f - 0.5f * s * y);
  }
  static Int
  floorToInt(Float a)
  {
    return _mm512_cvttps_epi32(_mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
  }
  static Float
  toFloat(Int a)
  {
    return _mm512_cvtepi32_ps(a);
  }
  static Int
  broadcast(int v)
  {
    return _mm512_set1_epi32(v);
  }
  static Int
  add(Int a, Int b)
  {
    return _mm512_add_epi32(a, b);
  }
  static Int
  sub(Int a, Int b)
  {
    return _mm512_sub_epi32(a, b);
  }
  static Int
  clamp(Int a, Int low, Int high)
  {
    return _mm512_min_epi32(_mm512_max_epi32(a, low), high);
  }
  // The first and the last lane: the extremes of indices that grow from lane to lane, without a reduction.
  static int
  first(Int a)
  {
    return _mm_cvtsi128_si32(_mm512_castsi512_si128(a));
  }
  static int
  last(Int a)
  {
    return _mm_extract_epi32(_mm512_extracti32x4_epi32(a, 3), 3);
  }
  static Float
  lookup(const float * table, Int index)
  {
    return _mm512_permutex2var_ps(load(table), index, load(table + 16));
  }
  // The same from table[0, Width).
  static Float
  lookupNarrow(const float * table, Int index)
  {
    return _mm512_permutexvar_ps(index, load(table));
  }
  // The first `count` (< Width) lanes from p, 0 in the others; and their store, leaving the memory past them alone.
  static Float
  loadFirst(const float * p, int count)
  {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1), p);
  }
  static void
  storeFirst(float * p, Float v, int count)
  {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << count) - 1), v);
  }
  // Inclusive prefix sums across the lanes: within each 128-bit quarter by byte shifts, then each quarter's last
  // sum carried into the quarters above it.
  static Float
  prefixSum(Float a)
  {
    a += _mm512_castsi512_ps(_mm512_bslli_epi128(_mm512_castps_si512(a), 4));
    a += _mm512_castsi512_ps(_mm512_bslli_epi128(_mm512_castps_si512(a), 8));
    a += _mm512_maskz_permutexvar_ps(0xF0F0, _mm512_setr_epi32(0, 0, 0, 0, 3, 3, 3, 3, 0, 0, 0, 0, 11, 11, 11, 11), a);
    return a + _mm512_maskz_permutexvar_ps(0xFF00, _mm512_set1_epi32(7), a);
  }
  static Float
  broadcastLast(Float a)
  {
    return _mm512_permutexvar_ps(_mm512_set1_epi32(15), a);
  }
  // (previous's last lane, a's lanes 0 to Width - 2): a vector of consecutive values moved up one lane.
  static Float
  shiftIn(Float previous, Float a)
  {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(a), _mm512_castps_si512(previous), 15));
  }
};
#  else
struct Lanes
{
  using Float = __m256;
  using Int = __m256i;
  static constexpr int kWidth = 8;
  static Float
  laneNumbers()
  {
    return _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
  }
  static Float
  zero()
  {
    return _mm256_setzero_ps();
  }
  static Float
  load(const float * p)
  {
    return _mm256_loadu_ps(p);
  }
  static void
  store(float * p, Float v)
  {
    _mm256_storeu_ps(p, v);
  }
  static Float
  min(Float a, Float b)
  {
    return _mm256_min_ps(a, b);
  }
  static Float
  max(Float a, Float b)
  {
    return _mm256_max_ps(a, b);
  }
  static Float
  sqrtNewton(Float a)
  {
    const Float y = _mm256_rsqrt_ps(a), s = a * y;
    return s * (1.5f - 0.5f * s * y);
  }
  static Int
  floorToInt(Float a)
  {
    return _mm256_cvttps_epi32(_mm256_floor_ps(a));
  }
  static Float
  toFloat(Int a)
  {
    return _mm256_cvtepi32_ps(a);
  }
  static Int
  broadcast(int v)
  {
    return _mm256_set1_epi32(v);
  }
  static Int
  add(Int a, Int b)
  {
    return _mm256_add_epi32(a, b);
  }
  static Int
  sub(Int a, Int b)
  {
    return _mm256_sub_epi32(a, b);
  }
  static Int
  clamp(Int a, Int low, Int high)
  {
    return _mm256_min_epi32(_mm256_max_epi32(a, low), high);
  }
  static int
  first(Int a)
  {
    return _mm_cvtsi128_si32(_mm256_castsi256_si128(a));
  }
  static int
  last(Int a)
  {
    return _mm256_extract_epi32(a, 7);
  }
  // Two 8-entry permutes, the upper half's where the index is past 7.
  static Float
  lookup(const float * table, Int index)
  {
    const Float fromLow = _mm256_permutevar8x32_ps(load(table), index);
    const Float fromHigh = _mm256_permutevar8x32_ps(load(table + 8), index);
    return _mm256_blendv_ps(fromLow, fromHigh, _mm256_castsi256_ps(_mm256_cmpgt_epi32(index, broadcast(7))));
  }
  static Float
  lookupNarrow(const float * table, Int index)
  {
    return _mm256_permutevar8x32_ps(load(table), index);
  }
  static Float
  loadFirst(const float * p, int count)
  {
    return _mm256_maskload_ps(p, firstLanes(count));
  }
  static void
  storeFirst(float * p, Float v, int count)
  {
    _mm256_maskstore_ps(p, firstLanes(count), v);
  }
  static Int
  firstLanes(int count)
  {
    return _mm256_cmpgt_epi32(broadcast(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  // Inclusive prefix sums across the lanes: within each half by byte shifts, then the lower half's last sum carried
  // into the upper half.
  static Float
  prefixSum(Float a)
  {
    a += _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(a), 4));
    a += _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(a), 8));
    const Float lowerLast = _mm256_permutevar8x32_ps(a, _mm256_set1_epi32(3));
    return a + _mm256_blend_ps(zero(), lowerLast, 0xF0);
  }
  static Float
  broadcastLast(Float a)
  {
    return _mm256_permutevar8x32_ps(a, broadcast(7));
  }
  // Each half's bytes moved up one lane from the pair (previous's upper half, a's lower half) and (a's halves).
  static Float
  shiftIn(Float previous, Float a)
  {
    const __m256i below = _mm256_permute2f128_si256(_mm256_castps_si256(previous), _mm256_castps_si256(a), 0x21);
    return _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(a), below, 12));
  }
};
#  endif

// v's first count lanes (all of them where count >= Width) stored at p: a whole vector by a plain store, since AVX2's
// masked store is microcoded on AMD's Zen 3, where it made the cone back projection 1.6x slower.
inline void
storeLanes(float * p, Lanes::Float v, int count)
{
  count >= Lanes::kWidth ? Lanes::store(p, v) : Lanes::storeFirst(p, v, count);
}
// Each lane's table[index] from the Width (Narrow) or 2 x Width entries from table on.
template<bool Narrow>
Lanes::Float
lookupIn(const float * table, Lanes::Int index)
{
  if constexpr (Narrow)
  {
    return Lanes::lookupNarrow(table, index);
  }
  else
  {
    return Lanes::lookup(table, index);
  }
}
#endif

constexpr int kTileSize = 32;       // pixels per tile side: a tile's shadow is a narrow band of channels
constexpr int kMinRowsPerTask = 16; // shortest slice range worth its own task
constexpr int kBlockValues = 1 << 18; // values of one forward block (1 MiB): they stay in L2 across the views

// The batch reordered so that 32 x 32 pixel tiles are visited one after the other, cut into blocks of
// about kBlockValues values. Neighbouring cylinders hit neighbouring detector columns, so a block's shadow
// in every view is a narrow band that stays in cache; a VCD subset's cylinders are scattered, so its
// blocks span several tiles, and each view's columns are read once per block rather than once per tile.
struct TileBlocks
{
  std::vector<int> order;  // batch entries, tile by tile
  std::vector<int> starts; // block b is order[starts[b], starts[b + 1])
};

TileBlocks
tileBlocks(const CylinderBatch & batch, int reconCols)
{
  const int        tilesPerRow = (reconCols + kTileSize - 1) / kTileSize;
  const int        perBlock = std::max(kTileSize, kBlockValues / std::max(batch.numSlices, 1));
  std::vector<int> key(batch.numPixels);
  for (int b = 0; b < batch.numPixels; ++b)
  {
    const int row = batch.pixels[b] / reconCols;
    const int col = batch.pixels[b] - row * reconCols;
    key[b] = (row / kTileSize) * tilesPerRow + col / kTileSize;
  }
  TileBlocks blocks;
  blocks.order.resize(batch.numPixels);
  std::iota(blocks.order.begin(), blocks.order.end(), 0);
  std::stable_sort(blocks.order.begin(), blocks.order.end(), [&key](int a, int b) { return key[a] < key[b]; });
  for (int e = 0; e < batch.numPixels; e += perBlock)
  {
    blocks.starts.push_back(e);
  }
  blocks.starts.push_back(batch.numPixels);
  return blocks;
}

// Whether the batch holds at least half the image's pixels (a whole volume: an FBP, the Hessian, a first VCD
// iteration), so that a block of its tiles reaches only a band of each view; a scattered batch (a coarse VCD subset)
// reaches every channel of every view from each block.
bool
fillsHalfTheImage(const CylinderBatch & batch, int reconRows, int reconCols)
{
  return 2 * static_cast<std::size_t>(batch.numPixels) >= static_cast<std::size_t>(reconRows) * reconCols;
}

// Whether a back projection on several threads goes view by view, a block of tiles at a time: a batch that fits in
// cache (one block: a VCD subset) or one that fills half the image. A large scattered batch goes cylinder by cylinder.
bool
backsByBlocks(const CylinderBatch & batch, int reconRows, int reconCols)
{
  return static_cast<std::size_t>(batch.numPixels) * batch.numSlices <= kBlockValues ||
         fillsHalfTheImage(batch, reconRows, reconCols);
}

// Splits `rows` into chunks so that there are enough independent tasks for every thread.
int
rowChunks(int rows, int otherTasks, int threads)
{
  if (otherTasks >= 2 * threads)
  {
    return 1;
  }
  const int wanted = (2 * threads + otherTasks - 1) / std::max(otherTasks, 1);
  return std::max(1, std::min(wanted, rows / kMinRowsPerTask));
}

// --- Parallel beam: footprints worked out a block at a time ----------------------------------------------
// Worked out one at a time, a (view, pixel) footprint (two divisions, a rounding, branches per cell) costs
// more than applying it to a cylinder of a few dozen slices. Here a block of them, the pixels of one view or
// the views of one pixel, is worked out at once in SIMD lanes, each as Taps (cell, weight) pairs: its
// candidate cells in order, a cell it misses as padding of weight 0 at cell -1, so that every tap is applied
// without a branch. The weights are the footprint's own (same formula, same operands), so the projections and
// their adjointness are unchanged; a footprint with more nonzero cells than Taps (possible only where rounding
// puts both ends of a shadow on cell edges) is flagged and applied the scalar way.
constexpr int kFootprintBlock = 32;

template<int Taps>
struct FootprintTaps
{
  int   cell[Taps > 0 ? Taps : 1][kFootprintBlock];
  float weight[Taps > 0 ? Taps : 1][kFootprintBlock];
  int   scalar[kFootprintBlock]; // nonzero: apply this footprint the scalar way
};

// The taps of `lanes` shadows; the candidate cells are nearest - Radius .. nearest + Radius, Radius at least
// every shadow's supportRadius. With as many taps as candidates, each candidate is a tap; with one fewer (a
// shadow at most 2 Radius cells wide meets 2 Radius of them, but rounding may put it on a third), the taps
// start at the second candidate where the first is missed, and a footprint that meets all of them is flagged.
// Taps == 0 flags every lane for the scalar way.
template<int Radius, int Taps>
void
footprintTaps(const kernels::ChannelShadow * shadows, int lanes, int numCells, FootprintTaps<Taps> & out)
{
  if constexpr (Taps == 0)
  {
    std::fill(out.scalar, out.scalar + lanes, 1);
  }
  else
  {
    constexpr int kCandidates = 2 * Radius + 1;
    static_assert(Taps == kCandidates || Taps == kCandidates - 1, "a tap per candidate, or one fewer");
#pragma omp simd
    for (int i = 0; i < lanes; ++i)
    {
      const float c = shadows[i].centre, w = shadows[i].width;
      // Far outside the detector (or not finite) nothing is hit, as in makeFootprint.
      const bool inside = c > -w - 1.0f && c < static_cast<float>(numCells) + w + 1.0f;
      const int  nearest = static_cast<int>(rintf(inside ? c : 0.0f));
      float      candidate[kCandidates];
      for (int j = 0; j < kCandidates; ++j)
      {
        const int   n = nearest - Radius + j;
        const float a = shadows[i].scale * kernels::trapezoid(c - static_cast<float>(n), w);
        candidate[j] = inside && n >= 0 && n < numCells ? a : 0.0f;
      }
      const int skip = Taps < kCandidates && candidate[0] == 0.0f ? 1 : 0;
      for (int t = 0; t < Taps; ++t)
      {
        const float a = skip ? candidate[std::min(t + 1, kCandidates - 1)] : candidate[t];
        out.weight[t][i] = a;
        out.cell[t][i] = a != 0.0f ? nearest - Radius + t + skip : -1;
      }
      out.scalar[i] = Taps < kCandidates && !skip && candidate[kCandidates - 1] != 0.0f;
    }
  }
}

// Calls f(Radius, Taps) as integral constants for shadows at most `widest` cells wide (a shadow w cells wide
// meets at most ceil(w) + 1 cells), or with Taps = 0 where more taps would not pay.
template<typename F>
void
withFootprintTaps(float widest, F && f)
{
  using std::integral_constant;
  if (widest <= 1.0f)
    f(integral_constant<int, 1>{}, integral_constant<int, 2>{});
  else if (widest <= 2.0f)
    f(integral_constant<int, 1>{}, integral_constant<int, 3>{});
  else if (widest <= 3.0f)
    f(integral_constant<int, 2>{}, integral_constant<int, 4>{});
  else
    f(integral_constant<int, 0>{}, integral_constant<int, 0>{});
}

// The widest channel shadow over the views of a projection (the width depends on the view alone).
float
widestShadow(const kernels::ParallelBeamParams & p, const kernels::ParallelBeamView * views, int count)
{
  float widest = 0.0f;
  for (int v = 0; v < count; ++v)
  {
    widest = std::max(widest, kernels::parallelBeamShadow(p, views[v], 0.0f, 0.0f).width);
  }
  return widest;
}

// Object-frame centres of the batch's cylinders, in the order given.
template<typename Params>
std::vector<kernels::PixelCentre>
pixelCentres(const Params & p, const CylinderBatch & batch, const std::vector<int> & order)
{
  std::vector<kernels::PixelCentre> centres(order.size());
  for (std::size_t e = 0; e < order.size(); ++e)
  {
    centres[e] = kernels::pixelCentre(batch.pixels[order[e]], p.reconRows, p.reconCols, p.deltaX, p.deltaY);
  }
  return centres;
}

// column_t[k] += a_t x[k] for every tap of lane i, k in [k0, k1); padding taps write to `spare`.
template<int Taps>
void
spreadTaps(const FootprintTaps<Taps> & taps,
           int                         i,
           float *                     view,
           int                         rows,
           float *                     spare,
           const float *               x,
           int                         k0,
           int                         k1)
{
  float * column[Taps];
  float   a[Taps];
  for (int t = 0; t < Taps; ++t)
  {
    const int cell = taps.cell[t][i];
    column[t] = cell >= 0 ? view + static_cast<std::size_t>(cell) * rows : spare;
    a[t] = taps.weight[t][i];
  }
#pragma omp simd
  for (int k = k0; k < k1; ++k)
  {
    const float value = x[k];
    for (int t = 0; t < Taps; ++t)
    {
      column[t][k] += a[t] * value;
    }
  }
}

// Slices as one GCC vector of this path's widest registers; loads and stores unaligned.
#if MBIR_CPU_PATH == 2
constexpr int kSliceLanes = 16;
#elif MBIR_CPU_PATH == 1
constexpr int kSliceLanes = 8;
#else
constexpr int kSliceLanes = 4;
#endif
typedef float SliceVector __attribute__((vector_size(4 * kSliceLanes), aligned(4), may_alias));
// The slices from p on. A function rather than a lambda: GCC warned (-Wpsabi) that a lambda returning the vector
// changes the ABI without the wider instructions.
inline SliceVector
slicesAt(const float * p)
{
  return *reinterpret_cast<const SliceVector *>(p);
}

// out[k] += sum over the terms j of a_j (w_j[k]) column_j[k] for k in [k0, k1), in term order, w_j where Weighted.
// The sums stay in registers for 64 slices at a time, then one vector at a time, then the remaining slices one by one.
template<bool Weighted>
inline __attribute__((always_inline)) void
gatherColumns(int                   terms,
              const float * const * column,
              const float * const * weight,
              const float *         a,
              float *               out,
              int                   k0,
              int                   k1)
{
  auto blocks = [&](auto vectors, int & k) {
    constexpr int V = decltype(vectors)::value;
    for (; k + kSliceLanes * V <= k1; k += kSliceLanes * V)
    {
      SliceVector sum[V];
      for (int u = 0; u < V; ++u)
        sum[u] = slicesAt(out + k + kSliceLanes * u);
      for (int j = 0; j < terms; ++j)
      {
        for (int u = 0; u < V; ++u)
        {
          const SliceVector c = slicesAt(column[j] + k + kSliceLanes * u);
          sum[u] += Weighted ? a[j] * slicesAt(weight[j] + k + kSliceLanes * u) * c : a[j] * c;
        }
      }
      for (int u = 0; u < V; ++u)
        *reinterpret_cast<SliceVector *>(out + k + kSliceLanes * u) = sum[u];
    }
  };
  int k = k0;
  blocks(std::integral_constant<int, 64 / kSliceLanes>{}, k);
  blocks(std::integral_constant<int, 1>{}, k);
  for (; k < k1; ++k)
  {
    float sum = out[k];
    for (int j = 0; j < terms; ++j)
    {
      sum += Weighted ? a[j] * weight[j][k] * column[j][k] : a[j] * column[j][k];
    }
    out[k] = sum;
  }
}

// out[k] += sum over the lanes' taps of a_t (w_t[k]) column_t[k] for k in [k0, k1), with a_t the tap's weight to
// `power`, where the lanes are consecutive views from `sinogram` (and `weights`, where Weighted). Padding taps, and
// flagged lanes (applied the scalar way after), read `zeros`.
template<int Taps, bool Weighted>
void
gatherTaps(const FootprintTaps<Taps> & taps,
           int                         lanes,
           int                         power,
           const float *               sinogram,
           const float *               weights,
           std::size_t                 viewSize,
           int                         rows,
           const float *               zeros,
           float *                     out,
           int                         k0,
           int                         k1)
{
  const float * column[Taps * kFootprintBlock];
  const float * weight[Taps * kFootprintBlock];
  float         a[Taps * kFootprintBlock];
  for (int i = 0; i < lanes; ++i)
  {
    for (int t = 0; t < Taps; ++t)
    {
      const int         cell = taps.scalar[i] ? -1 : taps.cell[t][i];
      const std::size_t offset = i * viewSize + static_cast<std::size_t>(cell) * rows;
      column[i * Taps + t] = cell >= 0 ? sinogram + offset : zeros;
      weight[i * Taps + t] = cell >= 0 && Weighted ? weights + offset : zeros;
      a[i * Taps + t] = cell >= 0 ? kernels::coefficientPower(taps.weight[t][i], power) : 0.0f;
    }
  }
  gatherColumns<Weighted>(lanes * Taps, column, weight, a, out, k0, k1);
}

// out[k] += sum over Views consecutive views j and the taps of lane i of a_jt (w_jt[k]) column_jt[k], k in
// [k0, k1), in view order, with a_jt the tap's weight to `power`; taps[j] and views[j] (and weights[j] where
// Weighted) are view j's. Padding taps, and a view's flagged lanes (applied the scalar way after), read `zeros`.
// The adjoint of spreadTaps for a view block's cylinders one at a time.
template<int Taps, int Views, bool Weighted>
void
gatherViews(const FootprintTaps<Taps> * taps,
            int                         i,
            int                         power,
            const float * const *       views,
            const float * const *       weights,
            int                         rows,
            const float *               zeros,
            float *                     out,
            int                         k0,
            int                         k1)
{
  constexpr int kTerms = Taps * Views;
  const float * column[kTerms];
  const float * weight[kTerms];
  float         a[kTerms];
  for (int j = 0; j < Views; ++j)
  {
    for (int t = 0; t < Taps; ++t)
    {
      const int cell = taps[j].scalar[i] ? -1 : taps[j].cell[t][i];
      column[j * Taps + t] = cell >= 0 ? views[j] + static_cast<std::size_t>(cell) * rows : zeros;
      weight[j * Taps + t] = cell >= 0 && Weighted ? weights[j] + static_cast<std::size_t>(cell) * rows : zeros;
      a[j * Taps + t] = cell >= 0 ? kernels::coefficientPower(taps[j].weight[t][i], power) : 0.0f;
    }
  }
  gatherColumns<Weighted>(kTerms, column, weight, a, out, k0, k1);
}

class CpuBackend final : public Backend
{
public:
  explicit CpuBackend(int numThreads)
    : m_Threads(numThreads > 0 ? numThreads : defaultThreads())
  {}

  std::string
  description() const override
  {
    return "CPU (" + std::to_string(m_Threads) + (m_Threads == 1 ? " thread)" : " threads)");
  }
  Kind
  kind() const override
  {
    return Kind::Cpu;
  }
  int
  threadCount() const override
  {
    return m_Threads;
  }

  std::size_t
  freeBytes() const override
  {
    return cpu::hostAvailableBytes();
  }
  int
  memoryPool() const override
  {
    return -1; // the host's
  }

  DeviceAllocation
  allocateOnDevice(std::size_t bytes) override
  {
    // A large block is checked first: Linux may promise memory it cannot deliver and kill the process
    // when the pages are touched, which is worse than saying so now.
    constexpr std::size_t kLarge = std::size_t(256) << 20;
    if (bytes >= kLarge && bytes > freeBytes())
    {
      throw OutOfDeviceMemory(outOfMemoryMessage(bytes));
    }
    void * p = cpu::allocateHostArray(bytes);
    if (bytes && !p)
    {
      throw OutOfDeviceMemory(outOfMemoryMessage(bytes));
    }
    recordAllocation(bytes);
    return DeviceAllocation(p, bytes, [this](void * q, std::size_t n) {
      cpu::freeHostArray(q, n);
      recordRelease(n);
    });
  }

  void
  writeDevice(const void * host, void * device, std::size_t bytes) override
  {
    if (bytes)
    {
      std::memcpy(device, host, bytes);
    }
  }
  void
  readDevice(const void * device, void * host, std::size_t bytes) override
  {
    if (bytes)
    {
      std::memcpy(host, device, bytes);
    }
  }
  void
  writeDeviceRows(const void * source,
                  std::size_t  sourcePitch,
                  void *       device,
                  std::size_t  devicePitch,
                  std::size_t  rowBytes,
                  std::size_t  rows) override
  {
    const auto * from = static_cast<const char *>(source);
    auto *       to = static_cast<char *>(device);
#pragma omp parallel for schedule(static) num_threads(m_Threads)
    for (std::ptrdiff_t r = 0; r < static_cast<std::ptrdiff_t>(rows); ++r)
    {
      std::memcpy(to + r * devicePitch, from + r * sourcePitch, rowBytes);
    }
  }
  void
  fillZero(void * device, std::size_t bytes) override
  {
    // Every thread clears a share: one thread alone does not reach the memory's bandwidth.
    constexpr std::size_t kShare = std::size_t(1) << 20;
    const auto            shares = static_cast<std::ptrdiff_t>((bytes + kShare - 1) / kShare);
#pragma omp parallel for schedule(static) num_threads(m_Threads) if (shares > 1)
    for (std::ptrdiff_t i = 0; i < shares; ++i)
    {
      const std::size_t start = static_cast<std::size_t>(i) * kShare;
      std::memset(static_cast<char *>(device) + start, 0, std::min(kShare, bytes - start));
    }
  }

  void
  writeSinogram(const float * host, const SinogramShape & s, float * device) override
  {
    transposeViews(host, s.rows, s.channels, s.views, device);
  }
  void
  readSinogram(const float * device, const SinogramShape & s, float * host) override
  {
    transposeViews(device, s.channels, s.rows, s.views, host);
  }

  void
  forwardProject(const DeviceModel &   model,
                 const CylinderBatch & cylinders,
                 const float *         values,
                 const ViewRange &     views,
                 float *               sinogram) override
  {
    std::visit([&](const auto & m) { forward(m, cylinders, values, views, sinogram); }, model);
  }

  double
  forwardProjectAndNorm(const DeviceModel &   model,
                        const CylinderBatch & cylinders,
                        const float *         values,
                        const ViewRange &     views,
                        const float *         weights,
                        std::size_t           entries,
                        float *               sinogram) override
  {
    (void)entries; // the forward sums the views and rows it writes, which are the shard's real entries
    SquaredNorm norm{ weights, 0.0 };
    std::visit([&](const auto & m) { forward(m, cylinders, values, views, sinogram, &norm); }, model);
    return norm.sum;
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
    backOfModel(model, cylinders, sinogram, weights, views, power, values, nullptr);
  }
  void
  backProjectUpdated(const PendingUpdate & update,
                     const DeviceModel &   model,
                     const CylinderBatch & cylinders,
                     const float *         weights,
                     const ViewRange &     views,
                     int                   power,
                     float *               values) override
  {
    // View by view where the update covers the views to back-project, and only them.
    const std::size_t viewSize = std::visit(
      [](const auto & m) { return static_cast<std::size_t>(m.params.numDetChannels) * m.params.numDetRows; }, model);
    if (update.entries != viewSize * views.count)
    {
      return Backend::backProjectUpdated(update, model, cylinders, weights, views, power, values);
    }
    backOfModel(model, cylinders, update.sinogram, weights, views, power, values, &update);
  }
  // The back projection of the model's geometry, weighted or not, after the pending update where one is given.
  void
  backOfModel(const DeviceModel &   model,
              const CylinderBatch & cylinders,
              const float *         sinogram,
              const float *         weights,
              const ViewRange &     views,
              int                   power,
              float *               values,
              const PendingUpdate * pending) const
  {
    std::visit(
      [&](const auto & m) {
        if (weights)
        {
          back<true>(m, cylinders, sinogram, weights, views, power, values, pending);
        }
        else
        {
          back<false>(m, cylinders, sinogram, weights, views, power, values, pending);
        }
      },
      model);
  }

  void
  rampFilter(const float *                      in,
             const SinogramShape &              shape,
             const std::vector<RampDirection> & directions,
             float *                            out) override
  {
    cpu::rampFilter(in, shape, directions, out, m_Threads);
  }

  void
  copy(const float * source, float * destination, std::size_t n) override
  {
#pragma omp parallel for simd schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < n; ++i)
    {
      destination[i] = source[i];
    }
  }
  void
  copyRows(const float * source,
           std::size_t   sourcePitch,
           float *       destination,
           std::size_t   destinationPitch,
           std::size_t   width,
           std::size_t   rows) override
  {
#pragma omp parallel for schedule(static) num_threads(m_Threads)
    for (std::ptrdiff_t r = 0; r < static_cast<std::ptrdiff_t>(rows); ++r)
    {
      std::memcpy(destination + r * destinationPitch, source + r * sourcePitch, width * sizeof(float));
    }
  }
  void
  multiplyPeriodic(const float * factors, std::size_t period, float * x, std::size_t n) override
  {
#pragma omp                   parallel for schedule(static) num_threads(m_Threads)
    for (std::size_t start = 0; start < n; start += period)
    {
                        const std::size_t count = std::min(period, n - start);
                        for (std::size_t i = 0; i < count; ++i)
                        {
                          x[start + i] *= factors[i];
      }
    }
  }
  void
  divideWherePositive(const float * numerator, const float * denominator, float * out, std::size_t n) override
  {
#pragma omp parallel for simd schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < n; ++i)
    {
      out[i] = denominator[i] > 0.0f ? numerator[i] / denominator[i] : 0.0f;
    }
  }
  void
  fill(float value, float * x, std::size_t n) override
  {
#pragma omp parallel for simd schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < n; ++i)
    {
      x[i] = value;
    }
  }
  void
  axpby(float a, const float * x, float b, float * y, std::size_t n) override
  {
#pragma omp parallel for simd schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < n; ++i)
    {
      y[i] = a * x[i] + b * y[i];
    }
  }
  void
  addScaledAndClear(float a, float * x, float * y, std::size_t n) override
  {
    applyUpdate(PendingUpdate{ y, x, a, n });
  }
  // The whole of a pending update, on the backend's threads.
  void
  applyUpdate(const PendingUpdate & u) const
  {
#pragma omp parallel for simd schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < u.entries; ++i)
    {
      u.sinogram[i] += u.scale * u.change[i];
      u.change[i] = 0.0f;
    }
  }
  // The pending update (null: none) of rows [k0, k1) of every channel of views [v0, v1), on the calling thread: a
  // back projection's task applies it to the views it is about to read, which it alone reads.
  static void
  applyUpdate(const PendingUpdate * u, std::size_t viewSize, int rows, int v0, int v1, int k0, int k1)
  {
    if (!u)
    {
      return;
    }
    // Whole views are one run of entries, else each channel's rows [k0, k1) are.
    const bool        whole = k0 == 0 && k1 == rows;
    const std::size_t begin = v0 * viewSize + k0, end = v1 * viewSize;
    const std::size_t run = whole ? end - begin : static_cast<std::size_t>(k1 - k0), stride = whole ? run : rows;
    const float       scale = u->scale;
    for (std::size_t o = begin; o < end; o += stride)
    {
      float * const e = u->sinogram + o;
      float * const c = u->change + o;
#pragma omp simd
      for (std::size_t i = 0; i < run; ++i)
      {
        e[i] += scale * c[i];
        c[i] = 0.0f;
      }
    }
  }
  double
  sumAbs(const float * x, std::size_t n) override
  {
    double sum = 0.0;
#pragma omp parallel for simd reduction(+ : sum) schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < n; ++i)
    {
      sum += std::fabs(x[i]);
    }
    return sum;
  }
  // Float sums over blocks of kSumBlock entries, kSumLanes partial sums each (written out, so that the compiler
  // vectorises them without reassociating), added up in double: a partial sum adds up kSumBlock / kSumLanes terms, so
  // the float rounding stays within a few 1e-7 of the sum of the terms' magnitudes. Accumulating each term in double
  // converted every term and halved the vectors; these sums run over the whole sinogram for every VCD subset.
  static constexpr std::size_t kSumBlock = 256, kSumLanes = 16;
  WeightedProducts
  weightedProducts(const float * a, const float * b, const float * w, std::size_t n) override
  {
    const auto blocks = static_cast<std::ptrdiff_t>((n + kSumBlock - 1) / kSumBlock);
    auto       sums = [&](auto weighted, auto same) {
      auto terms = [&](std::size_t i, float & ab, float & bb) {
        const float wb = decltype(weighted)::value ? w[i] * b[i] : b[i];
        bb += wb * b[i];
        if constexpr (!decltype(same)::value)
        {
          ab += wb * a[i];
        }
      };
      double ab = 0.0, bb = 0.0;
#pragma omp parallel for reduction(+ : ab, bb) schedule(static) num_threads(m_Threads)
      for (std::ptrdiff_t block = 0; block < blocks; ++block)
      {
        const std::size_t begin = static_cast<std::size_t>(block) * kSumBlock, end = std::min(begin + kSumBlock, n);
        const std::size_t whole = begin + (end - begin) / kSumLanes * kSumLanes;
        float             partAb[kSumLanes] = {}, partBb[kSumLanes] = {};
        for (std::size_t i = begin; i < whole; i += kSumLanes)
        {
          for (std::size_t l = 0; l < kSumLanes; ++l)
          {
            terms(i + l, partAb[l], partBb[l]);
          }
        }
        for (std::size_t i = whole; i < end; ++i)
        {
          terms(i, partAb[0], partBb[0]);
        }
        for (std::size_t l = 0; l < kSumLanes; ++l)
        {
          ab += decltype(same)::value ? partBb[l] : partAb[l];
          bb += partBb[l];
        }
      }
      return WeightedProducts{ ab, bb };
    };
    if (w)
    {
      return a == b ? sums(std::true_type{}, std::true_type{}) : sums(std::true_type{}, std::false_type{});
    }
    return a == b ? sums(std::false_type{}, std::true_type{}) : sums(std::false_type{}, std::false_type{});
  }

  void
  gatherCylinders(const float * volume, const CylinderBatch & c, float * out) override
  {
    const std::size_t s = c.numSlices;
#pragma omp parallel for schedule(static) num_threads(m_Threads)
    for (int b = 0; b < c.numPixels; ++b)
    {
      std::memcpy(out + b * s, volume + static_cast<std::size_t>(c.pixels[b]) * s, s * sizeof(float));
    }
  }
  void
  fillSlices(float value, float * volume, std::size_t numPixels, int slices, int firstSlice, int lastSlice) override
  {
#pragma omp                   parallel for schedule(static) num_threads(m_Threads)
    for (std::size_t p = 0; p < numPixels; ++p)
    {
                        std::fill(volume + p * slices + firstSlice, volume + p * slices + lastSlice, value);
    }
  }
  void
  gatherSlice(const float * volume, const CylinderBatch & c, int localSlice, float * out) override
  {
    const std::size_t s = c.numSlices;
#pragma omp parallel for schedule(static) num_threads(m_Threads)
    for (int b = 0; b < c.numPixels; ++b)
    {
                        out[b] = volume[static_cast<std::size_t>(c.pixels[b]) * s + localSlice];
    }
  }
  double
  scatterAddCylinders(float alpha, const float * values, const CylinderBatch & c, float * volume) override
  {
    // Threads take ranges of slices, each over every cylinder in order: a batch may name a pixel twice
    // (equal-size VCD subsets), and each addition must then land.
    const std::size_t s = c.numSlices;
    const int         chunks = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(m_Threads, s / 8)));
    double            l1 = 0.0;
#pragma omp parallel for reduction(+ : l1) schedule(static) num_threads(m_Threads)
    for (int chunk = 0; chunk < chunks; ++chunk)
    {
      const std::size_t k0 = s * chunk / chunks, k1 = s * (chunk + 1) / chunks;
      for (int b = 0; b < c.numPixels; ++b)
      {
        float *       target = volume + static_cast<std::size_t>(c.pixels[b]) * s;
        const float * source = values + b * s;
#pragma omp simd reduction(+ : l1)
        for (std::size_t k = k0; k < k1; ++k)
        {
          const float step = alpha * source[k];
          target[k] += step;
          l1 += std::fabs(step);
        }
      }
    }
    return l1;
  }

  void
  qggmrfGradientHessian(const kernels::QGGMRFParams & prior,
                                          const float *                 volume,
                                          const ReconShape &            shape,
                                          const kernels::SliceShard &   shard,
                                          const CylinderBatch &         cylinders,
                                          const float *                 below,
                                          const float *                 above,
                                          float *                       gradient,
                                          float *                       hessian) override
  {
    cpu::qggmrfGradientHessian(prior, volume, shape, shard, cylinders, below, above, gradient, hessian, m_Threads);
  }
  double
  qggmrfCost(const kernels::QGGMRFParams & prior,
                               const float *                 volume,
                               const ReconShape &            shape,
                               const kernels::SliceShard &   shard,
                               const float *                 abovePlane) override
  {
    return cpu::qggmrfCost(prior, volume, shape, shard, abovePlane, m_Threads);
  }
  WeightedProducts
  localDeviationSums(const float *      volume,
                                       const ReconShape & shape,
                                       int                validSlices,
                                       const float *      previousSlice,
                                       double             threshold) override
  {
    return cpu::localDeviationSums(volume, shape, validSlices, previousSlice, threshold, m_Threads);
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
    double linear = 0.0, quadratic = 0.0;
#pragma omp parallel for simd reduction(+ : linear, quadratic) schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < n; ++i)
    {
                        const float d = kernels::vcdDirectionElement(
        dataScale, backProjection[i], dataHessian ? dataHessian[i] : 1.0f, priorGradient[i], priorHessian[i]);
                        delta[i] = d;
                        linear += double(dataScale * backProjection[i] - priorGradient[i]) * d;
                        quadratic += double(priorHessian[i]) * d * d;
    }
    return DirectionSums{ linear, quadratic };
  }
  void
  clipForPositivity(const float * x, float alpha, std::size_t n, float * delta) override
  {
    const float inverse = 1.0f / (alpha + kernels::kFloatEpsilon);
#pragma omp parallel for simd schedule(static) num_threads(m_Threads)
    for (std::size_t i = 0; i < n; ++i)
    {
                        delta[i] = std::max(delta[i], -x[i] * inverse);
    }
  }

private:
  static int
  defaultThreads()
  {
#if MBIR_USE_OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
  }

  // Transposes each of `views` matrices of (rows, cols) into (cols, rows).
  void
  transposeViews(const float * in, int rows, int cols, int views, float * out) const
  {
    transposeMatrices(in, views, rows, cols, out, m_Threads);
  }

  // The global slices of a batch that exist in the geometry, [first, last), and where slice g sits in
  // each cylinder's values (g - offset).
  struct SliceWindow
  {
    int first;
    int last;
    int offset;
  };
  static SliceWindow
  validSlices(const CylinderBatch & batch, int realSlices)
  {
             return SliceWindow{ std::max(batch.firstSlice, 0),
                        std::min(batch.firstSlice + batch.numSlices, realSlices),
                        batch.firstSlice };
  }

  // What forward() also sums where asked: w v^2 over the projected views' entries v (weights laid out as the
  // sinogram, null meaning 1), which must be 0 where the projection does not write.
  struct SquaredNorm
  {
    const float * weights;
    double        sum;
  };
  // Sum of w v^2 over rows [k0, k1) of every channel of one view (w null: 1), in float partial sums of at most 16
  // terms each (so that their rounding stays within a few 1e-7 of the sum), added up in double.
  static double
  viewSquaredNorm(const float * view, const float * weights, int channels, int rows, int k0, int k1)
  {
    const int span = k1 - k0;
    double    total = 0.0;
#if MBIR_CPU_PATH > 0
    // Four vector sums taking four vectors of the column at a time, so that each add need not wait for the one
    // before; flushed into the total every 16 rounds (a round: four vectors, or one of a column's last).
    using L = Lanes;
    L::Float a = L::zero(), b = L::zero(), c = L::zero(), d = L::zero();
    int      rounds = 0;
    auto     flush = [&] {
      float lanes[L::kWidth];
      L::store(lanes, (a + b) + (c + d));
      for (const float lane : lanes)
      {
        total += lane;
      }
      a = b = c = d = L::zero();
      rounds = 0;
    };
    auto square = [&](const float * v, const float * w, int count) {
      const L::Float x = count == L::kWidth ? L::load(v) : L::loadFirst(v, count);
      return (w ? (count == L::kWidth ? L::load(w) : L::loadFirst(w, count)) * x : x) * x;
    };
    for (int n = 0; n < channels; ++n)
    {
      const std::size_t column = static_cast<std::size_t>(n) * rows + k0;
      const float *     v = view + column;
      const float *     w = weights ? weights + column : nullptr;
      constexpr int     W = L::kWidth;
      int               i = 0;
      for (; i + 4 * W <= span; i += 4 * W)
      {
        a += square(v + i, w ? w + i : nullptr, W);
        b += square(v + i + W, w ? w + i + W : nullptr, W);
        c += square(v + i + 2 * W, w ? w + i + 2 * W : nullptr, W);
        d += square(v + i + 3 * W, w ? w + i + 3 * W : nullptr, W);
        if (++rounds == 16)
        {
          flush();
        }
      }
      for (; i < span; i += L::kWidth)
      {
        a += square(v + i, w ? w + i : nullptr, std::min(L::kWidth, span - i));
        if (++rounds == 16)
        {
          flush();
        }
      }
    }
    flush();
#else
    for (int n = 0; n < channels; ++n)
    {
      const float * v = view + static_cast<std::size_t>(n) * rows + k0;
      const float * w = weights ? weights + static_cast<std::size_t>(n) * rows + k0 : nullptr;
      for (int i = 0; i < span; i += 16)
      {
        float sum = 0.0f;
        for (int k = i; k < std::min(i + 16, span); ++k)
        {
          sum += (w ? w[k] : 1.0f) * v[k] * v[k];
        }
        total += sum;
      }
    }
#endif
    return total;
  }

  // Block by block; within a block each task owns one view and one range of detector rows (= slices),
  // so no two tasks write the same sinogram entry and the block's cylinders stay in cache. Where a norm is asked
  // for, each task sums its part after the last block, while that part is still in cache.
  void
  forward(const ParallelBeamModel & m,
          const CylinderBatch &     batch,
          const float *             values,
          const ViewRange &         views,
          float *                   sinogram,
          SquaredNorm *             norm = nullptr) const
  {
    withFootprintTaps(widestShadow(m.params, m.views + views.first, views.count), [&](auto radius, auto taps) {
      forwardByTaps<decltype(radius)::value, decltype(taps)::value>(m, batch, values, views, sinogram, norm);
    });
  }
  template<int Radius, int Taps>
  void
  forwardByTaps(const ParallelBeamModel & m,
                const CylinderBatch &     batch,
                const float *             values,
                const ViewRange &         views,
                float *                   sinogram,
                SquaredNorm *             norm) const
  {
    const kernels::ParallelBeamParams &     p = m.params;
    const int                               rows = p.numDetRows;
    const SliceWindow                       window = validSlices(batch, rows);
    const int                               span = std::max(0, window.last - window.first);
    const TileBlocks                        blocks = tileBlocks(batch, p.reconCols);
    const std::vector<kernels::PixelCentre> centres = pixelCentres(p, batch, blocks.order);
    const int                               numBlocks = static_cast<int>(blocks.starts.size()) - 1;
    const int                               chunks = rowChunks(span, views.count, m_Threads);
    const std::size_t                       viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
    std::vector<double> parts(norm ? static_cast<std::size_t>(views.count) * chunks : 0); // the tasks' norms
#pragma omp parallel num_threads(m_Threads)
    {
      std::vector<float>     spare(rows); // where padding taps write
      kernels::ChannelShadow shadows[kFootprintBlock];
      FootprintTaps<Taps>    taps;
      for (int block = 0; block < numBlocks; ++block)
      {
#pragma omp for collapse(2) schedule(static)
        for (int lv = 0; lv < views.count; ++lv)
        {
          for (int chunk = 0; chunk < chunks; ++chunk)
          {
            const int                       k0 = window.first + span * chunk / chunks;
            const int                       k1 = window.first + span * (chunk + 1) / chunks;
            const kernels::ParallelBeamView view = m.views[views.first + lv];
            float *                         sinoView = sinogram + lv * viewSize;
            for (int e0 = blocks.starts[block]; e0 < blocks.starts[block + 1]; e0 += kFootprintBlock)
            {
              const int lanes = std::min(kFootprintBlock, blocks.starts[block + 1] - e0);
#pragma omp simd
              for (int i = 0; i < lanes; ++i)
              {
                shadows[i] = kernels::parallelBeamShadow(p, view, centres[e0 + i].x, centres[e0 + i].y);
              }
              footprintTaps<Radius, Taps>(shadows, lanes, p.numDetChannels, taps);
              for (int i = 0; i < lanes; ++i)
              {
                const float * x =
                  values + static_cast<std::size_t>(blocks.order[e0 + i]) * batch.numSlices - window.offset;
                if constexpr (Taps > 0)
                {
                  if (!taps.scalar[i])
                  {
                    spreadTaps(taps, i, sinoView, rows, spare.data(), x, k0, k1);
                    continue;
                  }
                }
                const kernels::Footprint fp =
                  kernels::makeFootprint(shadows[i].centre, shadows[i].width, shadows[i].scale, p.numDetChannels);
                for (int n = fp.first; n <= fp.last; ++n)
                {
                  const float a = fp.weight(n);
                  if (a == 0.0f)
                  {
                    continue;
                  }
                  float * column = sinoView + static_cast<std::size_t>(n) * rows;
#pragma omp simd
                  for (int k = k0; k < k1; ++k)
                  {
                    column[k] += a * x[k];
                  }
                }
              }
            }
            if (norm && block == numBlocks - 1)
            {
              parts[static_cast<std::size_t>(lv) * chunks + chunk] = viewSquaredNorm(
                sinoView, norm->weights ? norm->weights + lv * viewSize : nullptr, p.numDetChannels, rows, k0, k1);
            }
          }
        }
      }
    }
    if (norm)
    {
      norm->sum = std::accumulate(parts.begin(), parts.end(), 0.0); // in task order: the same sum on every run
    }
  }

  // View by view on several threads (backByViews), else each task owns one cylinder and one slice range: a pure
  // gather.
  template<bool Weighted>
  void
  back(const ParallelBeamModel & m,
       const CylinderBatch &     batch,
       const float *             sinogram,
       const float *             weights,
       const ViewRange &         views,
       int                       power,
       float *                   values,
       const PendingUpdate *     pending) const
  {
    withFootprintTaps(widestShadow(m.params, m.views + views.first, views.count), [&](auto radius, auto taps) {
      backByTaps<Weighted, decltype(radius)::value, decltype(taps)::value>(
        m, batch, sinogram, weights, views, power, values, pending);
    });
  }
  template<bool Weighted, int Radius, int Taps>
  void
  backByTaps(const ParallelBeamModel & m,
             const CylinderBatch &     batch,
             const float *             sinogram,
             const float *             weights,
             const ViewRange &         views,
             int                       power,
             float *                   values,
             const PendingUpdate *     pending) const
  {
    // On several threads, view by view: a batch that fits in cache (a VCD subset) at once, and one that fills at least
    // half the image (a whole volume) a block of tiles at a time (TileBlocks), whose band of each view and sums stay in
    // L2: cylinder by cylinder was 10-30 % slower there on a Zen 5. A large scattered batch (a coarse subset) stays
    // cylinder by cylinder, since each block of its tiles still reaches every channel of the views (10 % slower by
    // views). The first block takes the pending update.
    const kernels::ParallelBeamParams & p = m.params;
    if (m_Threads > 1 && backsByBlocks(batch, p.reconRows, p.reconCols))
    {
      const TileBlocks                        blocks = tileBlocks(batch, p.reconCols);
      const std::vector<kernels::PixelCentre> centres = pixelCentres(p, batch, blocks.order);
      forEachTileBlock(blocks, pending, [&](int begin, int end, const PendingUpdate * update) {
        backByViews<Weighted, Radius, Taps>(
          m, batch, blocks.order, centres, begin, end, sinogram, weights, views, power, values, update);
      });
      return;
    }
    if (pending)
    {
      applyUpdate(*pending);
    }
    const int                               rows = p.numDetRows;
    const SliceWindow                       window = validSlices(batch, rows);
    const int                               span = std::max(0, window.last - window.first);
    const std::vector<int>                  order = tileBlocks(batch, p.reconCols).order;
    const std::vector<kernels::PixelCentre> centres = pixelCentres(p, batch, order);
    const int                               chunks = rowChunks(span, batch.numPixels, m_Threads);
    const std::size_t                       viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
    const std::vector<float>                zeros(rows, 0.0f); // what padding taps read
#pragma omp parallel num_threads(m_Threads)
    {
      kernels::ChannelShadow shadows[kFootprintBlock];
      FootprintTaps<Taps>    taps;
#pragma omp for collapse(2) schedule(dynamic, 8)
      for (int e = 0; e < batch.numPixels; ++e)
      {
        for (int chunk = 0; chunk < chunks; ++chunk)
        {
          const int k0 = window.first + span * chunk / chunks;
          const int k1 = window.first + span * (chunk + 1) / chunks;
          float *   out = values + static_cast<std::size_t>(order[e]) * batch.numSlices - window.offset;
          for (int v0 = 0; v0 < views.count; v0 += kFootprintBlock)
          {
            const int lanes = std::min(kFootprintBlock, views.count - v0);
#pragma omp simd
            for (int i = 0; i < lanes; ++i)
            {
              shadows[i] = kernels::parallelBeamShadow(p, m.views[views.first + v0 + i], centres[e].x, centres[e].y);
            }
            footprintTaps<Radius, Taps>(shadows, lanes, p.numDetChannels, taps);
            const float * sinoViews = sinogram + v0 * viewSize;
            if constexpr (Taps > 0)
            {
              gatherTaps<Taps, Weighted>(taps,
                                         lanes,
                                         power,
                                         sinoViews,
                                         Weighted ? weights + v0 * viewSize : nullptr,
                                         viewSize,
                                         rows,
                                         zeros.data(),
                                         out,
                                         k0,
                                         k1);
            }
            for (int i = 0; i < lanes; ++i)
            {
              if (taps.scalar[i])
              {
                addScalarFootprint<Weighted>(shadows[i],
                                             p.numDetChannels,
                                             power,
                                             sinoViews + i * viewSize,
                                             Weighted ? weights + (v0 + i) * viewSize : nullptr,
                                             rows,
                                             out,
                                             k0,
                                             k1);
              }
            }
          }
        }
      }
    }
  }

  // backBlock(begin, end, update) for each block of tiles in turn, the first with the pending update as `update` (the
  // others with null); with no cylinders, the update alone.
  template<typename BackBlock>
  void
  forEachTileBlock(const TileBlocks & blocks, const PendingUpdate * pending, BackBlock && backBlock) const
  {
    for (std::size_t b = 0; b + 1 < blocks.starts.size(); ++b)
    {
      backBlock(blocks.starts[b], blocks.starts[b + 1], b == 0 ? pending : nullptr);
    }
    if (blocks.starts.size() < 2 && pending)
    {
      applyUpdate(*pending);
    }
  }

  // A batch that fits in cache (a VCD subset's cylinders, or a block of a larger batch), on several threads, view by
  // view. Cylinder by cylinder every thread reads every view, so each line of the error sinogram sat in both cores'
  // caches when VCD's update wrote it, and every write had to take the line from the other core first: the update ran
  // at half its speed (perf, 2 threads). Here each task owns a group of consecutive views (and a range of slices), to
  // which it applies VCD's pending update just before it reads them. On one thread the gather is slower than cylinder
  // by cylinder (the sums leave registers every kViewBlock views), so one thread keeps that. Each group adds into sums
  // of its own, added up in group order at the end: groups of a fixed count of views, so that the result does not
  // depend on how many threads there are. Group 0 adds into `values` itself.
  static constexpr int kViewsPerGroup = 32, kMaxViewGroups = 8;
  static int
  viewGroups(int views)
  {
    return std::clamp(views / kViewsPerGroup, 1, kMaxViewGroups);
  }
  // The values of cylinder cylinders[e] += each group's sums[(group - 1) count + e slices + k] (k < slices, count =
  // numCylinders slices) after group 0's, in group order. Called by every thread of the parallel region, which
  // shares the cylinders among them.
  static void
  addGroupSums(const float * sums, int groups, const int * cylinders, int numCylinders, int slices, float * values)
  {
    const std::size_t count = static_cast<std::size_t>(numCylinders) * slices;
    for (int group = 1; group < groups; ++group)
    {
      const float * const add = sums + (group - 1) * count;
#pragma omp for schedule(static)
      for (int e = 0; e < numCylinders; ++e)
      {
        float * const       v = values + static_cast<std::size_t>(cylinders[e]) * slices;
        const float * const a = add + static_cast<std::size_t>(e) * slices;
#pragma omp simd
        for (int k = 0; k < slices; ++k)
        {
          v[k] += a[k];
        }
      }
    }
  }
  static constexpr int kViewBlock = 8; // views whose taps a cylinder's sums take in registers at once
  // out[k] += the footprint of `shadow` (to `power`) applied to a view's columns (times its weights), k in [k0, k1):
  // a footprint wider than its taps, the scalar way.
  template<bool Weighted>
  static void
  addScalarFootprint(const kernels::ChannelShadow & shadow,
                     int                            numCells,
                     int                            power,
                     const float *                  view,
                     const float *                  weights,
                     int                            rows,
                     float *                        out,
                     int                            k0,
                     int                            k1)
  {
    const kernels::Footprint fp = kernels::makeFootprint(shadow.centre, shadow.width, shadow.scale, numCells);
    for (int n = fp.first; n <= fp.last; ++n)
    {
      const float a = kernels::coefficientPower(fp.weight(n), power);
      if (a == 0.0f)
      {
        continue;
      }
      const float * column = view + static_cast<std::size_t>(n) * rows;
      const float * weight = Weighted ? weights + static_cast<std::size_t>(n) * rows : nullptr;
#pragma omp simd
      for (int k = k0; k < k1; ++k)
      {
        out[k] += Weighted ? a * weight[k] * column[k] : a * column[k];
      }
    }
  }
  template<bool Weighted, int Radius, int Taps>
  void
  backByViews(const ParallelBeamModel &                 m,
              const CylinderBatch &                     batch,
              const std::vector<int> &                  order,
              const std::vector<kernels::PixelCentre> & centres,
              int                                       begin,
              int                                       end,
              const float *                             sinogram,
              const float *                             weights,
              const ViewRange &                         views,
              int                                       power,
              float *                                   values,
              const PendingUpdate *                     pending) const
  {
    const kernels::ParallelBeamParams &     p = m.params;
    const int                               rows = p.numDetRows;
    const SliceWindow                       window = validSlices(batch, rows);
    const int                               span = std::max(0, window.last - window.first);
    const std::size_t                       viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
    const std::size_t                       count = static_cast<std::size_t>(end - begin) * batch.numSlices;
    const int                               groups = viewGroups(views.count);
    const int                               chunks = rowChunks(span, groups, m_Threads);
    const std::vector<float>                zeros(rows, 0.0f); // what padding taps read
    std::vector<float>                      sums((groups - 1) * count, 0.0f);
#pragma omp parallel num_threads(m_Threads)
    {
      kernels::ChannelShadow shadows[kViewBlock][kFootprintBlock];
      FootprintTaps<Taps>    taps[kViewBlock];
#pragma omp for collapse(2) schedule(static)
      for (int group = 0; group < groups; ++group)
      {
        for (int chunk = 0; chunk < chunks; ++chunk)
        {
          const int k0 = window.first + span * chunk / chunks;
          const int k1 = window.first + span * (chunk + 1) / chunks;
          float *   out = group == 0 ? values : sums.data() + (group - 1) * count;
          const int last = views.count * (group + 1) / groups;
          // The task reads rows [k0, k1) of its group's views, and applies the pending update to them, the first
          // and last chunks also to the rows outside the window.
          const int r0 = chunk == 0 ? 0 : k0, r1 = chunk == chunks - 1 ? rows : k1;
          for (int lv = views.count * group / groups; lv < last;)
          {
            auto block = [&](auto numViews) {
              constexpr int V = decltype(numViews)::value;
              applyUpdate(pending, viewSize, rows, lv, lv + V, r0, r1);
              const float * sinoViews[V];
              const float * weightViews[V];
              for (int j = 0; j < V; ++j)
              {
                sinoViews[j] = sinogram + (lv + j) * viewSize;
                weightViews[j] = Weighted ? weights + (lv + j) * viewSize : nullptr;
              }
              for (int e0 = begin; e0 < end; e0 += kFootprintBlock)
              {
                const int lanes = std::min(kFootprintBlock, end - e0);
                for (int j = 0; j < V; ++j)
                {
                  const kernels::ParallelBeamView view = m.views[views.first + lv + j];
#pragma omp simd
                  for (int i = 0; i < lanes; ++i)
                  {
                    shadows[j][i] = kernels::parallelBeamShadow(p, view, centres[e0 + i].x, centres[e0 + i].y);
                  }
                  footprintTaps<Radius, Taps>(shadows[j], lanes, p.numDetChannels, taps[j]);
                }
                for (int i = 0; i < lanes; ++i)
                {
                  // Group 0 adds into the cylinder's values, the others into their sums in the block's order.
                  const int e = group == 0 ? order[e0 + i] : e0 + i - begin;
                  float *   o = out + static_cast<std::size_t>(e) * batch.numSlices - window.offset;
                  if constexpr (Taps > 0)
                  {
                    gatherViews<Taps, V, Weighted>(
                      taps, i, power, sinoViews, weightViews, rows, zeros.data(), o, k0, k1);
                  }
                  for (int j = 0; j < V; ++j)
                  {
                    if (taps[j].scalar[i])
                    {
                      addScalarFootprint<Weighted>(
                        shadows[j][i], p.numDetChannels, power, sinoViews[j], weightViews[j], rows, o, k0, k1);
                    }
                  }
                }
              }
              return V;
            };
            lv += lv + kViewBlock <= last ? block(std::integral_constant<int, kViewBlock>{})
                                          : block(std::integral_constant<int, 1>{});
          }
        }
      }
      addGroupSums(sums.data(), groups, order.data() + begin, end - begin, batch.numSlices, values);
    }
  }

  // The vertical stage of the row-map geometries, b(m, k) as RowMap::slice gives it, over the slices of
  // the window whose shadow reaches rows [first, last]: column[m] += sum_k b(m, k) x[k - offset].
  static void
  spreadSlices(const kernels::RowMap & map,
               const float *           x,
               const SliceWindow &     window,
               int                     first,
               int                     last,
               float *                 column)
  {
    int k0, k1, unused;
    map.slicesReaching(first, window.last, k0, unused);
    map.slicesReaching(last, window.last, unused, k1);
    k0 = std::max(k0, window.first);
    const int radius = kernels::supportRadius(map.width);
    for (int k = k0; k <= k1; ++k)
    {
      const float value = x[k - window.offset];
      if (value == 0.0f)
      {
        continue;
      }
      const float centre = map.centre(k);
      const float scale = map.weightScale(k) * value;
      const int   nearest = kernels::nearestIndex(centre);
      const int   low = std::max(nearest - radius, first), high = std::min(nearest + radius, last);
      for (int m = low; m <= high; ++m)
      {
        column[m] += scale * kernels::trapezoid(centre - static_cast<float>(m), map.width);
      }
    }
  }

  // The transpose: out[k - offset] += sum_m b(m, k)^power column[m] over the window's slices.
  static void
  gatherSlices(const kernels::RowMap & map,
               const float *           column,
               int                     first,
               int                     last,
               int                     power,
               const SliceWindow &     window,
               float *                 out)
  {
    int k0, k1, unused;
    map.slicesReaching(first, window.last, k0, unused);
    map.slicesReaching(last, window.last, unused, k1);
    k0 = std::max(k0, window.first);
    const int radius = kernels::supportRadius(map.width);
    for (int k = k0; k <= k1; ++k)
    {
      const float centre = map.centre(k);
      const float scale = map.weightScale(k);
      const int   nearest = kernels::nearestIndex(centre);
      const int   low = std::max(nearest - radius, first), high = std::min(nearest + radius, last);
      float       sum = 0.0f;
      for (int m = low; m <= high; ++m)
      {
        sum += kernels::coefficientPower(scale * kernels::trapezoid(centre - static_cast<float>(m), map.width), power) *
               column[m];
      }
      out[k - window.offset] += sum;
    }
  }

  // Edges closer than this many cells take what falls between them from the density (densityBetweenEdges), farther
  // ones from the sums table (integralBetweenEdges), which only they need.
  static constexpr float kDirectSpan = 1.9f;
  // Slices less than this many rows high are gathered in the direct form too. On AVX2 the lookups of a wider reach than
  // one 8-entry permute (two permutes and a blend each, three per slice past a row) made the cone back projection
  // 12-20 % slower than the table, so it takes the direct form only where one permute serves (two cells, 7 dt + 1 <
  // 7: 3-4 % faster there); on AVX-512 (one permute each) a cone MBIR was 5 % faster with it at every step below
  // kDirectSpan. The portable loop keeps the table.
  static constexpr float kBackDensitySpan = MBIR_CPU_PATH == 2 ? kDirectSpan : MBIR_CPU_PATH == 1 ? 0.85f : 0.0f;

  // Where the slices' shadows tile the detector column (width == step: cone beam, translation) the vertical
  // stage is a box resampling, evaluated in closed form instead of slice by slice. In slice units the edge
  // m - 1/2 of row m lies at q(m) = (m - 1/2 - start) / step, and row m holds the fraction
  // |[q(m), q(m+1)] ∩ [k, k+1]| of slice k's shadow: b(m, k) = step * weightScale(k) * that fraction, the trapezoid
  // overlap of RowMap::slice in another form, which is weightScale(k) times the overlap in row units.
  struct BoxResampling
  {
    float start;   // row coordinate of the lower edge of slice 0's shadow
    float inverse; // slices per row
    float step;    // rows per slice

    // Whether the slices' shadows tile the map's detector column, so that the vertical stage is a box resampling.
    static bool
    applies(const kernels::RowMap & map)
    {
      return map.width == map.step;
    }
    // Whether the back stage of this coefficient power is gatherBox.
    static bool
    gathersByBox(const kernels::RowMap & map, int power)
    {
      return applies(map) && power == 1;
    }
    // Whether gatherBox takes the column's sums table (amountsBetweenEdges, below), for slices kBackDensitySpan rows
    // high or more.
    static bool
    gathersBySums(const kernels::RowMap & map, int power)
    {
      return gathersByBox(map, power) && !(map.step < kBackDensitySpan);
    }

    explicit BoxResampling(const kernels::RowMap & map)
      : start(map.first - 0.5f * map.step)
      , inverse(1.0f / map.step)
      , step(map.step)
    {}
    // The slice coordinate of the lower edge of row m.
    float
    edge(int m) const
    {
      return (static_cast<float>(m) - 0.5f - start) * inverse;
    }
    // Rows that can share one slice, from the row of the slice's lower edge on, with one more for rounding where
    // the step is just under a whole number of rows (the Hessian's squared coefficients, below).
    int
    rowsPerSlice() const
    {
      return static_cast<int>(step) + 4;
    }
  };
  // Entries of the SIMD blocks' lookup tables (at least 2 Lanes::kWidth), which the buffers they read hold beyond
  // their last index.
  static constexpr int kTableSize = 32;
  // floor(x) as an int, in a form the vectoriser takes (std::floor does not vectorise with its conversion).
  static int
  floorToInt(float x)
  {
    const int truncated = static_cast<int>(x);
    return truncated - (static_cast<float>(truncated) > x ? 1 : 0);
  }
  // The buffer's data, grown to at least `size` floats: never shrunk, so that it is not filled again each time.
  static float *
  atLeast(std::vector<float> & buffer, std::size_t size)
  {
    if (buffer.size() < size)
    {
      buffer.resize(size);
    }
    return buffer.data();
  }
  static float
  shadowFraction(float low, float high, int k)
  {
    return std::max(std::min(high, static_cast<float>(k + 1)) - std::max(low, static_cast<float>(k)), 0.0f);
  }

  // Both directions of the box resampling (power 1) as differences of an integral: a piecewise-constant density
  // d[j] on unit cells [j, j+1) has the integral I(t) = sums[j] + (t - j) d[j] below t, j = floor(t), with
  // sums[j] = d[lo] + ... + d[j-1]. The forward stage is column[m] = step (I(q(m+1)) - I(q(m))) over the slices'
  // g[k] = weightScale(k) x[k]; the back stage is out[k] += weightScale(k) (I(e(k+1)) - I(e(k))) over the column,
  // with e(k) = start + step k + 1/2 the edges of slice k in row cells. Each edge costs one pair of table lookups,
  // where the candidate-by-candidate overlaps cost one per slice (or row) an edge can meet. The two directions are
  // transposes of each other in exact arithmetic; in float the sums' rounding grows with the column as that of the
  // edges' own coordinates does, and the results are as close to A as the overlaps were (GeometryMatrix test), so
  // one float per sum is enough.

  // The tables are made where the density is, in the same pass (spreadBox, sumOfChannels): sums[lo] = 0, then
  // sums[j + 1] = sums[j] + d[j] for j < hi a vector at a time by runningSums, and sums[hi] repeated over the
  // kTableSize entries after hi (endTable).
#if MBIR_CPU_PATH > 0
  // The next vector of a sums table: the inclusive prefix sums of a vector of densities plus carry, the total of the
  // vectors before in every lane, which it then adds this vector's total to.
  static Lanes::Float
  runningSums(Lanes::Float density, Lanes::Float & carry)
  {
    const Lanes::Float block = Lanes::prefixSum(density);
    const Lanes::Float sums = block + carry;
    carry += Lanes::broadcastLast(block); // off the chain from one block to the next, which is then one add
    return sums;
  }
#endif
  static void
  endTable(float * sums, int hi)
  {
    std::fill_n(sums + hi + 1, kTableSize, sums[hi]);
  }

  // out[i] = scale (I(t(i + 1)) - I(t(i))) for i in [0, count), t(i) = t0 + dt i, with floor(t) clamped to [lo, hi],
  // where d is 0 (so that I is 0 below lo and sums[hi] from hi on): what falls between consecutive edges. Tables sums
  // and density hold kTableSize entries past hi.
  static void
  integralBetweenEdges(const float * sums,
                       const float * density,
                       int           lo,
                       int           hi,
                       float         t0,
                       float         dt,
                       int           count,
                       float         scale,
                       float *       out)
  {
    auto integralAt = [&](int e) {
      const float t = t0 + dt * static_cast<float>(e);
      const int   j = std::min(std::max(floorToInt(t), lo), hi);
      return sums[j] + (t - static_cast<float>(j)) * density[j];
    };
    int i = 0;
#if MBIR_CPU_PATH > 0
    // A vector of edges at once, each lane's entries looked up by a permute in the Width (dt < 1) or 2 x Width
    // (dt < 2) entries from the block's lowest cell on, instead of a gather, which the compiler emulates one lane at a
    // time. The cells grow from lane to lane by dt at most, which the clamp keeps, so the bounds on dt (with a margin
    // for rounding) keep every lane's cell in its table. A longer dt is left to the loop below. The integral at each
    // lane's lower edge is the one before it, moved up a lane from the block before; the last block's store is masked.
    using L = Lanes;
    static_assert(2 * L::kWidth <= kTableSize, "the buffers hold a table past their end");
    auto edges = [&](auto narrow) {
      const L::Int low = L::broadcast(lo), high = L::broadcast(hi);
      auto         integral = [&](L::Float t) {
        const L::Int   j = L::clamp(L::floorToInt(t), low, high);
        const int      base = L::first(j);
        const L::Int   cell = L::sub(j, L::broadcast(base));
        const L::Float fraction = t - L::toFloat(j);
        constexpr bool Narrow = decltype(narrow)::value;
        return lookupIn<Narrow>(sums + base, cell) + fraction * lookupIn<Narrow>(density + base, cell);
      };
      L::Float below = L::zero() + integralAt(0); // the lane moved up into the first block
      for (; i < count; i += L::kWidth)
      {
        const L::Float above = integral(t0 + dt * (static_cast<float>(i + 1) + L::laneNumbers()));
        storeLanes(out + i, scale * (above - L::shiftIn(below, above)), count - i);
        below = above;
      }
    };
    if (dt < 0.99f)
    {
      edges(std::true_type{});
    }
    else if (dt < 1.98f)
    {
      edges(std::false_type{});
    }
#endif
#pragma omp simd
    for (int e = i; e < count; ++e)
    {
      out[e] = scale * (integralAt(e + 1) - integralAt(e));
    }
  }

  // out[i] = scale (I(t(i + 1)) - I(t(i))) as integralBetweenEdges has it, for edges less than Cells - 1 cells apart
  // (dt < Cells - 1), from the density alone: the cells between two such edges are j = floor(t(i)) to j + Cells - 1
  // at most, and out[i] = scale sum_c |[t(i), t(i + 1)] ∩ [j + c, j + c + 1]| d[j + c], which needs no sums table
  // (whose prefix sums took a fifth of a cone forward projection). The same value in exact arithmetic, so either
  // direction may take either form and the pair stays an adjoint to float rounding. d holds kTableSize entries past
  // hi.
  template<int Cells>
  static void
  densityBetweenEdges(const float * density, int lo, int hi, float t0, float dt, int count, float scale, float * out)
  {
    static_assert(Cells >= 2, "the first and the last cell are each one overlap");
    int i = 0;
#if MBIR_CPU_PATH > 0
    // A vector of edges at once, each lane's cells looked up by permutes in the Width or 2 x Width entries from the
    // block's lowest cell on, as in integralBetweenEdges: the last lane's last cell is at most (Width - 1) dt + Cells
    // - 1 past the first lane's first (reach, with a margin for rounding); a longer reach is left to the loop below.
    using L = Lanes;
    static_assert(2 * L::kWidth <= kTableSize, "the buffers hold a table past their end");
    auto edges = [&](auto narrow) {
      const L::Int low = L::broadcast(lo), high = L::broadcast(hi);
      for (; i < count; i += L::kWidth)
      {
        const L::Float lower = t0 + dt * (static_cast<float>(i) + L::laneNumbers());
        const L::Float upper = lower + dt;
        const L::Int   j = L::clamp(L::floorToInt(lower), low, high);
        const int      base = L::first(j);
        const L::Int   cell = L::sub(j, L::broadcast(base));
        auto           at = [&](int c) {
          return lookupIn<decltype(narrow)::value>(density + base, L::add(cell, L::broadcast(c)));
        };
        L::Float edge = L::toFloat(j) + 1.0f; // the upper edge of cell j + c
        L::Float between = (L::min(upper, edge) - lower) * at(0);
        for (int c = 1; c < Cells - 1; ++c)
        {
          between += L::max(L::min(upper, edge + 1.0f) - edge, L::zero()) * at(c);
          edge += 1.0f;
        }
        storeLanes(out + i, scale * (between + L::max(upper - edge, L::zero()) * at(Cells - 1)), count - i);
      }
    };
    const float reach = static_cast<float>(L::kWidth - 1) * dt + static_cast<float>(Cells - 1) + 0.05f; // cells
    if (reach < static_cast<float>(L::kWidth - 1))
    {
      edges(std::true_type{});
    }
    else if (reach < static_cast<float>(2 * L::kWidth - 1))
    {
      edges(std::false_type{});
    }
#endif
    for (int e = i; e < count; ++e)
    {
      const float lower = t0 + dt * static_cast<float>(e), upper = lower + dt;
      const int   j = std::min(std::max(floorToInt(lower), lo), hi);
      float       sum = 0.0f;
      for (int c = 0; c < Cells; ++c)
      {
        sum += shadowFraction(lower, upper, j + c) * density[j + c];
      }
      out[e] = scale * sum;
    }
  }

  // out[i] = scale (I(t(i + 1)) - I(t(i))): from the sums table where the caller made one, else (dt < kDirectSpan)
  // from the density, which must then be 0 for two entries past hi.
  static void
  amountsBetweenEdges(const float * sums,
                      const float * density,
                      int           lo,
                      int           hi,
                      float         t0,
                      float         dt,
                      int           count,
                      float         scale,
                      float *       out)
  {
    if (sums)
    {
      return integralBetweenEdges(sums, density, lo, hi, t0, dt, count, scale, out);
    }
    const auto between = dt < 1.0f ? densityBetweenEdges<2> : densityBetweenEdges<3>;
    between(density, lo, hi, t0, dt, count, scale, out);
  }

#if MBIR_CPU_PATH > 0
  // RowMap::weightScale of the Width slices from k0 on, the square root by sqrtNewton (the square-root instruction
  // alone was a sixth of the cone forward projection).
  static Lanes::Float
  weightScales(const kernels::RowMap & map, int k0)
  {
    using L = Lanes;
    const L::Float t =
      map.obliquity * (map.first + map.step * (static_cast<float>(k0) + L::laneNumbers()) - map.axisRow);
    return map.scale * L::sqrtNewton(1.0f + t * t);
  }
#endif

  // column[m] = sum_k b(m, k) x[k - offset] for m in [first, last]. Local copies of the maps: the vectoriser must
  // know that the stores cannot change them.
  static void
  spreadBox(const kernels::RowMap & rowMap,
            const float *           x,
            const SliceWindow &     window,
            int                     first,
            int                     last,
            std::vector<float> &    scratch,
            float *                 column)
  {
    const kernels::RowMap map = rowMap;
    const BoxResampling   box(map);
    const int             kFirst = window.first, kLast = window.last, cells = kLast - kFirst + 2 + kTableSize;
    // g[k] and sums[k] for k in [kFirst - 1, kLast] and a table after; g is 0 outside the window.
    float * const g = atLeast(scratch, 2 * static_cast<std::size_t>(cells)) + 1 - kFirst;
    float * const sums = g + cells;
    g[kFirst - 1] = 0.0f;
    std::fill_n(g + kLast, kTableSize, 0.0f);
    const float * const xk = x - window.offset;
    if (box.inverse < kDirectSpan)
    {
      int k = kFirst;
#if MBIR_CPU_PATH > 0
      for (; k + Lanes::kWidth <= kLast; k += Lanes::kWidth)
      {
        Lanes::store(g + k, weightScales(map, k) * Lanes::load(xk + k));
      }
#endif
#pragma omp simd
      for (int j = k; j < kLast; ++j)
      {
        g[j] = map.weightScale(j) * xk[j];
      }
      return amountsBetweenEdges(
        nullptr, g, kFirst - 1, kLast, box.edge(first), box.inverse, last - first + 1, box.step, column + first);
    }
    sums[kFirst - 1] = 0.0f;
    sums[kFirst] = 0.0f;
    int k = kFirst;
#if MBIR_CPU_PATH > 0
    // g and its sums table in one pass.
    Lanes::Float carry = Lanes::zero();
    for (; k + Lanes::kWidth <= kLast; k += Lanes::kWidth)
    {
      const Lanes::Float gk = weightScales(map, k) * Lanes::load(xk + k);
      Lanes::store(g + k, gk);
      Lanes::store(sums + k + 1, runningSums(gk, carry));
    }
#endif
#pragma omp simd
    for (int j = k; j < kLast; ++j)
    {
      g[j] = map.weightScale(j) * xk[j];
    }
    for (; k < kLast; ++k)
    {
      sums[k + 1] = sums[k] + g[k];
    }
    endTable(sums, kLast);
    integralBetweenEdges(
      sums, g, kFirst - 1, kLast, box.edge(first), box.inverse, last - first + 1, box.step, column + first);
  }

  // The transpose: out[k - offset] += sum_m b(m, k) column[m] over the window's slices and rows [first, last];
  // column[first - 1] to column[last + 3] must exist and be 0 outside [first, last], and kTableSize entries after
  // column[last + 1] exist. sums: where BoxResampling::gathersBySums, the column's sums table over [first - 1,
  // last + 1], which the caller made with the column; else null.
  static void
  gatherBox(const kernels::RowMap & rowMap,
            const float *           column,
            const float *           sums,
            int                     first,
            int                     last,
            const SliceWindow &     window,
            std::vector<float> &    scratch,
            float *                 out)
  {
    const kernels::RowMap map = rowMap;
    const BoxResampling   box(map);
    const int             slices = window.last - window.first;
    float * const between = atLeast(scratch, static_cast<std::size_t>(slices)); // the column's share of each slice
    amountsBetweenEdges(sums,
                        column,
                        first - 1,
                        last + 1,
                        box.start + box.step * static_cast<float>(window.first) + 0.5f,
                        box.step,
                        slices,
                        1.0f,
                        between);
    float * const outk = out - window.offset + window.first;
    int           i = 0;
#if MBIR_CPU_PATH > 0
    using L = Lanes;
    for (; i + L::kWidth <= slices; i += L::kWidth)
    {
      L::store(outk + i, L::load(outk + i) + weightScales(map, window.first + i) * L::load(between + i));
    }
#endif
#pragma omp simd
    for (int j = i; j < slices; ++j)
    {
      outk[j] += map.weightScale(window.first + j) * between[j];
    }
  }

#if MBIR_CPU_PATH > 0
  // The Hessian's squared coefficients b(m, k)^2, which no integral gives: per slice, RowsPerSlice candidate rows
  // from the row of the slice's lower edge on (those that miss get exactly 0), in SIMD lanes of slices with the same
  // operations per coefficient as the loop of gatherSquaredBox (the slices' weights those of the projections,
  // weightScales), each lane's row looked up in a table as above. A
  // block whose rows span more than the table is left to that loop, as is the tail; returns where it stopped.
  template<int RowsPerSlice>
  static int
  gatherSquaredBoxLanes(const kernels::RowMap & map,
                        const float *           column,
                        int                     first,
                        int                     last,
                        int                     kBegin,
                        int                     kEnd,
                        float *                 outk)
  {
    using L = Lanes;
    const BoxResampling box(map);
    const L::Int        lowest = L::broadcast(first - 1), highest = L::broadcast(last + 1);
    int                 k = kBegin;
    for (; k + L::kWidth <= kEnd; k += L::kWidth)
    {
      const L::Float slices = static_cast<float>(k) + L::laneNumbers();
      const L::Float weight = box.step * weightScales(map, k);
      const L::Int   m0 = L::floorToInt(box.start + box.step * slices - 0.5f);
      const int      base = std::min(std::max(L::first(m0), first - 1), last + 1); // m0 grows from lane to lane
      const int      top = std::min(std::max(L::last(m0) + RowsPerSlice - 1, first - 1), last + 1);
      if (top - base >= 2 * L::kWidth)
      {
        break;
      }
      L::Float rows = L::toFloat(m0);
      L::Float low = (rows - 0.5f - box.start) * box.inverse;
      L::Float sum = L::zero();
      for (int j = 0; j < RowsPerSlice; ++j)
      {
        rows += 1.0f;
        const L::Float high = (rows - 0.5f - box.start) * box.inverse;
        const L::Float b = weight * L::max(L::min(high, slices + 1.0f) - L::max(low, slices), L::zero());
        const L::Int   row = L::clamp(L::add(m0, L::broadcast(j)), lowest, highest);
        sum += b * b * L::lookup(column + base, L::sub(row, L::broadcast(base)));
        low = high;
      }
      L::store(outk + k, L::load(outk + k) + sum);
    }
    return k;
  }
#endif

  // out[k - offset] += sum_m b(m, k)^2 column[m], with the column as gatherBox takes it.
  template<int RowsPerSlice>
  static void
  gatherSquaredBox(const kernels::RowMap & rowMap,
                   const float *           column,
                   int                     first,
                   int                     last,
                   const SliceWindow &     window,
                   float *                 out)
  {
    const kernels::RowMap map = rowMap;
    const BoxResampling   box(map);
    float * const         outk = out - window.offset;
    int                   rest = window.first;
#if MBIR_CPU_PATH > 0
    rest = gatherSquaredBoxLanes<RowsPerSlice>(map, column, first, last, window.first, window.last, outk);
#endif
#pragma omp simd
    for (int k = rest; k < window.last; ++k)
    {
      const float weight = box.step * map.weightScale(k);
      const int   m0 = floorToInt(box.start + box.step * static_cast<float>(k) - 0.5f);
      float       sum = 0.0f;
#pragma GCC unroll 8
      for (int j = 0; j < RowsPerSlice; ++j)
      {
        const int   m = m0 + j;
        const float b = weight * shadowFraction(box.edge(m), box.edge(m + 1), k);
        sum += b * b * column[std::min(std::max(m, first - 1), last + 1)];
      }
      outk[k] += sum;
    }
  }

  // The vertical stage of one (view, cylinder): the box resampling where it applies, else slice by slice.
  static void
  spreadColumn(const kernels::RowMap & map,
               const float *           x,
               const SliceWindow &     window,
               int                     first,
               int                     last,
               std::vector<float> &    scratch,
               float *                 column)
  {
    if (BoxResampling::applies(map))
    {
      return spreadBox(map, x, window, first, last, scratch, column);
    }
    std::fill(column + first, column + last + 1, 0.0f);
    spreadSlices(map, x, window, first, last, column);
  }
  static void
  gatherColumn(const kernels::RowMap & map,
               const float *           column,
               const float *           columnSums,
               int                     first,
               int                     last,
               int                     power,
               const SliceWindow &     window,
               std::vector<float> &    scratch,
               float *                 out)
  {
    if (BoxResampling::gathersByBox(map, power))
    {
      return gatherBox(map, column, columnSums, first, last, window, scratch, out);
    }
    if (BoxResampling::applies(map))
    {
      const int rowsPerSlice = BoxResampling(map).rowsPerSlice();
      if (rowsPerSlice <= 7)
      {
        using Gather = void (*)(const kernels::RowMap &, const float *, int, int, const SliceWindow &, float *);
        static constexpr Gather gathers[4] = {
          gatherSquaredBox<4>, gatherSquaredBox<5>, gatherSquaredBox<6>, gatherSquaredBox<7>
        };
        return gathers[rowsPerSlice - 4](map, column, first, last, window, out);
      }
    }
    gatherSlices(map, column, first, last, power, window, out);
  }

  // y[i] += a x[i] (w[i] when w is given) for i in [0, count): the detector-column loops of the row-map geometries,
  // a few channels of one to a few hundred rows per (view, cylinder). The SIMD paths do the remainder in one masked
  // vector, where a loop of up to Width - 1 rows would cost as much as the rest of the column.
  static void
  addScaled(float a, const float * x, const float * w, int count, float * y)
  {
#if MBIR_CPU_PATH > 0
    using L = Lanes;
    int i = 0;
    for (; i + L::kWidth <= count; i += L::kWidth)
    {
      const L::Float v = w ? L::load(w + i) * L::load(x + i) : L::load(x + i);
      L::store(y + i, L::load(y + i) + a * v);
    }
    if (i < count)
    {
      const int      rest = count - i;
      const L::Float v = w ? L::loadFirst(w + i, rest) * L::loadFirst(x + i, rest) : L::loadFirst(x + i, rest);
      L::storeFirst(y + i, L::loadFirst(y + i, rest) + a * v, rest);
    }
#else
#  pragma omp simd
    for (int j = 0; j < count; ++j)
    {
      y[j] += a * (w ? w[j] * x[j] : x[j]);
    }
#endif
  }

  // y[i] = sum_c a[c] x_c[i] (w_c[i] when w is given) for i in [0, count), x_c = x + offset[c] (and w_c): the back
  // projection's detector column from its channels, a vector of rows at once over all channels, so that the column is
  // stored once rather than read and written again for each channel as addScaled would. Where sums is given, also
  // sums[0] = 0 and sums[i + 1] = y[0] + ... + y[i], the box resampling's table, in the same pass.
  static void
  sumOfChannels(const float *       a,
                const std::size_t * offset,
                int                 channels,
                const float *       x,
                const float *       w,
                int                 count,
                float *             y,
                float *             sums)
  {
    if (sums)
    {
      sums[0] = 0.0f;
    }
#if MBIR_CPU_PATH > 0
    using L = Lanes;
    L::Float carry = L::zero();
    for (int i = 0; i < count; i += L::kWidth)
    {
      const int rest = std::min(L::kWidth, count - i);
      L::Float  sum = L::zero();
      for (int c = 0; c < channels; ++c)
      {
        const float * const xc = x + offset[c] + i;
        if (rest == L::kWidth)
        {
          sum += a[c] * (w ? L::load(w + offset[c] + i) * L::load(xc) : L::load(xc));
        }
        else
        {
          sum += a[c] * (w ? L::loadFirst(w + offset[c] + i, rest) * L::loadFirst(xc, rest) : L::loadFirst(xc, rest));
        }
      }
      storeLanes(y + i, sum, rest);
      if (sums)
      {
        storeLanes(sums + i + 1, runningSums(sum, carry), rest);
      }
    }
#else
    std::fill_n(y, count, 0.0f);
    for (int c = 0; c < channels; ++c)
    {
      addScaled(a[c], x + offset[c], w ? w + offset[c] : nullptr, count, y);
    }
    for (int j = 0; sums && j < count; ++j)
    {
      sums[j + 1] = sums[j] + y[j];
    }
#endif
  }

  // What each of a block of (view, cylinder) pairs needs from its projection: the projection, the rows that the
  // window's slices reach, and the weights of its first kChannelWeights channels (past them, the scalar way). Each
  // field is an array over the pairs, so that the loop working them out stores whole vectors.
  static constexpr int kChannelWeights = 4;
  struct ColumnBlock
  {
    float channelCentre[kFootprintBlock], channelWidth[kFootprintBlock], channelScale[kFootprintBlock];
    int   firstChannel[kFootprintBlock], lastChannel[kFootprintBlock];
    float rowFirst[kFootprintBlock], rowStep[kFootprintBlock], rowWidth[kFootprintBlock], rowScale[kFootprintBlock];
    float axisRow[kFootprintBlock], obliquity[kFootprintBlock];
    int   firstRow[kFootprintBlock], lastRow[kFootprintBlock];
    float weight[kChannelWeights][kFootprintBlock];

    kernels::Footprint
    channels(int i) const
    {
      return { channelCentre[i], channelWidth[i], channelScale[i], firstChannel[i], lastChannel[i] };
    }
    kernels::RowMap
    rows(int i) const
    {
      return { rowFirst[i], rowStep[i], rowWidth[i], rowScale[i], axisRow[i], obliquity[i] };
    }
    // The weight of channel n of pair i.
    float
    channelWeight(int i, int n) const
    {
      const int c = n - firstChannel[i];
      return c < kChannelWeights ? weight[c][i] : channels(i).weight(n);
    }
  };

  // The projection of (view, the cylinder centred at `centre`); for cone beam, the detector's shape chosen at compile
  // time (Curved), since a branch on it kept the loop over pairs scalar.
  template<bool Curved, typename Params>
  static kernels::PixelProjection
  projectionOf(const Params & p, const typename Params::View & view, kernels::PixelCentre centre)
  {
    if constexpr (std::is_same_v<Params, kernels::ConeBeamParams>)
    {
      return kernels::coneBeamProjection<Curved>(p, view, centre);
    }
    else
    {
      return kernels::pixelProjection(p, view, centre);
    }
  }

  // The block of pairs i < lanes: (views[i], centres[0]) when ByView, else (views[0], centres[i]). In SIMD lanes: one
  // pair at a time, their scalar arithmetic was a fifth of a cone projection. The loop is written as GCC vectorises
  // it: the block's fields stored one by one, the rows reached from the map's fields, the pairs indexed here rather
  // than by a closure (an aggregate whose address a call or closure took became an array per SIMD lane, and the loop
  // stayed scalar).
  template<bool ByView, typename Params>
  static void
  columnsOf(const Params &                p,
            int                           lanes,
            const SliceWindow &           window,
            const typename Params::View * views,
            const kernels::PixelCentre *  centres,
            ColumnBlock &                 block)
  {
    const int kFirst = window.first, kLast = window.last - 1, numRows = p.numDetRows;
    auto      fill = [&](auto curved) {
#pragma omp simd
      for (int i = 0; i < lanes; ++i)
      {
        const kernels::PixelProjection proj =
          projectionOf<decltype(curved)::value>(p, views[ByView ? i : 0], centres[ByView ? 0 : i]);
        block.channelCentre[i] = proj.channels.center;
        block.channelWidth[i] = proj.channels.width;
        block.channelScale[i] = proj.channels.scale;
        block.firstChannel[i] = proj.channels.first;
        block.lastChannel[i] = proj.channels.last;
        block.rowFirst[i] = proj.rows.first;
        block.rowStep[i] = proj.rows.step;
        block.rowWidth[i] = proj.rows.width;
        block.rowScale[i] = proj.rows.scale;
        block.axisRow[i] = proj.rows.axisRow;
        block.obliquity[i] = proj.rows.obliquity;
        const kernels::RowRange reached =
          kernels::rowsReached(proj.rows.first, proj.rows.step, proj.rows.width, kFirst, kLast, numRows);
        block.firstRow[i] = reached.first;
        block.lastRow[i] = reached.last;
        for (int c = 0; c < kChannelWeights; ++c)
        {
          block.weight[c][i] = proj.channels.weight(proj.channels.first + c);
        }
      }
    };
    if constexpr (std::is_same_v<Params, kernels::ConeBeamParams>)
    {
      if (p.curved)
      {
        return fill(std::true_type{});
      }
    }
    fill(std::false_type{});
  }

  // Geometries with a row map (cone, translation, multi-axis): each task owns one view, so no two tasks
  // write the same sinogram entry. Per cylinder the slices are first spread onto a detector column
  // (vertical stage), which is then added to the channels it hits (horizontal stage). A batch that fills half the image
  // goes block by block of tiles, as for parallel beam: a block's cylinders stay in L2 across the views, where the
  // whole batch was read from L3 or memory once per view (256-class cone 1.2x, translation 1.5x faster on a Zen 5). A
  // scattered batch stays in one block: its blocks would each reach every channel of every view, and the sinogram,
  // past the L3, was then read once per block (10-15 % slower). The static schedule gives a thread the same views in
  // every block, and the views that VCD's update (and backByViews) give it, so that their lines stay in its cache;
  // where a norm is asked for, each task sums its view after the last block, while the view is still in cache.
  template<typename Params>
  void
  forward(const GeometryModel<Params> & m,
          const CylinderBatch &         batch,
          const float *                 values,
          const ViewRange &             views,
          float *                       sinogram,
          SquaredNorm *                 norm = nullptr) const
  {
    const Params &                          p = m.params;
    const int                               rows = p.numDetRows;
    const SliceWindow                       window = validSlices(batch, p.reconSlices);
    TileBlocks                              blocks = tileBlocks(batch, p.reconCols);
    const std::vector<kernels::PixelCentre> centres = pixelCentres(p, batch, blocks.order);
    if (!fillsHalfTheImage(batch, p.reconRows, p.reconCols))
    {
      blocks.starts = { 0, batch.numPixels };
    }
    const int         numBlocks = static_cast<int>(blocks.starts.size()) - 1;
    const std::size_t viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
    if (window.last <= window.first)
    {
      return; // nothing written: a norm stays 0
    }
    std::vector<double> parts(norm ? views.count : 0); // the views' norms
#pragma omp parallel num_threads(m_Threads)
    {
      std::vector<float> column(rows), scratch;
      ColumnBlock        block;
      for (int tiles = 0; tiles < numBlocks; ++tiles)
      {
        const int begin = blocks.starts[tiles], end = blocks.starts[tiles + 1];
#pragma omp for schedule(static)
        for (int lv = 0; lv < views.count; ++lv)
        {
          const typename Params::View view = m.views[views.first + lv];
          float *                     sinoView = sinogram + lv * viewSize;
          for (int e = begin; e < end; ++e)
          {
            // The projections of a block of cylinders at once, in SIMD lanes.
            const int i = (e - begin) % kFootprintBlock;
            if (i == 0)
            {
              columnsOf<false>(p, std::min(kFootprintBlock, end - e), window, &view, &centres[e], block);
            }
            const int first = block.firstRow[i], last = block.lastRow[i];
            if (block.lastChannel[i] < block.firstChannel[i] || last < first)
            {
              continue;
            }
            spreadColumn(block.rows(i),
                         values + static_cast<std::size_t>(blocks.order[e]) * batch.numSlices,
                         window,
                         first,
                         last,
                         scratch,
                         column.data());
            for (int n = block.firstChannel[i]; n <= block.lastChannel[i]; ++n)
            {
              const float a = block.channelWeight(i, n);
              if (a == 0.0f)
              {
                continue;
              }
              addScaled(a, column.data() + first, nullptr, last - first + 1, sinoView + std::size_t(n) * rows + first);
            }
          }
          if (norm && tiles == numBlocks - 1)
          {
            parts[lv] = viewSquaredNorm(
              sinoView, norm->weights ? norm->weights + lv * viewSize : nullptr, p.numDetChannels, rows, 0, rows);
          }
        }
      }
    }
    if (norm)
    {
      norm->sum = std::accumulate(parts.begin(), parts.end(), 0.0); // in view order: the same sum on every run
    }
  }

  // What one thread of a row-map back projection works in: the detector column with a 0 on either side and a
  // table after it, its prefix sums over [-1, rows] with the table after, and the pair's channels.
  struct ColumnScratch
  {
    explicit ColumnScratch(int rows)
      : buffer(rows + 2 + kTableSize)
      , table(rows + 3 + kTableSize)
    {}
    std::vector<float>       buffer, table, scratch, coefficients;
    std::vector<std::size_t> offsets;
    ColumnBlock              block;

    float *
    column()
    {
      return buffer.data() + 1;
    }
    float *
    sums()
    {
      return table.data() + 1;
    }
  };

  // out[k - offset] += the back projection of pair i of the scratch's block, at view lv of the range: gather the
  // channels into a detector column, then the column into the slices.
  template<bool Weighted>
  static void
  gatherPair(ColumnScratch &     s,
             int                 i,
             int                 lv,
             std::size_t         viewSize,
             int                 rows,
             const float *       sinogram,
             const float *       weights,
             int                 power,
             const SliceWindow & window,
             float *             out)
  {
    const ColumnBlock & block = s.block;
    const int           first = block.firstRow[i], last = block.lastRow[i];
    if (block.lastChannel[i] < block.firstChannel[i] || last < first)
    {
      return;
    }
    // The channels that meet the pair, with their coefficients.
    s.coefficients.clear();
    s.offsets.clear();
    for (int n = block.firstChannel[i]; n <= block.lastChannel[i]; ++n)
    {
      const float a = kernels::coefficientPower(block.channelWeight(i, n), power);
      if (a != 0.0f)
      {
        s.coefficients.push_back(a);
        s.offsets.push_back(lv * viewSize + static_cast<std::size_t>(n) * rows + first);
      }
    }
    // The box resampling's sums table, made with the column.
    const kernels::RowMap map = block.rows(i);
    const bool            box = BoxResampling::gathersBySums(map, power);
    float * const         column = s.column();
    float * const         sums = s.sums();
    column[first - 1] = column[last + 1] = column[last + 2] = column[last + 3] = 0.0f;
    sums[first - 1] = 0.0f;
    sumOfChannels(s.coefficients.data(),
                  s.offsets.data(),
                  static_cast<int>(s.coefficients.size()),
                  sinogram,
                  Weighted ? weights : nullptr,
                  last - first + 1,
                  column + first,
                  box ? sums + first : nullptr);
    if (box)
    {
      endTable(sums, last + 1);
    }
    gatherColumn(map, column, box ? sums : nullptr, first, last, power, window, s.scratch, out);
  }

  // Row-map geometries (cone, translation, multi-axis). Where the views make a group for every thread, a batch that
  // fits in cache (a VCD subset's cylinders) goes view by view (backByViews), and one that fills half the image so a
  // block of tiles at a time (as fast as cylinder by cylinder at 256-class on a Zen 5, and it takes VCD's pending
  // update view by view); a large scattered batch, or a scan of too few views (whose groups would leave threads idle),
  // goes cylinder by cylinder, each task owning one cylinder and gathering it from every view. The same row map as the
  // forward direction, so the pair is an exact adjoint.
  template<bool Weighted, typename Params>
  void
  back(const GeometryModel<Params> & m,
       const CylinderBatch &         batch,
       const float *                 sinogram,
       const float *                 weights,
       const ViewRange &             views,
       int                           power,
       float *                       values,
       const PendingUpdate *         pending) const
  {
    const Params &    p = m.params;
    const int         rows = p.numDetRows;
    const SliceWindow window = validSlices(batch, p.reconSlices);
    const bool        byViews = window.last > window.first && backsByBlocks(batch, p.reconRows, p.reconCols) &&
                         viewGroups(views.count) >= m_Threads;
    if (pending && !byViews) // elsewhere backByViews applies it view by view
    {
      applyUpdate(*pending);
    }
    if (window.last <= window.first)
    {
      return;
    }
    const TileBlocks                        blocks = tileBlocks(batch, p.reconCols);
    const std::vector<int> &                order = blocks.order;
    const std::vector<kernels::PixelCentre> centres = pixelCentres(p, batch, order);
    const std::size_t                       viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
    if (byViews)
    {
      forEachTileBlock(blocks, pending, [&](int begin, int end, const PendingUpdate * update) {
        backByViews<Weighted>(
          m, batch, order, centres, begin, end, sinogram, weights, views, power, window, values, update);
      });
      return;
    }
#pragma omp parallel num_threads(m_Threads)
    {
      ColumnScratch s(rows);
#pragma omp for schedule(dynamic, 4)
      for (int e = 0; e < batch.numPixels; ++e)
      {
        float * out = values + static_cast<std::size_t>(order[e]) * batch.numSlices;
        for (int lv = 0; lv < views.count; ++lv)
        {
          // The projections of a block of views at once, in SIMD lanes.
          if (lv % kFootprintBlock == 0)
          {
            columnsOf<true>(
              p, std::min(kFootprintBlock, views.count - lv), window, &m.views[views.first + lv], &centres[e], s.block);
          }
          gatherPair<Weighted>(s, lv % kFootprintBlock, lv, viewSize, rows, sinogram, weights, power, window, out);
        }
      }
    }
  }

  // Each task owns a group of consecutive views and gathers every cylinder from them, so that (as for parallel beam)
  // each thread reads about the views that VCD's update, statically scheduled, writes from the same core, where
  // cylinder by cylinder every view's lines sat in both cores' caches. Each group adds into sums of its own, added
  // up in group order at the end: a fixed count of views per group, so that wherever this path is taken the result
  // does not depend on how many threads there are. Group 0 adds into `values` itself.
  template<bool Weighted, typename Params>
  void
  backByViews(const GeometryModel<Params> &             m,
              const CylinderBatch &                     batch,
              const std::vector<int> &                  order,
              const std::vector<kernels::PixelCentre> & centres,
              int                                       begin,
              int                                       end,
              const float *                             sinogram,
              const float *                             weights,
              const ViewRange &                         views,
              int                                       power,
              const SliceWindow &                       window,
              float *                                   values,
              const PendingUpdate *                     pending) const
  {
    const Params &     p = m.params;
    const int          rows = p.numDetRows;
    const std::size_t  viewSize = static_cast<std::size_t>(p.numDetChannels) * rows;
    const std::size_t  slices = batch.numSlices;
    const std::size_t  count = static_cast<std::size_t>(end - begin) * slices;
    const int          groups = viewGroups(views.count);
    std::vector<float> sums((groups - 1) * count, 0.0f); // in the block's order
#pragma omp parallel num_threads(m_Threads)
    {
      ColumnScratch s(rows);
#pragma omp for schedule(static)
      for (int group = 0; group < groups; ++group)
      {
        const int last = views.count * (group + 1) / groups;
        for (int lv = views.count * group / groups; lv < last; ++lv)
        {
          const typename Params::View view = m.views[views.first + lv];
          applyUpdate(pending, viewSize, rows, lv, lv + 1, 0, rows); // a view that this task alone reads
          for (int e = begin; e < end; ++e)
          {
            // The projections of a block of cylinders at once, in SIMD lanes.
            const int i = (e - begin) % kFootprintBlock;
            if (i == 0)
            {
              columnsOf<false>(p, std::min(kFootprintBlock, end - e), window, &view, &centres[e], s.block);
            }
            float * const out =
              group == 0 ? values + order[e] * slices : sums.data() + (group - 1) * count + (e - begin) * slices;
            gatherPair<Weighted>(s, i, lv, viewSize, rows, sinogram, weights, power, window, out);
          }
        }
      }
      addGroupSums(sums.data(), groups, order.data() + begin, end - begin, batch.numSlices, values);
    }
  }

  int m_Threads;
};

} // namespace

std::shared_ptr<Backend>
cpu::MBIR_CPU_PATH_NAMESPACE::makeBackend(int numThreads)
{
  return std::make_shared<CpuBackend>(numThreads);
}

} // namespace mbir
