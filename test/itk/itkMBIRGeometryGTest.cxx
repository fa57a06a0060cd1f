// The ITK geometry objects: setters and getters in mm and radians, the ITK index order of the volume, the
// default grid, the volume origin (checked against where the engine's projector puts a voxel), JSON files,
// Modified() times, the errors of bad geometries and PrintSelf.

#include "MBIRTestSupport.h"
#include "itkImage.h"
#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRGeometry.h"
#include "itkMBIRMultiAxisParallelGeometry.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRTranslationGeometry.h"
#include "mbir/GeometryJson.h"
#include "mbir/Projector.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using itk::MBIRConeBeamGeometry;
using itk::MBIRGeometry;
using itk::MBIRMultiAxisParallelGeometry;
using itk::MBIRParallelBeamGeometry;
using itk::MBIRTranslationGeometry;
using RegionOfReconstruction = itk::MBIRGeometryEnums::RegionOfReconstruction;

namespace {

const std::vector<double> kAngles = { 0.0, 0.4, M_PI / 2, 2.0, 3.5, -1.1 };

std::vector<float>
Floats(const std::vector<double> & values)
{
  return std::vector<float>(values.begin(), values.end());
}

// The values as float32 stores them, which is what the getters give back.
std::vector<double>
AsStored(const std::vector<double> & values)
{
  const std::vector<float> stored = Floats(values);
  return std::vector<double>(stored.begin(), stored.end());
}

MBIRGeometry::DetectorVectorType
Pair(double a, double b)
{
  MBIRGeometry::DetectorVectorType v;
  v[0] = a;
  v[1] = b;
  return v;
}

MBIRGeometry::VolumeSpacingType
Triple(double x, double y, double z)
{
  MBIRGeometry::VolumeSpacingType v;
  v[0] = x;
  v[1] = y;
  v[2] = z;
  return v;
}

// The geometry text is a complete, exact description, so equal text means equal engine geometries.
std::string
Json(const mbir::Geometry & geometry)
{
  return mbir::geometryToJson(geometry);
}

template<typename F>
void
ExpectITKError(F && f, const std::string & needle)
{
  try
  {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find(needle), std::string::npos) << e.GetDescription();
  }
}

MBIRConeBeamGeometry::Pointer
HelicalCone()
{
  auto g = MBIRConeBeamGeometry::New();
  g->SetDetectorSize(24, 8);
  g->SetDetectorSpacing(Pair(0.5, 0.75));
  g->SetAngles(kAngles);
  g->SetSourceToDetectorDistance(300.0);
  g->SetSourceToIsocenterDistance(100.0);
  g->SetHelicalShifts({ 0.0, 1.0, 2.0, 3.0, 4.0, 5.0 });
  g->CurvedDetectorOn();
  g->AutoSetVolumeGeometry();
  return g;
}

MBIRTranslationGeometry::TranslationsType
Translations()
{
  const double values[][3] = { { 0, 0, 0 }, { 6, 0, -3 }, { -5, 10, 4 }, { 3, -8, 7 }, { -9, 4, -6 } };
  MBIRTranslationGeometry::TranslationsType translations;
  for (const auto & t : values)
  {
    MBIRTranslationGeometry::TranslationType v;
    v[0] = t[0];
    v[1] = t[1];
    v[2] = t[2];
    translations.push_back(v);
  }
  return translations;
}

MBIRTranslationGeometry::Pointer
TranslationScan()
{
  auto g = MBIRTranslationGeometry::New();
  g->SetDetectorSize(160, 80);
  g->SetTranslations(Translations());
  g->SetSourceToDetectorDistance(300.0);
  g->SetSourceToIsocenterDistance(120.0);
  g->AutoSetVolumeGeometry();
  return g;
}

MBIRMultiAxisParallelGeometry::Pointer
Laminography()
{
  auto g = MBIRMultiAxisParallelGeometry::New();
  g->SetDetectorSize(32, 12);
  g->SetAngles(kAngles);
  g->SetElevations({ 0.0, 0.3, -0.5, 0.7, 0.2, -0.1 });
  g->AutoSetVolumeGeometry();
  return g;
}

MBIRParallelBeamGeometry::Pointer
ParallelScan()
{
  auto g = MBIRParallelBeamGeometry::New();
  g->SetDetectorSize(40, 6);
  g->SetDetectorSpacing(Pair(0.25, 0.25));
  g->SetAngles(kAngles);
  g->AutoSetVolumeGeometry();
  return g;
}

std::vector<MBIRGeometry::Pointer>
EveryGeometry()
{
  return { MBIRGeometry::Pointer(ParallelScan().GetPointer()),
           MBIRGeometry::Pointer(HelicalCone().GetPointer()),
           MBIRGeometry::Pointer(TranslationScan().GetPointer()),
           MBIRGeometry::Pointer(Laminography().GetPointer()) };
}

} // namespace

