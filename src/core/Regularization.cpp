#include "mbir/Regularization.h"

#include "mbir/DeviceData.h"
#include "mbir/kernels/LocalDeviation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace mbir {
namespace {

constexpr int kBins = 400;

// Median with NumPy's convention (the mean of the two middle values for an even count).
double
median(std::vector<float> values)
{
  const std::size_t n = values.size();
  std::nth_element(values.begin(), values.begin() + n / 2, values.end());
  const double upper = values[n / 2];
  if (n % 2 == 1)
  {
    return upper;
  }
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + n / 2));
}

// The mismatch rule (below), set on the cases of README "Automatic regularisation"; a heuristic. Second
// differences along channels are noise, plus edges and detail: in a voxel model's own projections with about
// 30 dB of noise the rest reads 0.8-1.2 x the noise; exact line integrals through ellipsoids, or a raw scan
// of them, 1.3-1.5 x, and those need about 3 x the snr_db 30 sigma_y to beat the direct recon. The raise
// ramps from none to that between the two. Low-noise voxel scans read far more than 1.2 x (their detail is
// fine, the noise small) and must not be raised: the fit test of the recon tells them apart (fitTestFactor).
constexpr double kMismatchToNoiseLow = 1.1, kMismatchToNoiseHigh = 1.3;
constexpr double kMismatchRaise = 3.0;
// The fit test: the residual after the first iterations at the snr_db sigma_y, in units of it (the log's
// forward loss). Data a voxel model fits far below the assumed noise (0.15-0.36 in the low-noise cases) keep
// their sigma_y; data it cannot (0.5-0.8: mismatch, or noise above the assumed) take the raise.
constexpr double kFitTestLow = 0.4, kFitTestHigh = 0.5;

// What varies from one channel to the next in the object's shadow, from second differences d along
// channels (d / sqrt 6 has the noise's standard deviation when the noise is white): noise, the level of
// the typical |d| (a median, which the few large differences at edges do not move), and mismatch, the rest of
// the mean square: edges and detail finer than the voxel model reproduces. Weighted as the signal level is.
struct FineScale
{
  double noise = 0.0, mismatch = 0.0;
};

FineScale
fineScale(const std::vector<float> &        ys,
          const std::vector<float> &        ws,
          const std::vector<std::uint8_t> & support,
          int                               channels)
{
  std::vector<float> d;
  double             squares = 0.0;
  const std::size_t  lines = channels > 2 ? ys.size() / channels : 0;
  for (std::size_t line = 0; line < lines; ++line)
  {
    for (int n = 1; n + 1 < channels; ++n)
    {
      const std::size_t i = line * channels + n;
      if (!support[i - 1] || !support[i] || !support[i + 1])
        continue;
      const double value = (double(ys[i - 1]) - 2.0 * ys[i] + ys[i + 1]) * (ws.empty() ? 1.0 : std::sqrt(ws[i]));
      d.push_back(static_cast<float>(std::fabs(value)));
      squares += value * value;
    }
  }
  FineScale level;
  if (d.empty())
    return level;
  const double total = squares / (6.0 * d.size());
  level.noise = 1.4826 * median(std::move(d)) / std::sqrt(6.0); // the median of |N(0, s)| is s / 1.4826
  level.mismatch = std::sqrt(std::max(0.0, total - level.noise * level.noise));
  return level;
}

} // namespace

double
fitTestFactor(double mismatchFactor, double forwardLoss)
{
  const double confirmed = std::clamp((forwardLoss - kFitTestLow) / (kFitTestHigh - kFitTestLow), 0.0, 1.0);
  return 1.0 + confirmed * (std::max(mismatchFactor, 1.0) - 1.0);
}

