// Transmission preprocessing and centre-of-rotation calibration (include/mbir/Preprocessing.h). Host code,
// parallel over views or detector cells with OpenMP.

#include "mbir/Preprocessing.h"
#include "cpu/CpuThreads.h"

#include "mbir/Backend.h"
#include "mbir/Reconstructor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace mbir {

namespace {

constexpr std::uint8_t kEntryBad = 1;

float
medianOf(std::vector<float> & values)
{
  if (values.empty())
    return std::numeric_limits<float>::quiet_NaN();
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const float upper = values[mid];
  if (values.size() % 2 == 1)
    return upper;
  const float lower = *std::max_element(values.begin(), values.begin() + mid);
  return 0.5f * (lower + upper);
}

// The median of six values (the mean of the middle two), without branches: a sorting network.
inline float
medianOfSix(float * v)
{
  auto order = [v](int a, int b) {
    const float low = std::min(v[a], v[b]), high = std::max(v[a], v[b]);
    v[a] = low;
    v[b] = high;
  };
  order(0, 5);
  order(1, 3);
  order(2, 4);
  order(1, 2);
  order(3, 4);
  order(0, 3);
  order(2, 5);
  order(0, 1);
  order(2, 3);
  order(4, 5);
  order(1, 2);
  order(3, 4);
  return 0.5f * (v[2] + v[3]);
}

std::string
fixed(double value, int digits)
{
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

// The per-cell mean over the finite values of a field stack; NaN where a cell has none.
std::vector<float>
averageField(const ArrayView3 & field, int rows, int channels, const char * name)
{
  if (field.empty())
    return {};
  if (!field.onHost())
    throw std::invalid_argument(std::string("preprocessing: the ") + name + " fields must be in host memory");
  if (field.shape[0] < 1 || field.shape[1] != rows || field.shape[2] != channels)
  {
    throw std::invalid_argument(std::string("preprocessing: the ") + name + " fields have shape " + field.str() +
                                " but the counts have " + std::to_string(rows) + " rows and " +
                                std::to_string(channels) + " channels (expected (n, " + std::to_string(rows) + ", " +
                                std::to_string(channels) + "))");
  }
  const std::size_t  cells = static_cast<std::size_t>(rows) * channels;
  std::vector<float> mean(cells);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(cells); ++i)
  {
    double sum = 0.0;
    int    n = 0;
    for (int k = 0; k < field.shape[0]; ++k)
    {
      const float v = field.data[k * cells + i];
      if (std::isfinite(v))
      {
        sum += v;
        ++n;
      }
    }
    mean[i] = n > 0 ? static_cast<float>(sum / n) : std::numeric_limits<float>::quiet_NaN();
  }
  return mean;
}

// Whole detector rows that fail (a readout line stuck dark or bright during the scan) look normal next to the
// channels of their own row, so the cell test misses them. Per row, the median over ~32 views and the good
// channels in the object's shadow of (value - the mean of the nearest good rows above and below); the row
// farthest from the others, in the robust spread of that over the rows, is flagged (every cell) if beyond the
// limit, and the rest are measured again without it, since a failed row also shifts its neighbours. This
// assumes neighbouring rows see similar projections, as a detector with many rows across the object does.
// Returns how many rows it flagged.
constexpr float kRowFraction = 0.25f;

int
flagBadRows(const std::vector<float> &        sino,
            const std::vector<std::uint8_t> & entryBad,
            std::vector<std::uint8_t> &       badCells,
            const SinogramShape &             s,
            const PreprocessParams &          params,
            std::vector<std::string> &        notes)
{
  if (s.rows < 5)
    return 0;
  const std::size_t cells = static_cast<std::size_t>(s.rows) * s.channels;
  const int         step = std::max(1, (s.views + 31) / 32);
  std::vector<char> rowFlagged(s.rows, 0);
  auto              cellBad = [&](int r, int c) { return badCells[static_cast<std::size_t>(r) * s.channels + c] != 0; };
  int               flagged = 0;
  float             limit = 0.0f;
  for (int round = 0; round < std::min(s.rows / 4, 16); ++round)
  {
    std::vector<float> deviation(s.rows, std::numeric_limits<float>::quiet_NaN()), levels(s.rows, 0.0f);
#pragma omp parallel
    {
      std::vector<float> values, besides, own, shadow;
#pragma omp for schedule(dynamic)
      for (int r = 0; r < s.rows; ++r)
      {
        if (rowFlagged[r])
          continue;
        int above = r - 1, below = r + 1;
        while (above >= 0 && rowFlagged[above])
          --above;
        while (below < s.rows && rowFlagged[below])
          ++below;
        if (above < 0)
          above = below; // at the detector's edges, the one row beside
        if (below >= s.rows)
          below = above;
        if (above < 0 || above >= s.rows)
          continue;
        values.clear();
        besides.clear();
        own.clear();
        for (int v = 0; v < s.views; v += step)
        {
          const float * view = sino.data() + static_cast<std::size_t>(v) * cells;
          const auto *  bad = entryBad.data() + static_cast<std::size_t>(v) * cells;
          for (int c = 0; c < s.channels; ++c)
          {
            const std::size_t here = static_cast<std::size_t>(r) * s.channels + c;
            const std::size_t up = static_cast<std::size_t>(above) * s.channels + c;
            const std::size_t down = static_cast<std::size_t>(below) * s.channels + c;
            if (cellBad(r, c) || cellBad(above, c) || cellBad(below, c) || bad[here] || bad[up] || bad[down])
              continue;
            const float beside = 0.5f * (view[up] + view[down]);
            besides.push_back(beside);
            own.push_back(view[here]);
            values.push_back(view[here] - beside);
          }
        }
        if (values.empty())
          continue;
        // In the object's shadow only (the top quarter of the rows beside), where a row stuck at the bright
        // level stands out as well as one stuck dark.
        shadow = besides;
        std::nth_element(shadow.begin(), shadow.begin() + shadow.size() * 3 / 4, shadow.end());
        const float level = shadow[shadow.size() * 3 / 4];
        shadow.clear();
        for (std::size_t j = 0; j < values.size(); ++j)
          if (besides[j] >= level)
            shadow.push_back(values[j]);
        deviation[r] = medianOf(shadow);
        std::nth_element(own.begin(), own.begin() + own.size() * 3 / 4, own.end());
        levels[r] = std::max(std::fabs(level), std::fabs(own[own.size() * 3 / 4])); // the row's signal or theirs
      }
    }
    std::vector<float> finite;
    for (float d : deviation)
      if (std::isfinite(d))
        finite.push_back(d);
    if (finite.size() < 4)
      break;
    const float centre = medianOf(finite);
    for (float & d : finite)
      d = std::fabs(d - centre);
    const float spread = 1.4826f * medianOf(finite);
    limit = std::max(params.badPixelThreshold * spread, params.minBadPixelDeviation);
    // A row must also differ from those beside it by a quarter of the larger signal, its own or theirs: the
    // object's change from one row to the next is less where rows are fine, and a failed row's is about all
    // of it (its neighbours, half as far off, come after it).
    auto excess = [&](int r) { return std::fabs(deviation[r] - centre) / std::max(limit, kRowFraction * levels[r]); };
    int  worst = -1;
    for (int r = 0; r < s.rows; ++r)
      if (std::isfinite(deviation[r]) && (worst < 0 || excess(r) > excess(worst)))
        worst = r;
    if (worst < 0 || excess(worst) <= 1.0f)
      break;
    rowFlagged[worst] = 1;
    ++flagged;
    for (int c = 0; c < s.channels; ++c)
      badCells[static_cast<std::size_t>(worst) * s.channels + c] |=
        deviation[worst] > centre ? BadCellDead : BadCellHot;
  }
  if (flagged > 0)
    notes.push_back("bad rows: " + std::to_string(flagged) + " whole detector rows flagged (|median deviation from " +
                    "the rows beside them| > " + fixed(limit, 4) + ")");
  return flagged;
}

// Replaces, in each row of each view, the entries of bad cells and bad entries by linear interpolation
// between the nearest good channels (the nearest one at the detector's sides); a row with none, between the
// nearest rows that have good channels (0 in a view with none at all).
void
interpolateBad(std::vector<float> &              sino,
               const std::vector<std::uint8_t> & entryBad,
               const std::vector<std::uint8_t> & badCells,
               const SinogramShape &             s)
{
#pragma omp parallel for schedule(static)
  for (std::int64_t vr = 0; vr < static_cast<std::int64_t>(s.views) * s.rows; ++vr)
  {
    const int         r = static_cast<int>(vr % s.rows);
    const std::size_t base = static_cast<std::size_t>(vr) * s.channels;
    const std::size_t cellBase = static_cast<std::size_t>(r) * s.channels;
    auto              good = [&](int c) { return badCells[cellBase + c] == 0 && entryBad[base + c] == 0; };
    int               previous = -1; // the last good channel
    for (int c = 0; c < s.channels; ++c)
    {
      if (good(c))
      {
        previous = c;
        continue;
      }
      int next = c + 1;
      while (next < s.channels && !good(next))
        ++next;
      for (int k = c; k < next; ++k)
      {
        float value = 0.0f;
        if (previous >= 0 && next < s.channels)
        {
          const float t = static_cast<float>(k - previous) / static_cast<float>(next - previous);
          value = (1.0f - t) * sino[base + previous] + t * sino[base + next];
        }
        else if (previous >= 0)
          value = sino[base + previous];
        else if (next < s.channels)
          value = sino[base + next];
        sino[base + k] = value;
      }
      c = next - 1;
    }
  }
  // A row of a view with no good channel at all: between the nearest rows that have one.
  std::vector<std::uint8_t> rowBad(static_cast<std::size_t>(s.views) * s.rows);
#pragma omp parallel for schedule(static)
  for (std::int64_t vr = 0; vr < static_cast<std::int64_t>(s.views) * s.rows; ++vr)
  {
    const std::size_t base = static_cast<std::size_t>(vr) * s.channels;
    const std::size_t cellBase = static_cast<std::size_t>(vr % s.rows) * s.channels;
    bool              any = false;
    for (int c = 0; c < s.channels && !any; ++c)
      any = badCells[cellBase + c] == 0 && entryBad[base + c] == 0;
    rowBad[vr] = any ? 0 : 1;
  }
#pragma omp parallel for schedule(static)
  for (int v = 0; v < s.views; ++v)
  {
    const std::size_t first = static_cast<std::size_t>(v) * s.rows;
    for (int r = 0; r < s.rows; ++r)
    {
      if (!rowBad[first + r])
        continue;
      int up = r - 1, down = r + 1;
      while (up >= 0 && rowBad[first + up])
        --up;
      while (down < s.rows && rowBad[first + down])
        ++down;
      if (up < 0 && down >= s.rows)
        break; // no good row in this view: the zeros stay
      float * row = sino.data() + (first + r) * s.channels;
      for (int c = 0; c < s.channels; ++c)
      {
        const float a = up >= 0 ? sino[(first + up) * s.channels + c] : sino[(first + down) * s.channels + c];
        const float b = down < s.rows ? sino[(first + down) * s.channels + c] : a;
        const float t = up >= 0 && down < s.rows ? static_cast<float>(r - up) / static_cast<float>(down - up) : 0.0f;
        row[c] = (1.0f - t) * a + t * b;
      }
    }
  }
}

} // namespace