TEST(MBIRGeometry, ParallelBeamSettersAndGettersInMillimetresAndRadians)
{
  auto g = MBIRParallelBeamGeometry::New();
  EXPECT_EQ(g->GetNumberOfViews(), 0u);
  EXPECT_EQ(g->GetRegionOfReconstruction(), RegionOfReconstruction::Ellipse);
  g->SetDetectorSize(48, 10);
  g->SetAngles(kAngles);
  g->SetDetectorSpacing(Pair(0.5, 0.5));
  g->SetDetectorOffset(Pair(1.25, 0.0));
  EXPECT_EQ(g->GetNumberOfChannels(), 48u);
  EXPECT_EQ(g->GetNumberOfRows(), 10u);
  EXPECT_EQ(g->GetNumberOfViews(), kAngles.size());
  EXPECT_EQ(g->GetAngles(), AsStored(kAngles));
  EXPECT_EQ(g->GetDetectorSpacing(), Pair(0.5, 0.5));
  EXPECT_EQ(g->GetDetectorOffset(), Pair(1.25, 0.0));
  EXPECT_EQ(g->GetMagnification(), 1.0);

  g->AutoSetVolumeGeometry();
  const auto engine = std::get<mbir::ParallelBeamGeometry>(g->GetEngineGeometry());
  EXPECT_EQ(engine.sinogramShape, (mbir::SinogramShape{ 6, 10, 48 }));
  EXPECT_EQ(engine.angles, Floats(kAngles));
  EXPECT_EQ(engine.deltaDetChannel, 0.5f);
  EXPECT_EQ(engine.detChannelOffset, 1.25f);

  // A float32 value comes back as the nearest float32, not bit-exact in double.
  g->SetAngles({ 0.1 });
  EXPECT_EQ(g->GetAngles(), std::vector<double>{ static_cast<double>(0.1f) });
  EXPECT_EQ(g->GetNumberOfViews(), 1u);
}

TEST(MBIRGeometry, ParallelBeamSlicePitchIsTheDetectorRowPitch)
{
  auto g = ParallelScan();
  g->SetDetectorSpacing(Pair(0.25, 0.5));
  EXPECT_EQ(g->GetVolumeSpacing(), Triple(0.25, 0.25, 0.5));
  EXPECT_DOUBLE_EQ(g->GetVolumeOrigin()[2], -0.5 * 5 / 2);
  g->SetVolumeSpacing(Triple(1.0, 1.5, 0.5)); // coarser in x and y; slices stay rows
  EXPECT_EQ(g->GetVolumeSpacing(), Triple(1.0, 1.5, 0.5));
  const auto engine = std::get<mbir::ParallelBeamGeometry>(g->GetEngineGeometry());
  EXPECT_EQ(engine.deltaVoxel, 1.0f);
  EXPECT_EQ(engine.voxelRowAspect, 1.5f);
  EXPECT_EQ(engine.voxelSliceAspect, 1.0f);
  ExpectITKError([&] { g->SetVolumeSpacing(Triple(1.0, 1.0, 1.0)); }, "detector row pitch");
}

TEST(MBIRGeometry, VolumeSizeAndSpacingAreInITKIndexOrder)
{
  auto                         g = HelicalCone();
  MBIRGeometry::VolumeSizeType size = { { 10, 20, 30 } };
  g->SetVolumeSize(size);
  g->SetVolumeSpacing(Triple(0.5, 0.75, 1.25));
  EXPECT_EQ(g->GetVolumeSize(), size);
  EXPECT_EQ(g->GetVolumeSpacing(), Triple(0.5, 0.75, 1.25));

  auto engine = std::get<mbir::ConeBeamGeometry>(g->GetEngineGeometry());
  EXPECT_EQ(engine.reconShape, (mbir::ReconShape{ 20, 10, 30 })); // (rows = y, cols = x, slices = z)
  EXPECT_EQ(engine.deltaVoxel, 0.5f);
  EXPECT_EQ(engine.voxelRowAspect, 1.5f);
  EXPECT_EQ(engine.voxelSliceAspect, 2.5f);

  // And back: an engine grid read through the ITK getters.
  engine.reconShape = { 7, 9, 11 };
  engine.deltaVoxel = 0.25f;
  engine.voxelRowAspect = 2.0f;
  engine.voxelSliceAspect = 3.0f;
  g->SetEngineGeometry(engine);
  EXPECT_EQ(g->GetVolumeSize(), (MBIRGeometry::VolumeSizeType{ { 9, 7, 11 } }));
  EXPECT_EQ(g->GetVolumeSpacing(), Triple(0.25, 0.5, 0.75));

  // Pitches that float32 does not hold exactly come back to float32 precision.
  g->SetVolumeSpacing(Triple(0.3, 0.7, 0.9));
  const auto spacing = g->GetVolumeSpacing();
  EXPECT_NEAR(spacing[0], 0.3, 1e-7);
  EXPECT_NEAR(spacing[1], 0.7, 2e-7);
  EXPECT_NEAR(spacing[2], 0.9, 2e-7);

  // Scaling changes x (columns) and y (rows) and keeps z and the pitch.
  g->SetVolumeSize(size);
  g->ScaleVolumeSize(0.5, 2.0);
  EXPECT_EQ(g->GetVolumeSize(), (MBIRGeometry::VolumeSizeType{ { 5, 40, 30 } }));
  EXPECT_NEAR(g->GetVolumeSpacing()[0], 0.3, 1e-7);

  ExpectITKError([&] { g->SetVolumeSpacing(Triple(0.5, 0.0, 1.0)); }, "finite and > 0");
  ExpectITKError([&] { g->ScaleVolumeSize(-1.0, 1.0); }, "scales must be finite and > 0");
}