std::vector<std::uint8_t>
sinogramSupport(const std::vector<float> & values)
{
  std::vector<std::uint8_t> all(values.size(), 1);
  if (values.empty())
  {
    return all;
  }
  const auto [minIt, maxIt] = std::minmax_element(values.begin(), values.end());
  const double low = *minIt, high = *maxIt;
  if (high <= 0.0 || high == low)
  {
    return all; // contrast reversed or constant data: no background to find
  }

  // Histogram of the values, then the background cluster: the peak nearest 0 and the bins around it
  // above a tenth of its height.
  std::vector<long> histogram(kBins, 0);
  const double      width = (high - low) / kBins;
  for (const float v : values)
  {
    histogram[std::min(kBins - 1, static_cast<int>((v - low) / width))]++;
  }
  auto centre = [&](int i) { return low + (i + 0.5) * width; };
  int  peak = -1;
  for (int i = 0; i < kBins - 1; ++i)
  {
    const bool isPeak =
      i == 0 ? histogram[0] > histogram[1] : histogram[i] >= histogram[i - 1] && histogram[i] > histogram[i + 1];
    if (isPeak && (peak < 0 || std::fabs(centre(i)) < std::fabs(centre(peak))))
    {
      peak = i;
    }
  }
  if (peak < 0)
  {
    peak = 0;
    for (int i = 1; i < kBins; ++i)
    {
      if (std::fabs(centre(i)) < std::fabs(centre(peak)))
      {
        peak = i;
      }
    }
  }
  const double cutoff = 0.1 * histogram[peak];
  int          left = peak, right = peak;
  while (left > 0 && histogram[left] > cutoff)
  {
    --left;
  }
  while (right < kBins - 1 && histogram[right] > cutoff)
  {
    ++right;
  }
  const double threshold = centre(right) + (centre(right) - centre(left));
  if (high < threshold)
  {
    return all; // no level stands out above the background
  }

  std::vector<float> signal;
  for (const float v : values)
  {
    if (v >= threshold)
    {
      signal.push_back(v);
    }
  }
  const double              level = 0.25 * median(std::move(signal));
  std::vector<std::uint8_t> support(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
  {
    support[i] = values[i] >= level ? 1 : 0;
  }
  return support;
}

std::vector<int>
statisticsSamples(int length)
{
  std::vector<int> samples;
  const int        step = length / std::min(20, length);
  for (int i = 0; i < length; i += step)
  {
    samples.push_back(i);
  }
  return samples;
}

RegularizationParams
autoRegularization(const float * sinogram, const float * weights, const RegularizationInputs & in)
{
  const SinogramShape & s = in.sinogramShape;
  const std::size_t     viewSize = static_cast<std::size_t>(s.rows) * s.channels;
  std::vector<float>    ys, ws;
  for (const int v : statisticsSamples(s.views))
  {
    ys.insert(ys.end(), sinogram + v * viewSize, sinogram + (v + 1) * viewSize);
    if (weights)
    {
      ws.insert(ws.end(), weights + v * viewSize, weights + (v + 1) * viewSize);
    }
  }
  return autoRegularizationFromViews(ys, ws, in);
}

RegularizationParams
autoRegularizationFromViews(const std::vector<float> &   ys,
                            const std::vector<float> &   ws,
                            const RegularizationInputs & in)
{
  const SinogramShape &           s = in.sinogramShape;
  const bool                      weighted = !ws.empty();
  const std::vector<std::uint8_t> support = sinogramSupport(ys);
  double                          count = 0.0, weightedSquares = 0.0, magnitude = 0.0;
  for (std::size_t i = 0; i < ys.size(); ++i)
  {
    if (support[i])
    {
      count += 1.0;
      weightedSquares += (weighted ? ws[i] : 1.0) * double(ys[i]) * ys[i];
      magnitude += std::fabs(ys[i]);
    }
  }
  count = std::max(count, 1.0);

  RegularizationParams reg;
  const double         signalRms = std::sqrt(weightedSquares / count);
  const double         relativeNoise = std::pow(10.0, -in.snrDb / 20.0);
  const double         pitchRatio = in.deltaVoxel / (in.deltaDetChannel / in.magnification);
  reg.sigmaY = static_cast<float>(relativeNoise * signalRms * std::sqrt(pitchRatio));
  std::ostringstream note;
  note << "sigma_y " << reg.sigmaY << " from snr_db " << in.snrDb;
  if (in.estimateNoise && reg.sigmaY > 0.0f)
  {
    // Variation from channel to channel beyond what noise and a voxel model's detail explain is detail that no
    // voxel image fits: propose raising sigma_y in proportion, so that the recon does not chase it with
    // ringing and noise; the recon's fit test decides.
    const FineScale level = fineScale(ys, ws, support, s.channels);
    const double    toNoise = level.noise > 0.0 ? level.mismatch / level.noise : 1e30;
    const double    excess =
      std::clamp((toNoise - kMismatchToNoiseLow) / (kMismatchToNoiseHigh - kMismatchToNoiseLow), 0.0, 1.0);
    reg.mismatchFactor = static_cast<float>(1.0 + (kMismatchRaise - 1.0) * excess);
    reg.measuredNoise = static_cast<float>(std::sqrt(level.noise * level.noise + level.mismatch * level.mismatch));
    note << "; the sinogram's channel-to-channel variation is noise " << static_cast<float>(level.noise)
         << " and model mismatch " << static_cast<float>(level.mismatch) << " (" << static_cast<float>(toNoise)
         << " x the noise; raised from " << kMismatchToNoiseLow << " x, fully from " << kMismatchToNoiseHigh << " x)";
    if (reg.mismatchFactor > 1.0f)
      note << ": sigma_y x " << reg.mismatchFactor << " if the fit test confirms";
  }
  reg.note = note.str();

  // Typical recon value: typical line integral over the shorter of the object and detector widths.
  const double rows = in.reconShape.rows, cols = in.reconShape.cols;
  const double objectWidth = 2.0 * rows * cols / (rows + cols) * in.deltaVoxel;
  const double detectorWidth = s.channels * in.deltaDetChannel / in.magnification;
  const double reconScale = (magnitude / count) / std::min(objectWidth, detectorWidth);
  reg.sigmaX = static_cast<float>(0.2 * std::pow(2.0, in.sharpness) * reconScale);
  reg.sigmaProx = reg.sigmaX;
  // Zero data would give zero sigmas and a division by zero later: keep them usable.
  if (!(reg.sigmaY > 0.0f))
    reg.sigmaY = 1.0f;
  if (!(reg.sigmaX > 0.0f))
    reg.sigmaX = reg.sigmaProx = 1.0f;
  return reg;
}

double
localStandardDeviation(const float * image, const std::array<int, 3> & shape, double noiseFloor)
{
  const int         d0 = shape[0], d1 = shape[1], d2 = shape[2];
  double            meanAbs = 0.0, top = -std::numeric_limits<double>::infinity();
  const std::size_t n = static_cast<std::size_t>(d0) * d1 * d2;
  for (std::size_t i = 0; i < n; ++i)
  {
    meanAbs += std::fabs(image[i]);
    top = std::max(top, double(image[i]));
  }
  meanAbs /= double(n);
  const double threshold = std::min(0.05 * meanAbs + noiseFloor, top);
  double       sum = 0.0, count = 0.0;
  for (int i = 0; i < d0; ++i)
  {
    for (int j = 0; j < d1; ++j)
    {
      for (int k = 0; k < d2; ++k)
      {
        if (image[(static_cast<std::size_t>(i) * d1 + j) * d2 + k] >= threshold)
        {
          sum += kernels::localDeviationAt(image, d0, d1, d2, d2, nullptr, i, j, k);
          count += 1.0;
        }
      }
    }
  }
  return count > 0 ? sum / count : 0.0;
}

double
estimateImageNoise(const float * image, const std::array<int, 3> & shape)
{
  return localStandardDeviation(image, shape, localStandardDeviation(image, shape, 0.0));
}

namespace {

// The noise statistic of a volume on its devices. What both passes of estimateImageNoise share is worked
// out once: the mean magnitude, and each shard's slice before its first (the volume's last before the first
// shard's), brought from its owner.
class DeviceLocalDeviation
{
public:
  explicit DeviceLocalDeviation(const DeviceVolume & image)
    : m_Image(image)
  {
    const DeviceGroup & group = image.group();
    const ShardLayout & slices = image.slices();
    const std::size_t   pixels = image.shape().numPixels();
    std::vector<double> absSums(group.size());
    for (int d = 0; d < group.size(); ++d)
    {
      absSums[d] = group.device(d).sumAbs(image.shard(d), image.shardShape().size()); // the padding is zero
    }
    m_MeanAbs = group.communicator().allReduceSum(absSums) / double(image.shape().size());
    if (group.size() == 1)
    {
      return; // the kernel wraps within the one shard
    }
    std::vector<int> pixelList(pixels);
    std::iota(pixelList.begin(), pixelList.end(), 0);
    m_Previous.resize(group.size());
    for (int d = 0; d < group.size(); ++d)
    {
      if (slices.valid(d) == 0)
      {
        continue;
      }
      const int              before = d > 0 ? slices.first(d) - 1 : image.shape().slices - 1;
      const int              owner = before / slices.perDevice;
      Backend &              source = group.device(owner);
      const DeviceArray<int> onOwner = source.upload(pixelList.data(), pixels);
      DeviceArray<float>     plane = source.allocate<float>(pixels);
      source.gatherSlice(image.shard(owner),
                         CylinderBatch{ onOwner.data(), int(pixels), slices.perDevice, slices.first(owner) },
                         before - slices.first(owner),
                         plane.data());
      m_Previous[d] = group.device(d).allocate<float>(pixels);
      group.communicator().copy(owner, plane.data(), d, m_Previous[d].data(), pixels);
    }
  }

  double
  at(double noiseFloor) const
  {
    const DeviceGroup & group = m_Image.group();
    const ShardLayout & slices = m_Image.slices();
    // min(floor, max) is the floor unless no voxel reaches it (count 0 below): only then is the max needed.
    const double        floor = 0.05 * m_MeanAbs + noiseFloor;
    std::vector<double> sums(group.size()), counts(group.size());
    for (int d = 0; d < group.size(); ++d)
    {
      if (slices.valid(d) > 0)
      {
        const Backend::WeightedProducts local =
          group.device(d).localDeviationSums(m_Image.shard(d),
                                             m_Image.shardShape(),
                                             slices.valid(d),
                                             m_Previous.empty() ? nullptr : m_Previous[d].data(),
                                             floor);
        sums[d] = local.ab;
        counts[d] = local.bb;
      }
    }
    const double sum = group.communicator().allReduceSum(sums), count = group.communicator().allReduceSum(counts);
    if (count == 0.0)
    {
      // Every voxel lies below the floor (e.g. a negative image), so the threshold is the maximum: a rare
      // image, worked out on the host.
      const ReconShape &       shape = m_Image.shape();
      const std::vector<float> host = m_Image.download();
      return localStandardDeviation(host.data(), { shape.rows, shape.cols, shape.slices }, noiseFloor);
    }
    return sum / count;
  }

private:
  const DeviceVolume &            m_Image;
  double                          m_MeanAbs = 0.0;
  std::vector<DeviceArray<float>> m_Previous; // per device; empty on one device
};

} // namespace

double
localStandardDeviation(const DeviceVolume & image, double noiseFloor)
{
  return DeviceLocalDeviation(image).at(noiseFloor);
}

double
estimateImageNoise(const DeviceVolume & image)
{
  const DeviceLocalDeviation statistic(image);
  return statistic.at(statistic.at(0.0));
}

} // namespace mbir