PreprocessResult
preprocessTransmission(ArrayView3 counts, const FieldImages & fields, const PreprocessParams & params)
{
  const ScopedCpuThreads threads; // its loops take the engine's thread count
  if (counts.empty() || counts.size() == 0)
    throw std::invalid_argument("preprocessing: no counts given");
  if (!counts.onHost())
    throw std::invalid_argument("preprocessing: the counts must be in host memory");
  if (!(params.minTransmission > 0.0f) || params.minTransmission >= 1.0f)
    throw std::invalid_argument("preprocessing: minTransmission must be in (0, 1), got " +
                                std::to_string(params.minTransmission));
  if (!(params.badPixelThreshold > 0.0f))
    throw std::invalid_argument("preprocessing: badPixelThreshold must be > 0");
  if (params.edgeWidth < 1)
    throw std::invalid_argument("preprocessing: edgeWidth must be >= 1");
  if (params.ringWidth < 3 || params.ringWidth % 2 == 0)
    throw std::invalid_argument("preprocessing: ringWidth must be odd and >= 3, got " +
                                std::to_string(params.ringWidth));
  if (!fields.brightAfter.empty() && fields.bright.empty())
    throw std::invalid_argument("preprocessing: bright fields after the scan need bright fields before it");

  PreprocessResult    result;
  const SinogramShape s{ counts.shape[0], counts.shape[1], counts.shape[2] };
  result.shape = s;
  const std::size_t cells = static_cast<std::size_t>(s.rows) * s.channels;
  const std::size_t n = cells * s.views;

  const std::vector<float> dark = averageField(fields.dark, s.rows, s.channels, "dark");
  const std::vector<float> before = averageField(fields.bright, s.rows, s.channels, "bright");
  const std::vector<float> after = averageField(fields.brightAfter, s.rows, s.channels, "bright-after");

  result.badCells.assign(cells, 0);
  // A cell without a usable bright field: B - D <= 0 or not finite, before or after.
  for (std::size_t i = 0; i < cells; ++i)
  {
    const float d = dark.empty() ? 0.0f : dark[i];
    const bool  okBefore = before.empty() || (std::isfinite(before[i] - d) && before[i] - d > 0.0f);
    const bool  okAfter = after.empty() || (std::isfinite(after[i] - d) && after[i] - d > 0.0f);
    if (!std::isfinite(d) || !okBefore || !okAfter)
      result.badCells[i] |= BadCellFlat;
  }

  // Line integrals.
  result.sinogram.resize(n);
  std::vector<std::uint8_t> entryBad(n, 0);
  std::vector<int>          nonFinitePerCell(cells, 0);
  std::size_t               saturated = 0, clamped = 0, nonFiniteEntries = 0;
  const float               logFloor = -std::log(params.minTransmission);
#pragma omp parallel for schedule(static) reduction(+ : saturated, clamped, nonFiniteEntries)
  for (int v = 0; v < s.views; ++v)
  {
    const float t = s.views > 1 ? static_cast<float>(v) / static_cast<float>(s.views - 1) : 0.0f;
    for (std::size_t i = 0; i < cells; ++i)
    {
      const std::size_t k = static_cast<std::size_t>(v) * cells + i;
      const float       raw = counts.data[k];
      const float       d = dark.empty() ? 0.0f : dark[i];
      float             b = before.empty() ? d + 1.0f : before[i];
      if (!after.empty())
        b = (1.0f - t) * b + t * after[i];
      if (!std::isfinite(raw))
      {
        entryBad[k] = kEntryBad;
        ++nonFiniteEntries;
        result.sinogram[k] = 0.0f;
        continue;
      }
      if (params.saturationLevel > 0.0f && raw >= params.saturationLevel)
      {
        entryBad[k] = kEntryBad;
        ++saturated;
      }
      const float transmission = (raw - d) / (b - d);
      if (!(transmission >= params.minTransmission))
      {
        ++clamped;
        result.sinogram[k] = logFloor;
      }
      else
        result.sinogram[k] = std::isfinite(transmission) ? -std::log(transmission) : 0.0f;
    }
  }
  if (nonFiniteEntries > 0)
  {
    for (int v = 0; v < s.views; ++v)
      for (std::size_t i = 0; i < cells; ++i)
        nonFinitePerCell[i] += !std::isfinite(counts.data[static_cast<std::size_t>(v) * cells + i]);
  }
  for (std::size_t i = 0; i < cells; ++i)
    if (2 * nonFinitePerCell[i] >= s.views)
      result.badCells[i] |= BadCellNonFinite;

  // Dead and hot cells: per cell, the median over views of (value - the median of the channels either
  // side in the same row: three each side). Channels only: detector rows can be far apart in the object (parallel-beam
  // rows are slices). Two passes: the second ignores the cells the first flagged, so that a defect does not make its
  // neighbours look defective too.
  if (params.detectBadPixels && s.channels >= 5)
  {
    const int                       step = std::max(1, (s.views + 31) / 32); // ~32 views suffice for a median
    const std::vector<std::uint8_t> known = result.badCells;                 // flat and non-finite cells
    std::vector<std::uint8_t>       flagged = known;
    std::vector<std::uint8_t>       redo(cells, 1); // the cells whose deviation a pass computes
    std::vector<float>              deviation(cells, std::numeric_limits<float>::quiet_NaN());
    float                           centre = 0.0f, spread = 0.0f, limit = 0.0f;
    for (int pass = 0; pass < 2; ++pass)
    {
      const auto & sino = result.sinogram;
      // Row by row, views outer and channels inner, so that memory is read in order.
#pragma omp parallel
      {
        std::vector<float> buffer, residuals;
#pragma omp for schedule(dynamic)
        for (std::int64_t r = 0; r < s.rows; ++r)
        {
          const std::size_t row = static_cast<std::size_t>(r) * s.channels;
          const int         sampled = (s.views + step - 1) / step;
          buffer.assign(static_cast<std::size_t>(sampled) * s.channels, std::numeric_limits<float>::quiet_NaN());
          bool any = false;
          for (int c = 0; c < s.channels; ++c)
            any = any || (known[row + c] == 0 && redo[row + c]);
          if (!any)
            continue;
          for (int k = 0; k < sampled; ++k)
          {
            const std::size_t base = static_cast<std::size_t>(k * step) * cells + row;
            for (int c = 0; c < s.channels; ++c)
            {
              if (known[row + c] != 0 || !redo[row + c] || entryBad[base + c])
                continue;
              // Cells flagged by the first pass are left out, unless too few neighbours would remain.
              float neighbours[6];
              int   n = 0;
              for (const std::uint8_t * skip : { static_cast<const std::uint8_t *>(flagged.data()), known.data() })
              {
                n = 0;
                for (int dc : { -3, -2, -1, 1, 2, 3 })
                {
                  const int cc = c + dc;
                  if (cc >= 0 && cc < s.channels && skip[row + cc] == 0 && entryBad[base + cc] == 0)
                    neighbours[n++] = sino[base + cc];
                }
                if (n >= 3)
                  break;
              }
              if (n < 3)
                continue;
              float median;
              if (n == 6)
                median = medianOfSix(neighbours);
              else
              {
                std::sort(neighbours, neighbours + n);
                median = n % 2 ? neighbours[n / 2] : 0.5f * (neighbours[n / 2 - 1] + neighbours[n / 2]);
              }
              buffer[static_cast<std::size_t>(c) * sampled + k] = sino[base + c] - median;
            }
          }
          for (int c = 0; c < s.channels; ++c)
          {
            if (known[row + c] != 0 || !redo[row + c])
              continue;
            residuals.clear();
            for (int k = 0; k < sampled; ++k)
            {
              const float value = buffer[static_cast<std::size_t>(c) * sampled + k];
              if (!std::isnan(value))
                residuals.push_back(value);
            }
            deviation[row + c] = residuals.empty() ? std::numeric_limits<float>::quiet_NaN() : medianOf(residuals);
          }
        }
      }
      if (pass == 0)
      {
        std::vector<float> finite;
        finite.reserve(cells);
        for (float d : deviation)
          if (std::isfinite(d))
            finite.push_back(d);
        if (finite.empty())
          break;
        centre = medianOf(finite);
        for (float & d : finite)
          d = std::fabs(d - centre);
        spread = 1.4826f * medianOf(finite);
        limit = std::max(params.badPixelThreshold * spread, params.minBadPixelDeviation);
      }
      flagged = known;
      for (std::size_t i = 0; i < cells; ++i)
        if (std::isfinite(deviation[i]) && std::fabs(deviation[i] - centre) > limit)
          flagged[i] |= deviation[i] > centre ? BadCellDead : BadCellHot;
      // The second pass recomputes only the cells within 3 channels of a flagged one.
      std::fill(redo.begin(), redo.end(), 0);
      for (std::size_t i = 0; i < cells; ++i)
        if (flagged[i] != 0 && known[i] == 0)
        {
          const int c = static_cast<int>(i % s.channels);
          for (int dc = -3; dc <= 3; ++dc)
            if (c + dc >= 0 && c + dc < s.channels)
              redo[i + dc] = 1;
        }
    }
    result.badCells = flagged;
    result.notes.push_back("bad cells: |median deviation from neighbours| > " + fixed(limit, 4) + " (robust spread " +
                           fixed(spread, 5) + ")");
  }
  if (params.detectBadPixels)
    flagBadRows(result.sinogram, entryBad, result.badCells, s, params, result.notes);
  for (std::uint8_t b : result.badCells)
  {
    result.numDead += (b & BadCellDead) != 0;
    result.numHot += (b & BadCellHot) != 0;
    result.numNonFinite += (b & BadCellNonFinite) != 0;
    result.numFlat += (b & BadCellFlat) != 0;
  }
  result.numSaturated = saturated;
  result.numClamped = clamped;
  std::size_t badEntries = 0;
  if (nonFiniteEntries + saturated > 0)
  {
    for (int v = 0; v < s.views; ++v)
      for (std::size_t i = 0; i < cells; ++i)
        badEntries += entryBad[static_cast<std::size_t>(v) * cells + i] != 0 && result.badCells[i] == 0;
  }
  result.numBadEntries = badEntries;

  interpolateBad(result.sinogram, entryBad, result.badCells, s);
  auto goodEntry = [&](std::size_t k) { return entryBad[k] == 0 && result.badCells[k % cells] == 0; };

  // Background offset: per view the lower of the medians of the two edge strips (the object only adds
  // attenuation, so the lower strip is the more likely to be air); the scan's offset is their median.
  result.viewOffsets.assign(s.views, 0.0f);
  if (params.removeOffset)
  {
    const int width = std::min(params.edgeWidth, std::max(1, s.channels / 4));
    if (width < params.edgeWidth)
      result.notes.push_back("offset: edge strips narrowed to " + std::to_string(width) + " channels");
#pragma omp parallel
    {
      std::vector<float> left, right;
#pragma omp for schedule(static)
      for (int v = 0; v < s.views; ++v)
      {
        left.clear();
        right.clear();
        for (int r = 0; r < s.rows; ++r)
          for (int c = 0; c < width; ++c)
          {
            const std::size_t k0 = (static_cast<std::size_t>(v) * s.rows + r) * s.channels;
            if (goodEntry(k0 + c))
              left.push_back(result.sinogram[k0 + c]);
            if (goodEntry(k0 + s.channels - 1 - c))
              right.push_back(result.sinogram[k0 + s.channels - 1 - c]);
          }
        const float l = medianOf(left), rr = medianOf(right);
        float       o = std::isfinite(l) && std::isfinite(rr) ? std::min(l, rr) : (std::isfinite(l) ? l : rr);
        result.viewOffsets[v] = std::isfinite(o) ? o : 0.0f;
      }
    }
    std::vector<float> all = result.viewOffsets;
    result.offset = medianOf(all);
    if (!params.offsetPerView)
      std::fill(result.viewOffsets.begin(), result.viewOffsets.end(), result.offset);
#pragma omp parallel for schedule(static)
    for (int v = 0; v < s.views; ++v)
    {
      float * view = result.sinogram.data() + static_cast<std::size_t>(v) * cells;
      for (std::size_t i = 0; i < cells; ++i)
        view[i] -= result.viewOffsets[v];
    }
    result.notes.push_back("offset: " + fixed(result.offset, 5) + " removed" +
                           (params.offsetPerView ? " (median of the per-view offsets)" : "") + ", edge strips of " +
                           std::to_string(width) + " channels");
  }

  // Ring suppression.
  if (params.suppressRings)
  {
    std::vector<double> sum(cells, 0.0);
    std::vector<int>    count(cells, 0);
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (int v = 0; v < s.views; ++v)
        for (std::size_t i = r * s.channels; i < static_cast<std::size_t>(r + 1) * s.channels; ++i)
        {
          const std::size_t k = static_cast<std::size_t>(v) * cells + i;
          if (entryBad[k] == 0 && result.badCells[i] == 0)
          {
            sum[i] += result.sinogram[k];
            ++count[i];
          }
        }
    std::vector<float> correction(cells, 0.0f);
    const int          half = params.ringWidth / 2;
#pragma omp parallel
    {
      std::vector<float> window;
#pragma omp for schedule(static)
      for (int r = 0; r < s.rows; ++r)
        for (int c = 0; c < s.channels; ++c)
        {
          const std::size_t i = static_cast<std::size_t>(r) * s.channels + c;
          if (count[i] == 0)
            continue;
          window.clear();
          for (int cc = std::max(0, c - half); cc <= std::min(s.channels - 1, c + half); ++cc)
          {
            const std::size_t j = static_cast<std::size_t>(r) * s.channels + cc;
            if (count[j] > 0)
              window.push_back(static_cast<float>(sum[j] / count[j]));
          }
          correction[i] = static_cast<float>(sum[i] / count[i]) - medianOf(window);
        }
    }
    double largest = 0.0;
#pragma omp parallel for schedule(static)
    for (int v = 0; v < s.views; ++v)
    {
      float * view = result.sinogram.data() + static_cast<std::size_t>(v) * cells;
      for (std::size_t i = 0; i < cells; ++i)
        view[i] -= correction[i];
    }
    for (float c : correction)
      largest = std::max(largest, static_cast<double>(std::fabs(c)));
    result.notes.push_back("rings: per-cell deviation from a " + std::to_string(params.ringWidth) +
                           "-channel median of the view average removed (largest " + fixed(largest, 4) + ")");
  }

  // Weights, 0 for bad cells and entries.
  result.weights.resize(n);
#pragma omp parallel for schedule(static)
  for (int v = 0; v < s.views; ++v)
  {
    const std::size_t  base = static_cast<std::size_t>(v) * cells;
    std::vector<float> w = generateWeights(result.sinogram.data() + base, cells, params.weightType);
    for (std::size_t i = 0; i < cells; ++i)
      result.weights[base + i] = entryBad[base + i] == 0 && result.badCells[i] == 0 ? w[i] : 0.0f;
  }

  std::ostringstream line;
  line << "line integrals -log((I - D) / (B - D))" << (dark.empty() ? ", no dark field" : "")
       << (before.empty() ? ", no bright field (counts taken as transmissions)" : "")
       << (after.empty() ? "" : ", bright fields interpolated over views") << "; " << clamped
       << " entries clamped at transmission " << params.minTransmission;
  if (params.saturationLevel > 0.0f)
    line << ", " << saturated << " saturated";
  result.notes.insert(result.notes.begin(), line.str());
  result.notes.push_back("bad cells: " + std::to_string(result.numBadCells()) + " (" + std::to_string(result.numDead) +
                         " dead, " + std::to_string(result.numHot) + " hot, " + std::to_string(result.numNonFinite) +
                         " non-finite, " + std::to_string(result.numFlat) + " without bright field); " +
                         std::to_string(result.numBadEntries) + " other bad entries (" +
                         std::to_string(nonFiniteEntries) + " non-finite); weight 0, values interpolated");
  return result;
}