TEST(MBIRGeometry, AutoSetVolumeGeometryIsTheEngineDefaultGrid)
{
  mbir::ParallelBeamGeometry parallel({ 6, 6, 40 }, Floats(kAngles));
  parallel.deltaDetChannel = parallel.deltaDetRow = 0.25f;
  parallel.autoSetReconGeometry();
  EXPECT_EQ(Json(ParallelScan()->GetEngineGeometry()), Json(parallel));

  mbir::ConeBeamGeometry cone({ 6, 8, 24 }, Floats(kAngles), 300.0f, 100.0f, { 0, 1, 2, 3, 4, 5 }, true);
  cone.deltaDetChannel = 0.5f;
  cone.deltaDetRow = 0.75f;
  cone.autoSetReconGeometry();
  EXPECT_EQ(Json(HelicalCone()->GetEngineGeometry()), Json(cone));

  std::vector<std::array<float, 3>> translations;
  for (const auto & t : Translations())
  {
    translations.push_back({ { float(t[0]), float(t[1]), float(t[2]) } });
  }
  const mbir::TranslationGeometry translation({ 5, 80, 160 }, translations, 300.0f, 120.0f);
  EXPECT_EQ(Json(TranslationScan()->GetEngineGeometry()), Json(translation));
  EXPECT_EQ(TranslationScan()->GetRegionOfReconstruction(), RegionOfReconstruction::All);

  const mbir::MultiAxisParallelGeometry multiAxis(
    { 6, 12, 32 }, Floats(kAngles), { 0.0f, 0.3f, -0.5f, 0.7f, 0.2f, -0.1f });
  EXPECT_EQ(Json(Laminography()->GetEngineGeometry()), Json(multiAxis));
}

TEST(MBIRGeometry, VolumeOriginCentresTheGridOnTheAxisAndTheSliceOffset)
{
  auto       parallel = ParallelScan();
  const auto size = parallel->GetVolumeSize();
  EXPECT_EQ(size, (MBIRGeometry::VolumeSizeType{ { 40, 40, 6 } }));
  EXPECT_DOUBLE_EQ(parallel->GetVolumeOrigin()[0], -0.25 * 39 / 2);
  EXPECT_DOUBLE_EQ(parallel->GetVolumeOrigin()[1], -0.25 * 39 / 2);
  EXPECT_DOUBLE_EQ(parallel->GetVolumeOrigin()[2], -0.25 * 5 / 2);

  // The default helical grid is centred on the travel of the scanner, shifts 0 to 5 mm.
  auto cone = HelicalCone();
  EXPECT_DOUBLE_EQ(cone->GetVolumeSliceOffset(), 2.5);
  const auto spacing = cone->GetVolumeSpacing();
  const auto nz = static_cast<double>(cone->GetVolumeSize()[2]);
  EXPECT_DOUBLE_EQ(cone->GetVolumeOrigin()[2], 2.5 - spacing[2] * (nz - 1) / 2);
  cone->SetVolumeSliceOffset(-4.0);
  EXPECT_DOUBLE_EQ(cone->GetVolumeOrigin()[2], -4.0 - spacing[2] * (nz - 1) / 2);
  EXPECT_DOUBLE_EQ(cone->GetVolumeOrigin()[0], -spacing[0] * (cone->GetVolumeSize()[0] - 1.0) / 2);

  auto multiAxis = Laminography();
  multiAxis->SetVolumeSliceOffset(1.5);
  const auto mz = static_cast<double>(multiAxis->GetVolumeSize()[2]);
  EXPECT_DOUBLE_EQ(multiAxis->GetVolumeOrigin()[2], 1.5 - multiAxis->GetVolumeSpacing()[2] * (mz - 1) / 2);

  // Translation has no slice offset: its grid is centred on the frame origin.
  auto       translation = TranslationScan();
  const auto tz = static_cast<double>(translation->GetVolumeSize()[2]);
  EXPECT_DOUBLE_EQ(translation->GetVolumeOrigin()[2], -translation->GetVolumeSpacing()[2] * (tz - 1) / 2);
}

