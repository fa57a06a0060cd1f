// Small engine utilities: array views, weights, image metrics and VCD partitions.

#include "mbir/ArrayView.h"
#include "mbir/Backend.h"
#include "mbir/Config.h"
#include "mbir/Metrics.h"
#include "mbir/Partition.h"
#include "mbir/Weights.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mbir {

void
ArrayView3::checkSize(std::size_t n)
{
  if (n != size())
  {
    throw std::invalid_argument("array of " + std::to_string(n) + " values does not have shape " + str() + " (" +
                                std::to_string(size()) + " values)");
  }
}

void
transposeMatrices(const float * in, std::size_t count, std::size_t rows, std::size_t cols, float * out, int threads)
{
  constexpr std::ptrdiff_t   block = 32;
  const std::ptrdiff_t       rowBlocks = (static_cast<std::ptrdiff_t>(rows) + block - 1) / block;
  const std::ptrdiff_t       tasks = static_cast<std::ptrdiff_t>(count) * rowBlocks;
  const std::ptrdiff_t       r = static_cast<std::ptrdiff_t>(rows), c = static_cast<std::ptrdiff_t>(cols);
  [[maybe_unused]] const int teams = threads > 0 ? threads : defaultCpuThreads();
#pragma omp parallel for schedule(static) num_threads(teams)
  for (std::ptrdiff_t task = 0; task < tasks; ++task)
  {
    const std::ptrdiff_t matrix = task / rowBlocks, r0 = (task % rowBlocks) * block;
    const float *        src = in + matrix * r * c;
    float *              dst = out + matrix * r * c;
    for (std::ptrdiff_t c0 = 0; c0 < c; c0 += block)
    {
      for (std::ptrdiff_t i = r0; i < std::min(r, r0 + block); ++i)
      {
        for (std::ptrdiff_t j = c0; j < std::min(c, c0 + block); ++j)
        {
          dst[j * r + i] = src[i * c + j];
        }
      }
    }
  }
}

WeightType
parseWeightType(const std::string & name)
{
  if (name == "unweighted")
    return WeightType::Unweighted;
  if (name == "transmission")
    return WeightType::Transmission;
  if (name == "transmission_root")
    return WeightType::TransmissionRoot;
  if (name == "emission")
    return WeightType::Emission;
  throw std::invalid_argument("unknown weight type '" + name +
                              "'; use unweighted, transmission, transmission_root or emission");
}

std::vector<float>
generateWeights(const float * sinogram, std::size_t n, WeightType type)
{
  std::vector<float> weights(n);
  for (std::size_t i = 0; i < n; ++i)
  {
    const float y = sinogram[i];
    switch (type)
    {
      case WeightType::Unweighted:
        weights[i] = 1.0f;
        break;
      case WeightType::Transmission:
        weights[i] = std::exp(-y);
        break;
      case WeightType::TransmissionRoot:
        weights[i] = std::exp(-0.5f * y);
        break;
      case WeightType::Emission:
        weights[i] = 1.0f / (std::fabs(y) + 0.1f);
        break;
    }
  }
  return weights;
}

double
nrmse(const std::vector<float> & x, const std::vector<float> & reference)
{
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    const double d = double(x[i]) - reference[i];
    diff += d * d;
    norm += double(reference[i]) * reference[i];
  }
  return std::sqrt(diff / norm);
}

double
maxAbsDifference(const std::vector<float> & x, const std::vector<float> & reference)
{
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    worst = std::max(worst, std::fabs(double(x[i]) - reference[i]));
  }
  return worst;
}

double
percentile95AbsDifference(const std::vector<float> & x, const std::vector<float> & reference)
{
  std::vector<double> d(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
  {
    d[i] = std::fabs(double(x[i]) - reference[i]);
  }
  std::sort(d.begin(), d.end());
  const double      position = 0.95 * (d.size() - 1);
  const std::size_t below = static_cast<std::size_t>(position);
  const double      fraction = position - below;
  return below + 1 < d.size() ? d[below] * (1.0 - fraction) + d[below + 1] * fraction : d[below];
}

std::vector<std::vector<int>>
randomPartition(const std::vector<int> & pixels, int numSubsets, std::mt19937_64 & random)
{
  const int total = static_cast<int>(pixels.size());
  const int k = std::max(1, std::min(numSubsets, total));
  const int size = (total + k - 1) / k;
  const int extra = k * size - total;

  std::vector<int> order = pixels;
  std::shuffle(order.begin(), order.end(), random);
  // The extras repeat pixels of the first k-1 subsets, so none repeats within the last subset.
  std::vector<int> candidates(order.begin(), order.begin() + std::min<std::size_t>(order.size(), (k - 1) * size));
  std::shuffle(candidates.begin(), candidates.end(), random);
  order.insert(order.end(), candidates.begin(), candidates.begin() + extra);

  std::vector<std::vector<int>> subsets(k);
  for (int s = 0; s < k; ++s)
  {
    subsets[s].assign(order.begin() + s * size, order.begin() + (s + 1) * size);
    std::sort(subsets[s].begin(), subsets[s].end());
  }
  return subsets;
}

std::vector<int>
partitionSchedule(const std::vector<int> & sequence, int maxIterations)
{
  std::vector<int> schedule(sequence.begin(), sequence.begin() + std::min<std::size_t>(sequence.size(), maxIterations));
  while (static_cast<int>(schedule.size()) < maxIterations && !sequence.empty())
  {
    schedule.push_back(sequence.back());
  }
  return schedule;
}

} // namespace mbir