namespace {

// The rows with signal (mean |value| at least a tenth of the largest), up to `count`, evenly spaced.
std::vector<int>
signalRows(const ArrayView3 & sino, int count, double middleFraction)
{
  const int           views = sino.shape[0], rows = sino.shape[1], channels = sino.shape[2];
  std::vector<double> level(rows, 0.0);
  for (int v = 0; v < views; ++v)
    for (int r = 0; r < rows; ++r)
    {
      const float * p = sino.data + (static_cast<std::size_t>(v) * rows + r) * channels;
      for (int c = 0; c < channels; ++c)
        level[r] += std::fabs(p[c]);
    }
  const double     top = *std::max_element(level.begin(), level.end());
  const int        lo = static_cast<int>(std::floor(rows * (0.5 - middleFraction / 2)));
  const int        hi = std::max(lo + 1, static_cast<int>(std::ceil(rows * (0.5 + middleFraction / 2))));
  std::vector<int> candidates;
  for (int r = std::max(0, lo); r < std::min(rows, hi); ++r)
    if (level[r] >= 0.1 * top)
      candidates.push_back(r);
  if (candidates.empty())
    for (int r = 0; r < rows; ++r)
      candidates.push_back(r);
  if (static_cast<int>(candidates.size()) <= count)
    return candidates;
  std::vector<int> chosen;
  for (int k = 0; k < count; ++k)
    chosen.push_back(candidates[(2 * k + 1) * candidates.size() / (2 * count)]);
  return chosen;
}

// The vertex of the parabola through (-1, a), (0, b), (1, c), clamped to [-1, 1].
double
parabolaVertex(double a, double b, double c)
{
  const double curvature = a - 2 * b + c;
  if (!(curvature > 0))
    return 0.0;
  return std::clamp(0.5 * (a - c) / curvature, -1.0, 1.0);
}

double
totalVariation(const std::vector<float> & recon, const ReconShape & shape)
{
  // (rows, cols, slices), slices contiguous.
  double tv = 0.0;
  for (int i = 0; i < shape.rows; ++i)
    for (int j = 0; j < shape.cols; ++j)
      for (int k = 0; k < shape.slices; ++k)
      {
        const std::size_t idx = (static_cast<std::size_t>(i) * shape.cols + j) * shape.slices + k;
        if (i + 1 < shape.rows)
          tv += std::fabs(recon[idx + static_cast<std::size_t>(shape.cols) * shape.slices] - recon[idx]);
        if (j + 1 < shape.cols)
          tv += std::fabs(recon[idx + shape.slices] - recon[idx]);
      }
  return tv;
}

// Row r of a projection (rows, channels) rotated in-plane by `degrees` about the detector centre (bilinear,
// edges clamped): out(c, r) = in at the tilted position of (c, r).
void
rotateRow(const float * in,
          int           rows,
          int           channels,
          double        degrees,
          double        channelPitch,
          double        rowPitch,
          int           r,
          float *       out)
{
  const double phi = degrees * M_PI / 180.0, cs = std::cos(phi), sn = std::sin(phi);
  const double cc = (channels - 1) / 2.0, rc = (rows - 1) / 2.0;
  for (int c = 0; c < channels; ++c)
  {
    const double x = (c - cc) * channelPitch, y = (r - rc) * rowPitch;
    const double sc = (x * cs + y * sn) / channelPitch + cc, sr = (-x * sn + y * cs) / rowPitch + rc;
    const double c0 = std::floor(sc), r0 = std::floor(sr);
    const double fc = sc - c0, fr = sr - r0;
    double       value = 0.0;
    for (int dr = 0; dr < 2; ++dr)
      for (int dc = 0; dc < 2; ++dc)
      {
        const int ic = std::clamp(static_cast<int>(c0) + dc, 0, channels - 1);
        const int ir = std::clamp(static_cast<int>(r0) + dr, 0, rows - 1);
        value += (dc ? fc : 1 - fc) * (dr ? fr : 1 - fr) * in[static_cast<std::size_t>(ir) * channels + ic];
      }
    out[c] = static_cast<float>(value);
  }
}

// The mean squared difference between view i shifted by `shift` channels and view j mirrored, over the given
// pairs and rows, for shift in [lo, hi]; entries with weight 0 (when weights are given) are skipped.
std::vector<double>
opposedViewCurve(const float *                            data,
                 const float *                            weights,
                 const SinogramShape &                    s,
                 const std::vector<std::pair<int, int>> & pairs,
                 const std::vector<int> &                 rows,
                 int                                      lo,
                 int                                      hi)
{
  const std::size_t   cells = static_cast<std::size_t>(s.rows) * s.channels;
  const int           numShifts = hi - lo + 1;
  std::vector<double> curve(numShifts);
#pragma omp parallel for schedule(dynamic)
  for (int m = 0; m < numShifts; ++m)
  {
    const int shift = lo + m;
    double    sum = 0.0, n = 0.0;
    for (int r : rows)
      for (const auto & [i, j] : pairs)
      {
        const std::size_t bi = static_cast<std::size_t>(i) * cells + static_cast<std::size_t>(r) * s.channels;
        const std::size_t bj = static_cast<std::size_t>(j) * cells + static_cast<std::size_t>(r) * s.channels;
        for (int c = std::max(0, -shift); c < std::min(s.channels, s.channels - shift); ++c)
        {
          const std::size_t ki = bi + c + shift, kj = bj + (s.channels - 1 - c);
          if (weights != nullptr && (weights[ki] <= 0.0f || weights[kj] <= 0.0f))
            continue;
          const double d = static_cast<double>(data[ki]) - data[kj];
          sum += d * d;
          n += 1.0;
        }
      }
    // Normalised by the number of compared entries so that smaller overlaps are not favoured.
    curve[m] = n > 0 ? sum / n : std::numeric_limits<double>::max();
  }
  return curve;
}

// The position of the minimum of a curve (index units), refined by a parabola through its neighbours.
double
curveMinimum(const std::vector<double> & curve)
{
  if (curve.size() < 3)
    return 0.0;
  int best = 1;
  for (int k = 1; k + 1 < static_cast<int>(curve.size()); ++k)
    if (curve[k] < curve[best])
      best = k;
  return best + parabolaVertex(curve[best - 1], curve[best], curve[best + 1]);
}

} // namespace