namespace {

struct DetectorPoint
{
  double channel;
  double row;
};

// Where the README's table puts a physical point (x~, y~, z~) in view v, as (u, w) in mm.
using ProjectPoint = std::function<void(int v, const itk::Point<double, 3> & p, double & u, double & w)>;

// Coarse voxels, so that each shadow spans several detector cells and its centroid is within a few
// hundredths of a cell of the projected voxel centre.
void
Coarsen(MBIRGeometry & g, unsigned int factor, bool slices)
{
  auto size = g.GetVolumeSize();
  auto spacing = g.GetVolumeSpacing();
  for (unsigned int d = 0; d < (slices ? 3u : 2u); ++d)
  {
    size[d] = std::max<itk::SizeValueType>(1, size[d] / factor);
    spacing[d] *= factor;
  }
  g.SetVolumeSize(size);
  g.SetVolumeSpacing(spacing);
}

// A volume image with the geometry's size, spacing and origin: one bright voxel of it, projected by the
// engine, must land where the README puts the voxel's ITK physical point.
void
ExpectVoxelsLandAtTheirPhysicalPoints(const MBIRGeometry &               g,
                                      const std::vector<itk::Index<3>> & voxels,
                                      const ProjectPoint &               project)
{
  using ImageType = itk::Image<float, 3>;
  auto image = ImageType::New();
  image->SetRegions(ImageType::RegionType(g.GetVolumeSize()));
  image->SetSpacing(g.GetVolumeSpacing());
  image->SetOrigin(g.GetVolumeOrigin());

  const mbir::Projector projector(g.GetEngineGeometry(), mbir::makeCpuBackend());
  const auto            size = g.GetVolumeSize();
  const int             C = static_cast<int>(g.GetNumberOfChannels());
  const int             R = static_cast<int>(g.GetNumberOfRows());
  const auto            pitch = g.GetDetectorSpacing();
  const auto            offset = g.GetDetectorOffset();
  for (const auto & index : voxels)
  {
    ASSERT_TRUE(image->GetLargestPossibleRegion().IsInside(index)) << index;
    itk::Point<double, 3> p;
    image->TransformIndexToPhysicalPoint(index, p);

    // Engine layout: pixel (row = y, col = x), a cylinder of slices.
    std::vector<float> unit(size[2], 0.0f);
    unit[index[2]] = 1.0f;
    const int                pixel = static_cast<int>(index[1] * size[0] + index[0]);
    const std::vector<float> sino = projector.sparseForwardProject(unit.data(), { pixel });
    for (int v = 0; v < static_cast<int>(g.GetNumberOfViews()); ++v)
    {
      double sum = 0.0, channel = 0.0, row = 0.0;
      for (int m = 0; m < R; ++m)
      {
        for (int n = 0; n < C; ++n)
        {
          const double value = sino[(static_cast<std::size_t>(v) * R + m) * C + n];
          sum += value;
          channel += value * n;
          row += value * m;
        }
      }
      double u = 0.0, w = 0.0;
      project(v, p, u, w);
      EXPECT_NEAR(channel / sum, (u + offset[0]) / pitch[0] + 0.5 * (C - 1), 0.05) << index << " view " << v;
      EXPECT_NEAR(row / sum, (w + offset[1]) / pitch[1] + 0.5 * (R - 1), 0.05) << index << " view " << v;
    }
  }
}

void
Rotate(const itk::Point<double, 3> & p, double beta, double & x, double & y)
{
  x = p[0] * std::cos(beta) - p[1] * std::sin(beta);
  y = p[0] * std::sin(beta) + p[1] * std::cos(beta);
}

} // namespace

