#pragma once
// The geometries of spec/projectors.md §8 (V = 64, R = 40, C = 128, D = 512, S = 256, aspects 1.9 / 2.9,
// helix of pitch 0.5 around z = 40) and the ones the spec adds (curved detector, multi-axis), shared by
// the projector, direct-recon and MBIR tests.

#include "MBIRTestSupport.h"
#include "mbir/Geometry.h"
#include "mbir/Reconstructor.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace mbir::test {

struct NamedGeometry
{
  std::string name;
  Geometry    geometry;
};

inline void
PrintTo(const NamedGeometry & g, std::ostream * out)
{
  *out << g.name;
}

inline std::string
testName(const ::testing::TestParamInfo<NamedGeometry> & info)
{
  return info.param.name;
}

// Which test of the spec the angles come from.
enum class SpecAngles
{
  Projector,   // half turn (+ fan angle for cone beam) offset by 1e-4 (spec §8.1)
  DirectRecon, // half turn for parallel beam, a full turn + half the fan angle for cone beam (§8.2)
  Mbir         // half turn (+ fan angle for cone beam), no offset (spec/solver.md §9.1)
};

constexpr int   kViews = 64, kRows = 40, kChannels = 128;
constexpr float kSdd = 4.0f * kChannels, kSid = 2.0f * kChannels;

inline std::vector<float>
linspace(double start, double stop, int n, double offset = 0.0)
{
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i)
  {
    values[i] = static_cast<float>(start + (stop - start) * i / n + offset);
  }
  return values;
}

inline std::vector<float>
specAngles(bool cone, SpecAngles which)
{
  const double fan = cone ? 2.0 * std::atan2(kChannels / 2.0, kSdd) : 0.0;
  switch (which)
  {
    case SpecAngles::Projector:
      return linspace(-(M_PI + fan) / 2, (M_PI + fan) / 2, kViews, 1e-4);
    case SpecAngles::DirectRecon:
      return cone ? linspace(-(M_PI + fan / 2), M_PI + fan / 2, kViews) : linspace(-M_PI / 2, M_PI / 2, kViews);
    case SpecAngles::Mbir:
      break;
  }
  return linspace(-(M_PI + fan) / 2, (M_PI + fan) / 2, kViews);
}

// Helix of pitch 0.5 (half the detector height at iso per turn) centred on z = 40.
inline std::vector<float>
specHelicalShifts()
{
  const double       heightAtIso = kRows / (kSdd / kSid), perView = 0.5 * heightAtIso / kViews;
  std::vector<float> shifts(kViews);
  for (int v = 0; v < kViews; ++v)
  {
    shifts[v] = static_cast<float>(40.0 + perView * (v - 0.5 * (kViews - 1)));
  }
  return shifts;
}

// Translations t_x, t_z uniform in [-10, 10], t_y = 0 (spec §8.1), from a fixed seed.
inline std::vector<std::array<float, 3>>
specTranslations(int views = kViews, unsigned seed = 7)
{
  std::mt19937                          engine(seed);
  std::uniform_real_distribution<float> travel(-10.0f, 10.0f);
  std::vector<std::array<float, 3>>     t(views);
  for (auto & v : t)
  {
    v = { travel(engine), 0.0f, travel(engine) };
  }
  return t;
}

inline ParallelBeamGeometry
specParallel(SpecAngles which, float rowAspect = 1.0f)
{
  ParallelBeamGeometry g(SinogramShape{ kViews, kRows, kChannels }, specAngles(false, which));
  g.voxelRowAspect = rowAspect;
  g.autoSetReconGeometry();
  return g;
}

inline ConeBeamGeometry
specCone(SpecAngles which, float rowAspect = 1.0f, float sliceAspect = 1.0f, bool helical = false, bool curved = false)
{
  ConeBeamGeometry g(SinogramShape{ kViews, kRows, kChannels },
                     specAngles(true, which),
                     kSdd,
                     kSid,
                     helical ? specHelicalShifts() : std::vector<float>{},
                     curved);
  g.voxelRowAspect = rowAspect;
  g.voxelSliceAspect = sliceAspect;
  g.autoSetReconGeometry();
  return g;
}

inline TranslationGeometry
specTranslation(float rowAspect = 1.0f, float sliceAspect = 1.0f)
{
  TranslationGeometry g(SinogramShape{ kViews, kRows, kChannels }, specTranslations(), kSdd, kSid);
  g.voxelRowAspect = rowAspect;
  g.voxelSliceAspect = sliceAspect;
  g.autoSetReconGeometry();
  return g;
}

// Laminography-like: a constant elevation of 25 degrees over a half turn of azimuths.
inline MultiAxisParallelGeometry
specMultiAxis(SpecAngles which, float elevationDegrees = 25.0f)
{
  return MultiAxisParallelGeometry(SinogramShape{ kViews, kRows, kChannels },
                                   specAngles(false, which),
                                   std::vector<float>(kViews, static_cast<float>(elevationDegrees * M_PI / 180.0)));
}

// The slices whose height lies within the helical travel (spec §6: the half-rotation range for pitch
// <= 1), as [first, last].
inline std::pair<int, int>
helicalSliceRange(const ConeBeamGeometry & g)
{
  const auto [low, high] = std::minmax_element(g.helicalZShifts.begin(), g.helicalZShifts.end());
  int first = g.reconShape.slices, last = -1;
  for (int k = 0; k < g.reconShape.slices; ++k)
  {
    const double z = g.deltaZ() * (k - 0.5 * (g.reconShape.slices - 1)) + g.reconSliceOffset;
    if (z >= *low && z <= *high)
    {
      first = std::min(first, k);
      last = std::max(last, k);
    }
  }
  return { first, last };
}

// Small scans of every geometry with prime view (13) and slice (11) counts, so that most device counts
// leave padding: the multi-device tests, on CPU devices and on shards of a GPU.
inline std::vector<NamedGeometry>
primeShardCases()
{
  std::vector<NamedGeometry> cases;
  cases.push_back({ "parallel", ParallelBeamGeometry({ 13, 11, 24 }, evenAngles(13, M_PI, 0.1)) });
  ConeBeamGeometry cone({ 13, 10, 24 }, evenAngles(13, 2 * M_PI, 0.1), 96.0f, 48.0f);
  cone.reconShape.slices = 11;
  cases.push_back({ "cone", cone });
  ConeBeamGeometry helix({ 13, 8, 24 }, evenAngles(13, 2 * M_PI, 0.1), 96.0f, 48.0f, linspace(-2, 2, 13), true);
  helix.reconShape.slices = 11;
  cases.push_back({ "curved_helical_cone", helix });
  TranslationGeometry translation({ 13, 12, 24 }, specTranslations(13, 5), 96.0f, 48.0f);
  translation.voxelRowAspect = 8.0f; // rows 8 voxels deep, 3 of them well clear of the source
  translation.reconShape = ReconShape{ 3, 17, 11 };
  cases.push_back({ "translation", translation });
  MultiAxisParallelGeometry multiAxis({ 13, 11, 24 }, evenAngles(13, M_PI, 0.1), std::vector<float>(13, 0.2f));
  multiAxis.reconShape.slices = 11;
  cases.push_back({ "multi_axis", multiAxis });
  return cases;
}

// Three quiet VCD iterations from a fixed seed: enough to compare reconstructions across devices.
inline ReconParams
threeIterationParams(const Geometry & geometry)
{
  ReconParams params = defaultReconParams(geometry);
  params.verbose = 0;
  params.maxIterations = 3;
  params.seed = 11;
  return params;
}

} // namespace mbir::test
