// Preprocessing throughput in projections per second: raw counts of V views x N x N detector cells to line
// integrals and weights (dark and bright stacks of 4, bright fields after the scan, bad-cell detection, the
// background offset; rings on or off), and the centre estimation from opposed views.
//   build/bin/mbir-benchmark-preprocessing [--benchmark_filter=preprocess/1024]

#include "mbir/Preprocessing.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

using namespace mbir;

namespace {

struct RawData
{
  SinogramShape      shape;
  std::vector<float> counts, dark, bright, after;
};

// Counts of a centred disk (Beer's law, bright ~10^4, approximate Poisson noise), with fields.
const RawData &
rawData(int views, int size)
{
  static RawData data;
  if (data.shape.views == views && data.shape.channels == size)
  {
    return data;
  }
  data.shape = SinogramShape{ views, size, size };
  const std::size_t               cells = static_cast<std::size_t>(size) * size;
  std::mt19937                    engine(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  data.counts.resize(cells * views);
  for (int v = 0; v < views; ++v)
    for (int r = 0; r < size; ++r)
      for (int c = 0; c < size; ++c)
      {
        const double x = (c - size / 2.0) / (0.4 * size);
        const double y = x * x < 1 ? 2.0 * std::sqrt(1 - x * x) : 0.0;
        const double mean = 1e4 * std::exp(-y) + 100;
        data.counts[(static_cast<std::size_t>(v) * size + r) * size + c] =
          static_cast<float>(mean + std::sqrt(mean) * normal(engine));
      }
  data.dark.assign(4 * cells, 100.0f);
  data.bright.assign(4 * cells, 10100.0f);
  data.after.assign(4 * cells, 10200.0f);
  return data;
}

void
BM_Preprocess(benchmark::State & state)
{
  const int       size = static_cast<int>(state.range(0)), views = static_cast<int>(state.range(1));
  const RawData & data = rawData(views, size);
  FieldImages     fields;
  fields.dark = ArrayView3(data.dark.data(), { 4, size, size });
  fields.bright = ArrayView3(data.bright.data(), { 4, size, size });
  fields.brightAfter = ArrayView3(data.after.data(), { 4, size, size });
  PreprocessParams params;
  params.suppressRings = state.range(2) != 0;
  for (auto _ : state)
  {
    PreprocessResult result = preprocessTransmission(ArrayView3(data.counts, data.shape), fields, params);
    benchmark::DoNotOptimize(result.sinogram.data());
  }
  state.counters["projections/s"] =
    benchmark::Counter(static_cast<double>(views) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetLabel(params.suppressRings ? "rings" : "no rings");
}

void
BM_CentreOpposedViews(benchmark::State & state)
{
  const int        size = static_cast<int>(state.range(0)), views = static_cast<int>(state.range(1));
  const RawData &  data = rawData(views, size);
  PreprocessParams params;
  params.detectBadPixels = false;
  const PreprocessResult pre = preprocessTransmission(ArrayView3(data.counts, data.shape), {}, params);
  std::vector<float>     angles(views);
  for (int v = 0; v < views; ++v)
    angles[v] = static_cast<float>(2 * M_PI * v / views);
  const ParallelBeamGeometry geometry(data.shape, angles);
  for (auto _ : state)
  {
    benchmark::DoNotOptimize(estimateRotationCenter(geometry, ArrayView3(pre.sinogram, data.shape)).channels);
  }
}

} // namespace

BENCHMARK(BM_Preprocess)
  ->Name("preprocess")
  ->Args({ 256, 64, 0 })
  ->Args({ 1024, 64, 0 })
  ->Args({ 1024, 64, 1 })
  ->Unit(benchmark::kMillisecond)
  ->UseRealTime();
BENCHMARK(BM_CentreOpposedViews)
  ->Name("centre/opposed")
  ->Args({ 1024, 64 })
  ->Unit(benchmark::kMillisecond)
  ->UseRealTime();

BENCHMARK_MAIN();