TEST(MBIRGeometry, VoxelsLandWhereTheirPhysicalPointsProject)
{
  {
    SCOPED_TRACE("parallel beam");
    auto g = MBIRParallelBeamGeometry::New();
    g->SetDetectorSize(64, 12);
    g->SetAngles(kAngles);
    g->SetDetectorOffset(Pair(1.7, 0.0));
    g->SetDetectorSpacing(Pair(0.8, 1.0));
    g->SetVolumeSpacing(Triple(1.0, 1.3, 1.0));
    g->AutoSetVolumeGeometry();
    // Coarser in x and y only, and one slice per row: the z spacing is the row pitch, not the x pitch.
    auto size = g->GetVolumeSize();
    size[2] = 12;
    g->SetVolumeSize(size);
    Coarsen(*g, 4, false);
    ASSERT_EQ(g->GetVolumeSpacing()[2], 1.0);
    ASSERT_NEAR(g->GetVolumeSpacing()[0], 3.2, 1e-6);
    ExpectVoxelsLandAtTheirPhysicalPoints(
      *g, { { { 10, 3, 3 } }, { { 4, 8, 9 } } }, [&](int v, const auto & p, double & u, double & w) {
        double y;
        Rotate(p, kAngles[v], u, y);
        w = p[2];
      });
  }
  {
    SCOPED_TRACE("helical flat cone beam");
    auto                      g = MBIRConeBeamGeometry::New();
    const std::vector<double> shifts = { 0.0, 1.0, 2.0, 3.0, 4.0, 5.0 };
    g->SetDetectorSize(64, 40);
    g->SetAngles(kAngles);
    g->SetSourceToDetectorDistance(300.0);
    g->SetSourceToIsocenterDistance(120.0);
    g->SetHelicalShifts(shifts);
    g->SetDetectorSpacing(Pair(0.8, 1.1));
    g->SetDetectorOffset(Pair(1.7, -2.3));
    g->SetVolumeSpacing(Triple(1.0, 1.3, 0.8));
    g->AutoSetVolumeGeometry();
    Coarsen(*g, 4, true);
    ASSERT_DOUBLE_EQ(g->GetVolumeSliceOffset(), 2.5);
    ExpectVoxelsLandAtTheirPhysicalPoints(
      *g, { { { 10, 3, 8 } }, { { 4, 8, 14 } } }, [&](int v, const auto & p, double & u, double & w) {
        double x, y;
        Rotate(p, kAngles[v], x, y);
        u = 300.0 * x / (120.0 - y);
        w = 300.0 * (p[2] - shifts[v]) / (120.0 - y);
      });
  }
  {
    SCOPED_TRACE("translation");
    auto g = MBIRTranslationGeometry::New();
    g->SetDetectorSize(160, 80);
    g->SetTranslations(Translations());
    g->SetSourceToDetectorDistance(300.0);
    g->SetSourceToIsocenterDistance(120.0);
    g->SetDetectorSpacing(Pair(0.8, 1.1));
    g->SetDetectorOffset(Pair(1.7, -2.3));
    g->SetVolumeSpacing(Triple(1.0, 1.3, 0.8));
    g->AutoSetVolumeGeometry();
    Coarsen(*g, 4, true);
    auto size = g->GetVolumeSize();
    size[1] = 3;
    g->SetVolumeSize(size);
    const auto t = Translations();
    ExpectVoxelsLandAtTheirPhysicalPoints(
      *g, { { { 2, 0, 3 } }, { { 6, 2, 6 } } }, [&](int v, const auto & p, double & u, double & w) {
        const double x = p[0] - t[v][0], y = p[1] - t[v][1], z = p[2] - t[v][2];
        u = 300.0 * x / (120.0 - y);
        w = 300.0 * z / (120.0 - y);
      });
  }
  {
    SCOPED_TRACE("multi-axis parallel beam");
    auto                      g = MBIRMultiAxisParallelGeometry::New();
    const std::vector<double> elevations = { 0.0, 0.3, -0.5, 0.7, 0.2, -0.1 };
    g->SetDetectorSize(64, 80);
    g->SetAngles(kAngles);
    g->SetElevations(elevations);
    g->SetDetectorSpacing(Pair(0.8, 1.1));
    g->SetDetectorOffset(Pair(1.7, -2.3));
    g->SetVolumeSpacing(Triple(1.0, 1.3, 0.8));
    g->AutoSetVolumeGeometry();
    Coarsen(*g, 4, true);
    g->SetVolumeSliceOffset(1.5);
    ExpectVoxelsLandAtTheirPhysicalPoints(
      *g, { { { 10, 3, 18 } }, { { 4, 8, 26 } } }, [&](int v, const auto & p, double & u, double & w) {
        double y;
        Rotate(p, kAngles[v], u, y);
        w = p[2] * std::cos(elevations[v]) + y * std::sin(elevations[v]);
      });
  }
}

TEST(MBIRGeometry, ConeBeamParameters)
{
  auto g = HelicalCone();
  EXPECT_EQ(g->GetSourceToDetectorDistance(), 300.0);
  EXPECT_EQ(g->GetSourceToIsocenterDistance(), 100.0);
  EXPECT_DOUBLE_EQ(g->GetMagnification(), 3.0);
  EXPECT_EQ(g->GetHelicalShifts(), (std::vector<double>{ 0, 1, 2, 3, 4, 5 }));
  EXPECT_TRUE(g->GetCurvedDetector());
  g->CurvedDetectorOff();
  EXPECT_FALSE(g->GetCurvedDetector());

  // Parallel rays with the cone's vertical model.
  g->SetSourceToDetectorDistance(std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isinf(g->GetSourceToDetectorDistance()));
  EXPECT_EQ(g->GetMagnification(), 1.0);
  const auto engine = std::get<mbir::ConeBeamGeometry>(g->GetEngineGeometry());
  EXPECT_TRUE(std::isinf(engine.sourceDetectorDist));
  EXPECT_FALSE(engine.curvedDetector);
  EXPECT_EQ(engine.helicalZShifts, (std::vector<float>{ 0, 1, 2, 3, 4, 5 }));
}