CenterEstimate
estimateRotationCenter(const Geometry & geometry, ArrayView3 sinogram, ArrayView3 weights, const CenterParams & params)
{
  const ScopedCpuThreads threads; // its loops take the engine's thread count
  const SinogramShape    s = sinogramShapeOf(geometry);
  if (sinogram.empty() || !sinogram.onHost())
    throw std::invalid_argument("centre estimation: the sinogram must be given in host memory");
  if (sinogram.shape != std::array<int, 3>{ s.views, s.rows, s.channels })
    throw std::invalid_argument("centre estimation: the sinogram has shape " + sinogram.str() +
                                " but the geometry has (" + std::to_string(s.views) + ", " + std::to_string(s.rows) +
                                ", " + std::to_string(s.channels) + ")");
  if (!weights.empty() && weights.shape != sinogram.shape)
    throw std::invalid_argument("centre estimation: the weights have shape " + weights.str() + ", not the sinogram's " +
                                sinogram.str());
  if (std::holds_alternative<TranslationGeometry>(geometry))
    throw std::invalid_argument("centre estimation: a translation geometry has no rotation axis");
  const double      pitch = detectorAndGridOf(geometry).deltaDetChannel;
  const double      range = params.searchRange > 0 ? params.searchRange : s.channels / 4.0;
  const std::size_t cells = static_cast<std::size_t>(s.rows) * s.channels;

  CenterEstimate estimate;
  // Opposed view pairs (parallel beam): the partner of view i is the view nearest angle_i + pi.
  std::vector<std::pair<int, int>> pairs;
  if (const auto * parallel = std::get_if<ParallelBeamGeometry>(&geometry); parallel && !params.forceSharpness)
  {
    const auto &       angles = parallel->angles;
    std::vector<float> sorted(angles);
    std::sort(sorted.begin(), sorted.end());
    std::vector<float> steps;
    for (std::size_t i = 1; i < sorted.size(); ++i)
      steps.push_back(sorted[i] - sorted[i - 1]);
    const float tolerance = steps.empty() ? 0.0f : 0.25f * std::max(medianOf(steps), 1e-6f);
    for (int i = 0; i < s.views; ++i)
    {
      int    best = -1;
      double bestGap = tolerance;
      for (int j = 0; j < s.views; ++j)
      {
        double gap = std::remainder(static_cast<double>(angles[j]) - angles[i] - M_PI, 2 * M_PI);
        if (std::fabs(gap) <= bestGap)
        {
          bestGap = std::fabs(gap);
          best = j;
        }
      }
      if (best > i)
        pairs.emplace_back(i, best);
    }
    if (static_cast<int>(pairs.size()) * 4 < s.views) // fewer than half of the views have a partner
      pairs.clear();
  }

  // Parallel beam without opposed views: each view's centroid (over rows and channels) is the projection of the
  // object's centre of mass, c(theta) = offset + a cos(theta) + b sin(theta) (in channels); a least-squares fit
  // gives the offset. Usable when no view is truncated (the edges are in air).
  struct
  {
    bool   usable = false;
    double channels = 0.0, residual = 0.0;
  } centroid;
  if (const auto * parallel = std::get_if<ParallelBeamGeometry>(&geometry); parallel && pairs.empty())
  {
    std::vector<double> position(s.views), mass(s.views);
    double              edge = 0.0, total = 0.0;
    for (int v = 0; v < s.views; ++v)
    {
      double m0 = 0.0, m1 = 0.0;
      for (int r = 0; r < s.rows; ++r)
      {
        const float * p =
          sinogram.data + static_cast<std::size_t>(v) * cells + static_cast<std::size_t>(r) * s.channels;
        for (int c = 0; c < s.channels; ++c)
        {
          m0 += p[c];
          m1 += (c - (s.channels - 1) / 2.0) * p[c];
        }
        edge += std::fabs(p[0]) + std::fabs(p[s.channels - 1]);
      }
      total += std::fabs(m0);
      mass[v] = m0;
      position[v] = m0 != 0.0 ? m1 / m0 : 0.0;
    }
    // The edge channels in air (no truncated view): their mean magnitude under 5 % of the mean line integral.
    const bool inAir =
      edge / (2.0 * s.views * s.rows) < 0.05 * total / (static_cast<double>(s.views) * s.rows * s.channels);
    double a[3][3] = {}, b[3] = {};
    for (int v = 0; v < s.views; ++v)
    {
      const double f[3] = { 1.0, std::cos(parallel->angles[v]), std::sin(parallel->angles[v]) };
      for (int i = 0; i < 3; ++i)
      {
        b[i] += f[i] * position[v];
        for (int j = 0; j < 3; ++j)
          a[i][j] += f[i] * f[j];
      }
    }
    // Cramer's rule on the 3 x 3 normal equations.
    auto det = [](const double m[3][3]) {
      return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
             m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    };
    const double d = det(a);
    if (std::fabs(d) > 1e-9 * std::pow(static_cast<double>(s.views), 3) && total > 0.0)
    {
      double x[3];
      for (int k = 0; k < 3; ++k)
      {
        double m[3][3];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            m[i][j] = j == k ? b[i] : a[i][j];
        x[k] = det(m) / d;
      }
      double squares = 0.0;
      for (int v = 0; v < s.views; ++v)
      {
        const double e =
          position[v] - x[0] - x[1] * std::cos(parallel->angles[v]) - x[2] * std::sin(parallel->angles[v]);
        squares += e * e;
      }
      centroid.channels = x[0];
      centroid.residual = std::sqrt(squares / s.views);
      centroid.usable = inAir && centroid.residual < 0.5;
      if (!inAir)
        estimate.notes.push_back("centroids not used: the detector edges are not in air (truncated views)");
    }
  }

  if (!pairs.empty())
  {
    estimate.method = "opposed views";
    std::vector<std::pair<int, int>> used = pairs;
    if (used.size() > 32)
    {
      used.clear();
      for (std::size_t k = 0; k < 32; ++k)
        used.push_back(pairs[k * pairs.size() / 32]);
    }
    const std::vector<int>    rows = signalRows(sinogram, 32, 0.9);
    const int                 maxShift = std::min(s.channels - 2, static_cast<int>(std::ceil(2 * range)) + 1);
    const std::vector<double> curve = opposedViewCurve(sinogram.data, weights.data, s, used, rows, -maxShift, maxShift);
    estimate.channels = 0.5 * (curveMinimum(curve) - maxShift);
    estimate.notes.push_back(std::to_string(pairs.size()) + " opposed view pairs (" + std::to_string(used.size()) +
                             " used), " + std::to_string(rows.size()) + " rows");

    // Tilt: the in-plane rotation of the opposed views that makes them mirror images of each other best.
    if (params.estimateTilt && s.rows >= 8)
    {
      std::vector<int> views;
      for (const auto & [i, j] : used)
      {
        views.push_back(i);
        views.push_back(j);
      }
      const std::vector<int>           innerRows = signalRows(sinogram, 32, 0.7);
      const int                        nr = static_cast<int>(innerRows.size());
      std::vector<std::pair<int, int>> compactPairs;
      std::vector<int>                 allRows(nr);
      for (std::size_t k = 0; k < used.size(); ++k)
        compactPairs.emplace_back(static_cast<int>(2 * k), static_cast<int>(2 * k + 1));
      for (int k = 0; k < nr; ++k)
        allRows[k] = k;
      const SinogramShape cs{ static_cast<int>(views.size()), nr, s.channels };
      const int           centre = static_cast<int>(std::lround(2 * estimate.channels));
      const double        rowPitch = detectorAndGridOf(geometry).deltaDetRow;
      std::vector<float>  rotated(static_cast<std::size_t>(cs.views) * nr * s.channels);
      auto                cost = [&](double degrees) {
      // Only the rows compared are rotated.
#pragma omp parallel for schedule(static)
        for (std::int64_t vk = 0; vk < static_cast<std::int64_t>(cs.views) * nr; ++vk)
        {
          const int v = static_cast<int>(vk / nr), k = static_cast<int>(vk % nr);
          rotateRow(sinogram.data + static_cast<std::size_t>(views[v]) * cells,
                    s.rows,
                    s.channels,
                    degrees,
                    pitch,
                    rowPitch,
                    innerRows[k],
                    rotated.data() + static_cast<std::size_t>(vk) * s.channels);
        }
        const std::vector<double> c =
          opposedViewCurve(rotated.data(), nullptr, cs, compactPairs, allRows, centre - 3, centre + 3);
        const int    best = static_cast<int>(std::min_element(c.begin() + 1, c.end() - 1) - c.begin());
        const double x = parabolaVertex(c[best - 1], c[best], c[best + 1]);
        return c[best] - 0.25 * (c[best - 1] - c[best + 1]) * x; // the parabola's value at its vertex
      };
      const double        step = 0.25, limit = 2.0;
      std::vector<double> costs;
      for (double a = -limit; a <= limit + 1e-9; a += step)
        costs.push_back(cost(a));
      const int best = static_cast<int>(std::min_element(costs.begin(), costs.end()) - costs.begin());
      if (best > 0 && best + 1 < static_cast<int>(costs.size()))
      {
        estimate.tiltMeasured = true;
        estimate.tiltDegrees = -limit + step * (best + parabolaVertex(costs[best - 1], costs[best], costs[best + 1]));
      }
      else
        estimate.notes.push_back("tilt: not measurable within +-2 degrees");
    }
  }
  else if (centroid.usable && !params.forceSharpness)
  {
    estimate.method = "projection centroids";
    estimate.channels = centroid.channels;
    estimate.notes.push_back("centroids of " + std::to_string(s.views) +
                             " views fitted by a sinusoid about the axis (residual " + fixed(centroid.residual, 3) +
                             " channels rms)");
  }
  else
  {
    estimate.method = "direct-recon sharpness";
    // A coarse start from the projection centroids, or the pair of views nearest to opposed (e.g. the first
    // and last of a half turn).
    double start = 0.0, window = range;
    if (const auto * parallel = std::get_if<ParallelBeamGeometry>(&geometry))
    {
      std::vector<float> sorted(parallel->angles);
      std::sort(sorted.begin(), sorted.end());
      std::vector<float> steps;
      for (std::size_t k = 1; k < sorted.size(); ++k)
        steps.push_back(sorted[k] - sorted[k - 1]);
      int    bi = -1, bj = -1;
      double bestGap = std::max(3.0 * M_PI / 180.0, steps.empty() ? 0.0 : 1.5 * medianOf(steps));
      for (int i = 0; i < s.views; ++i)
        for (int j = i + 1; j < s.views; ++j)
        {
          const double gap =
            std::fabs(std::remainder(static_cast<double>(parallel->angles[j]) - parallel->angles[i] - M_PI, 2 * M_PI));
          if (gap < bestGap)
          {
            bestGap = gap;
            bi = i;
            bj = j;
          }
        }
      if (centroid.usable)
      {
        start = centroid.channels;
        window = 3.0;
        estimate.notes.push_back("start " + fixed(start, 2) + " channels from the projection centroids");
      }
      else if (bi >= 0)
      {
        const int                 maxShift = std::min(s.channels - 2, static_cast<int>(std::ceil(2 * range)) + 1);
        const std::vector<double> curve = opposedViewCurve(
          sinogram.data, weights.data, s, { { bi, bj } }, signalRows(sinogram, 32, 0.9), -maxShift, maxShift);
        start = 0.5 * (curveMinimum(curve) - maxShift);
        window = 3.0;
        estimate.notes.push_back("start " + fixed(start, 2) + " channels from views " + std::to_string(bi) + " and " +
                                 std::to_string(bj));
      }
    }
    // A geometry of a few rows (parallel beam, where slice k is row k) on a grid wide enough for any
    // candidate, without a region-of-reconstruction mask; the whole geometry otherwise.
    Geometry           trial = geometry;
    std::vector<float> data;
    ArrayView3         view = sinogram;
    if (auto * parallel = std::get_if<ParallelBeamGeometry>(&trial))
    {
      const std::vector<int> rows = signalRows(sinogram, std::max(1, params.reconRows), 0.5);
      data.resize(static_cast<std::size_t>(s.views) * rows.size() * s.channels);
      for (int v = 0; v < s.views; ++v)
        for (std::size_t k = 0; k < rows.size(); ++k)
          std::copy_n(sinogram.data + (static_cast<std::size_t>(v) * s.rows + rows[k]) * s.channels,
                      s.channels,
                      data.begin() + (static_cast<std::size_t>(v) * rows.size() + k) * s.channels);
      parallel->sinogramShape.rows = static_cast<int>(rows.size());
      parallel->reconShape.slices = static_cast<int>(rows.size());
      const int margin = static_cast<int>(std::ceil((std::fabs(start) + window + 1) * pitch / parallel->deltaVoxel));
      parallel->reconShape.rows = std::max(parallel->reconShape.rows, parallel->reconShape.cols) + 2 * margin;
      parallel->reconShape.cols = parallel->reconShape.rows;
      parallel->rorMask = RorMask::none();
      view = ArrayView3(data.data(), { s.views, static_cast<int>(rows.size()), s.channels });
      estimate.notes.push_back("direct recons of " + std::to_string(rows.size()) + " rows per candidate");
    }
    else
      estimate.notes.push_back("direct recons of the whole geometry per candidate");
    // A full turn: a wrong offset doubles every edge, which lowers the recon's energy (maximised). A half
    // turn keeps the energy (each view is only shifted), so the total variation is minimised instead.
    bool fullTurn = false;
    std::visit(
      [&](const auto & g) {
        if constexpr (std::is_same_v<std::decay_t<decltype(g)>, ParallelBeamGeometry> ||
                      std::is_same_v<std::decay_t<decltype(g)>, ConeBeamGeometry>)
        {
          if (!g.angles.empty())
          {
            const auto [lo, hi] = std::minmax_element(g.angles.begin(), g.angles.end());
            fullTurn = (*hi - *lo) * s.views / std::max(1, s.views - 1) > 1.9 * M_PI;
          }
        }
      },
      geometry);
    const auto device = makeCpuBackend();
    int        evaluations = 0;
    auto       cost = [&](double channels) {
      detectorAndGridOf(trial).detChannelOffset = static_cast<float>(channels * pitch);
      ReconParams quiet = defaultReconParams(trial);
      quiet.verbose = 0;
      const Reconstructor reconstructor(trial, device, quiet);
      ++evaluations;
      const std::vector<float> recon = reconstructor.directRecon(view);
      if (!fullTurn)
        return totalVariation(recon, reconShapeOf(trial));
      double energy = 0.0;
      for (float x : recon)
        energy += static_cast<double>(x) * x;
      return -energy;
    };
    const double step = std::max(0.5, window / 16.0);
    double       best = start, bestCost = std::numeric_limits<double>::max();
    for (double c = start - std::floor(window / step) * step; c <= start + window + 1e-9; c += step)
    {
      const double value = cost(c);
      if (value < bestCost)
      {
        bestCost = value;
        best = c;
      }
    }
    // Golden-section search in [best - step, best + step].
    const double g = (std::sqrt(5.0) - 1.0) / 2.0;
    double       a = best - step, b = best + step;
    double       x1 = b - g * (b - a), x2 = a + g * (b - a);
    double       f1 = cost(x1), f2 = cost(x2);
    while (b - a > 0.01)
    {
      if (f1 < f2)
      {
        b = x2;
        x2 = x1;
        f2 = f1;
        x1 = b - g * (b - a);
        f1 = cost(x1);
      }
      else
      {
        a = x1;
        x1 = x2;
        f1 = f2;
        x2 = a + g * (b - a);
        f2 = cost(x2);
      }
    }
    estimate.channels = 0.5 * (a + b);
    estimate.notes.push_back(std::to_string(evaluations) + " candidates, " +
                             (fullTurn ? "energy maximised (full turn)" : "total variation minimised (half turn)"));
  }
  estimate.detChannelOffset = estimate.channels * pitch;
  return estimate;
}

std::vector<float>
correctDetectorTilt(ArrayView3 sinogram, double degrees, double channelPitch, double rowPitch)
{
  const ScopedCpuThreads threads; // its loops take the engine's thread count
  if (sinogram.empty() || !sinogram.onHost())
    throw std::invalid_argument("tilt correction: the sinogram must be given in host memory");
  const int          views = sinogram.shape[0], rows = sinogram.shape[1], channels = sinogram.shape[2];
  const std::size_t  cells = static_cast<std::size_t>(rows) * channels;
  std::vector<float> out(sinogram.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t vr = 0; vr < static_cast<std::int64_t>(views) * rows; ++vr)
  {
    const int v = static_cast<int>(vr / rows), r = static_cast<int>(vr % rows);
    rotateRow(sinogram.data + static_cast<std::size_t>(v) * cells,
              rows,
              channels,
              degrees,
              channelPitch,
              rowPitch,
              r,
              out.data() + static_cast<std::size_t>(vr) * channels);
  }
  return out;
}

} // namespace mbir