TEST(MBIRGeometry, TranslationAndMultiAxisParameters)
{
  auto translation = TranslationScan();
  EXPECT_EQ(translation->GetNumberOfViews(), 5u);
  EXPECT_EQ(translation->GetTranslations(), Translations());
  EXPECT_DOUBLE_EQ(translation->GetMagnification(), 2.5);
  const auto engine = std::get<mbir::TranslationGeometry>(translation->GetEngineGeometry());
  EXPECT_EQ(engine.translations[2], (std::array<float, 3>{ { -5.0f, 10.0f, 4.0f } }));
  EXPECT_EQ(engine.sourceIsoDist, 120.0f);

  auto multiAxis = Laminography();
  EXPECT_EQ(multiAxis->GetAngles(), AsStored(kAngles));
  EXPECT_EQ(multiAxis->GetElevations(), AsStored({ 0.0, 0.3, -0.5, 0.7, 0.2, -0.1 }));
  multiAxis->SetVolumeSliceOffset(-2.0);
  EXPECT_EQ(std::get<mbir::MultiAxisParallelGeometry>(multiAxis->GetEngineGeometry()).reconSliceOffset, -2.0f);
}

TEST(MBIRGeometry, RegionOfReconstruction)
{
  auto g = HelicalCone();
  g->SetRegionOfReconstruction(RegionOfReconstruction::All);
  EXPECT_EQ(g->GetRegionOfReconstruction(), RegionOfReconstruction::All);
  EXPECT_EQ(detectorAndGridOf(g->GetEngineGeometry()).rorMask.kind(), mbir::RorMask::Kind::None);

  // A mask over (rows = y, cols = x): 2 rows of 3 here, then the grid made to match.
  const MBIRGeometry::MaskType     mask = { 1, 0, 1, 0, 1, 1 };
  const MBIRGeometry::MaskSizeType xySize = { { 3, 2 } };
  g->SetRegionOfReconstructionMask(mask, xySize);
  EXPECT_EQ(g->GetRegionOfReconstruction(), RegionOfReconstruction::Custom);
  ExpectITKError([&] { g->GetEngineGeometry(); }, "custom ROR mask has shape (2, 3)");
  g->SetVolumeSize({ { 3, 2, 4 } });
  const mbir::Geometry engine = g->GetEngineGeometry();
  EXPECT_EQ(detectorAndGridOf(engine).rorMask.pixelIndices({ 2, 3, 4 }), (std::vector<int>{ 0, 2, 4, 5 }));

  // The mask survives a trip through the engine struct and JSON.
  const auto copy = MBIRGeometry::FromJSON(g->ToJSON());
  EXPECT_EQ(copy->GetRegionOfReconstructionMask(), mask);
  EXPECT_EQ(copy->GetRegionOfReconstructionMaskSize(), xySize);

  ExpectITKError([&] { g->SetRegionOfReconstructionMask({ 1, 2, 0, 1, 1, 1 }, xySize); }, "0 or 1");
  ExpectITKError([&] { g->SetRegionOfReconstructionMask({ 1, 0 }, xySize); }, "custom ROR mask");
  ExpectITKError([&] { g->SetRegionOfReconstruction(RegionOfReconstruction::Custom); },
                 "SetRegionOfReconstructionMask");

  g->SetRegionOfReconstruction(RegionOfReconstruction::Ellipse);
  EXPECT_TRUE(g->GetRegionOfReconstructionMask().empty());
  EXPECT_EQ(g->GetRegionOfReconstructionMaskSize(), (MBIRGeometry::MaskSizeType{ { 0, 0 } }));
}

TEST(MBIRGeometry, JsonRoundTripKeepsTheSubclassAndTheEngineGeometry)
{
  const std::string path = ::testing::TempDir() + "itk_mbir_geometry_test.json";
  for (const auto & g : EveryGeometry())
  {
    SCOPED_TRACE(g->GetNameOfClass());
    g->WriteJSON(path);
    const MBIRGeometry::Pointer read = MBIRGeometry::ReadJSON(path);
    EXPECT_STREQ(read->GetNameOfClass(), g->GetNameOfClass());
    EXPECT_EQ(Json(read->GetEngineGeometry()), Json(g->GetEngineGeometry()));

    const MBIRGeometry::Pointer parsed = MBIRGeometry::FromJSON(g->ToJSON());
    EXPECT_STREQ(parsed->GetNameOfClass(), g->GetNameOfClass());
    EXPECT_EQ(parsed->ToJSON(), g->ToJSON());

    const MBIRGeometry::Pointer converted = MBIRGeometry::FromEngineGeometry(g->GetEngineGeometry());
    EXPECT_STREQ(converted->GetNameOfClass(), g->GetNameOfClass());
    EXPECT_EQ(converted->GetVolumeSize(), g->GetVolumeSize());
    EXPECT_EQ(converted->GetVolumeOrigin(), g->GetVolumeOrigin());
  }
  std::remove(path.c_str());

  EXPECT_NE(
    dynamic_cast<MBIRConeBeamGeometry *>(MBIRGeometry::FromEngineGeometry(mbir::ConeBeamGeometry{}).GetPointer()),
    nullptr);
}

TEST(MBIRGeometry, FileAndTextErrorsKeepTheEngineMessage)
{
  const std::string missing = ::testing::TempDir() + "no_such_dir/geometry.json";
  ExpectITKError([&] { MBIRGeometry::ReadJSON(missing); }, missing);
  ExpectITKError([&] { ParallelScan()->WriteJSON(missing); }, missing);
  ExpectITKError([&] { MBIRGeometry::FromJSON("{\"format\": \"mbir-geometry\", \"version\": 1}"); }, "geometry");
  ExpectITKError([&] { MBIRGeometry::FromJSON("not json"); }, "JSON");
}

TEST(MBIRGeometry, InvalidGeometriesNameTheField)
{
  auto cone = HelicalCone();
  cone->SetSourceToIsocenterDistance(-5.0);
  ExpectITKError([&] { cone->GetEngineGeometry(); }, "source_iso_dist");
  ExpectITKError([&] { cone->ToJSON(); }, "source_iso_dist");
  ExpectITKError([&] { cone->WriteJSON(::testing::TempDir() + "never_written.json"); }, "source_iso_dist");

  cone = HelicalCone();
  cone->SetHelicalShifts({ 0.0, 1.0 });
  ExpectITKError([&] { cone->GetEngineGeometry(); }, "helical_z_shifts has 2 entries for 6 views");

  auto multiAxis = Laminography();
  multiAxis->SetAngles({ 0.0, 1.0, 2.0 });
  ExpectITKError([&] { multiAxis->GetEngineGeometry(); }, "elevations");

  auto parallel = ParallelScan();
  parallel->SetDetectorOffset(Pair(0.0, 1.0));
  ExpectITKError([&] { parallel->GetEngineGeometry(); }, "det_row_offset");

  // A geometry without a grid says how to get one.
  auto empty = MBIRTranslationGeometry::New();
  empty->SetDetectorSize(16, 16);
  empty->SetTranslations(Translations());
  ExpectITKError([&] { empty->GetEngineGeometry(); }, "delta_voxel");
}

// The translations with view 1 moved by dz along z.
MBIRTranslationGeometry::TranslationsType
TranslationsMovedBy(double dz)
{
  MBIRTranslationGeometry::TranslationsType translations = Translations();
  translations[1][2] += dz;
  return translations;
}

TEST(MBIRGeometry, ModifiedOnlyOnARealChange)
{
  auto cone = HelicalCone();
  auto translation = TranslationScan();
  auto multiAxis = Laminography();

  // Each setter, given false, sets a value it then keeps; given true, a different one.
  using Setter = std::pair<const char *, std::function<void(bool)>>;
  const std::vector<Setter> setters = {
    { "DetectorSize", [&](bool change) { cone->SetDetectorSize(change ? 25 : 24, 8); } },
    { "DetectorSpacing", [&](bool change) { cone->SetDetectorSpacing(Pair(0.5, change ? 0.8 : 0.75)); } },
    { "DetectorOffset", [&](bool change) { cone->SetDetectorOffset(Pair(change ? 0.1 : 0.0, 0.0)); } },
    { "VolumeSize",
      [&](bool change) {
        cone->SetVolumeSize({ { 20, 20, change ? 9u : 8u } });
      } },
    { "VolumeSpacing", [&](bool change) { cone->SetVolumeSpacing(Triple(0.5, 0.5, change ? 0.6 : 0.5)); } },
    { "ScaleVolumeSize", [&](bool change) { cone->ScaleVolumeSize(change ? 0.5 : 1.0, 1.0); } },
    { "RegionOfReconstruction",
      [&](bool change) {
        cone->SetRegionOfReconstruction(change ? RegionOfReconstruction::All : RegionOfReconstruction::Ellipse);
      } },
    { "RegionOfReconstructionMask",
      [&](bool change) {
        cone->SetRegionOfReconstructionMask({ 1, 1, 0, static_cast<unsigned char>(change ? 0 : 1) }, { { 2, 2 } });
      } },
    { "Angles",
      [&](bool change) {
        cone->SetAngles({ 0.0, change ? 0.2 : 0.1 });
      } },
    { "SourceToDetectorDistance", [&](bool change) { cone->SetSourceToDetectorDistance(change ? 310.0 : 300.0); } },
    { "SourceToIsocenterDistance", [&](bool change) { cone->SetSourceToIsocenterDistance(change ? 90.0 : 100.0); } },
    { "HelicalShifts",
      [&](bool change) {
        cone->SetHelicalShifts({ 0.0, change ? 2.0 : 1.0 });
      } },
    { "CurvedDetector", [&](bool change) { cone->SetCurvedDetector(!change); } },
    { "ConeVolumeSliceOffset", [&](bool change) { cone->SetVolumeSliceOffset(change ? 1.0 : 0.0); } },
    { "Translations", [&](bool change) { translation->SetTranslations(TranslationsMovedBy(change ? 1.0 : 0.0)); } },
    { "Elevations",
      [&](bool change) {
        multiAxis->SetElevations({ 0.0, change ? 0.2 : 0.1 });
      } },
    { "MultiAxisVolumeSliceOffset", [&](bool change) { multiAxis->SetVolumeSliceOffset(change ? 1.0 : 0.0); } },
  };
  const auto latest = [&] { return std::max({ cone->GetMTime(), translation->GetMTime(), multiAxis->GetMTime() }); };
  for (const auto & [name, set] : setters)
  {
    SCOPED_TRACE(name);
    set(false); // now the unchanged value is the stored one
    const itk::ModifiedTimeType before = latest();
    set(false);
    EXPECT_EQ(latest(), before);
    set(true);
    EXPECT_GT(latest(), before);
  }

  // AutoSetVolumeGeometry() modifies only when it changes the grid.
  cone = HelicalCone();
  itk::ModifiedTimeType before = cone->GetMTime();
  cone->AutoSetVolumeGeometry();
  EXPECT_EQ(cone->GetMTime(), before);
  cone->SetVolumeSize({ { 1, 1, 1 } });
  before = cone->GetMTime();
  cone->AutoSetVolumeGeometry();
  EXPECT_GT(cone->GetMTime(), before);

  // Replacing the engine struct always counts as a change.
  before = cone->GetMTime();
  cone->SetEngineGeometry(std::get<mbir::ConeBeamGeometry>(cone->GetEngineGeometry()));
  EXPECT_GT(cone->GetMTime(), before);
}

TEST(MBIRGeometry, PrintSelfShowsEveryParameter)
{
  auto cone = HelicalCone();
  cone->SetRegionOfReconstructionMask({ 1, 0, 1, 1 }, { { 2, 2 } });
  std::ostringstream text;
  cone->Print(text);
  for (const char * name : { "MBIRConeBeamGeometry",
                             "NumberOfViews: 6",
                             "NumberOfRows: 8",
                             "NumberOfChannels: 24",
                             "DetectorSpacing",
                             "DetectorOffset",
                             "VolumeSize",
                             "VolumeSpacing",
                             "VolumeOrigin",
                             "RegionOfReconstruction: "
                             "itk::MBIRGeometryEnums::RegionOfReconstruction::Custom",
                             "RegionOfReconstructionMaskSize: [2, 2] (3 pixels inside)",
                             "Magnification: 3",
                             "Angles (rad): 6 values: 0 0.4",
                             "SourceToDetectorDistance (mm): 300",
                             "SourceToIsocenterDistance (mm): 100",
                             "HelicalShifts (mm): 6 values: 0 1 2 3 4 5",
                             "CurvedDetector: On",
                             "VolumeSliceOffset (mm): 2.5" })
  {
    EXPECT_NE(text.str().find(name), std::string::npos) << name << " not in\n" << text.str();
  }

  std::ostringstream others;
  TranslationScan()->Print(others);
  Laminography()->Print(others);
  ParallelScan()->Print(others);
  for (const char * name : { "Translations (mm): 5 values: [0, 0, 0] [6, 0, -3] [-5, 10, 4] [3, -8, 7] [-9, 4, -6]",
                             "Elevations (rad): 6 values:",
                             "RegionOfReconstruction: itk::MBIRGeometryEnums::RegionOfReconstruction::All" })
  {
    EXPECT_NE(others.str().find(name), std::string::npos) << name << " not in\n" << others.str();
  }

  // Long arrays are shortened in the middle.
  auto parallel = MBIRParallelBeamGeometry::New();
  parallel->SetAngles(std::vector<double>(100, 0.5));
  std::ostringstream shortened;
  parallel->Print(shortened);
  EXPECT_NE(shortened.str().find("Angles (rad): 100 values: 0.5 0.5 0.5 0.5 ... 0.5 0.5\n"), std::string::npos)
    << shortened.str();
}
