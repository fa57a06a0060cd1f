// Geometry files (mbir/GeometryJson.h): exact round trips for every geometry, the text layout, files on
// disk, the defaults of a minimal file, and the messages that bad files must raise.

#include "MBIRTestSupport.h"
#include "mbir/GeometryJson.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

using namespace mbir;
using mbir::test::expectInvalid;

namespace {

// ---- Geometries with a non-default value in every field they allow

RorMask
randomMask(const ReconShape & shape, unsigned seed)
{
  const std::vector<float>  u = test::uniformRandom(shape.numPixels(), seed);
  std::vector<std::uint8_t> mask(u.size());
  for (std::size_t p = 0; p < u.size(); ++p)
  {
    mask[p] = u[p] < 0.6f ? 1 : 0;
  }
  return RorMask::custom(std::move(mask), shape.rows, shape.cols);
}

// Parallel beam requires voxel_slice_aspect 1 and det_row_offset 0, so those two keep their defaults.
ParallelBeamGeometry
parallelSample()
{
  ParallelBeamGeometry g(SinogramShape{ 12, 5, 20 }, test::uniformRandom(12, 1, -3.2f, 3.2f));
  g.deltaDetChannel = 0.7f;
  g.deltaDetRow = 0.9f;
  g.detChannelOffset = 0.3f;
  g.deltaVoxel = 0.55f;
  g.voxelRowAspect = 1.3f;
  g.reconShape = ReconShape{ 22, 25, 5 };
  g.rorMask = randomMask(g.reconShape, 2);
  return g;
}

ConeBeamGeometry
curvedHelicalConeSample()
{
  ConeBeamGeometry g(SinogramShape{ 16, 6, 24 },
                     test::uniformRandom(16, 3, 0.0f, 6.3f),
                     500.3f,
                     250.7f,
                     test::uniformRandom(16, 4, -2.0f, 5.0f),
                     true);
  g.deltaDetChannel = 1.1f;
  g.deltaDetRow = 0.9f;
  g.detChannelOffset = 0.25f;
  g.detRowOffset = -0.4f;
  g.voxelRowAspect = 1.2f;
  g.voxelSliceAspect = 0.8f;
  g.autoSetReconGeometry();
  g.reconSliceOffset = 0.37f;
  g.rorMask = RorMask::none();
  return g;
}

ConeBeamGeometry
infiniteConeSample()
{
  ConeBeamGeometry g(
    SinogramShape{ 8, 4, 10 }, test::evenAngles(8, M_PI), std::numeric_limits<float>::infinity(), 30.5f);
  g.deltaDetRow = 1.5f;
  g.detRowOffset = 0.2f;
  g.voxelSliceAspect = 1.5f;
  g.autoSetReconGeometry();
  g.reconShape.rows = 9;
  g.reconSliceOffset = -0.6f;
  g.rorMask = randomMask(g.reconShape, 5);
  return g;
}

TranslationGeometry
translationSample()
{
  const std::vector<float>          t = test::uniformRandom(27, 6, -3.0f, 3.0f);
  std::vector<std::array<float, 3>> translations(9);
  for (std::size_t v = 0; v < translations.size(); ++v)
  {
    translations[v] = { t[3 * v], t[3 * v + 1], t[3 * v + 2] };
  }
  TranslationGeometry g(SinogramShape{ 9, 7, 11 }, translations, 120.5f, 60.25f);
  g.deltaDetChannel = 0.8f;
  g.deltaDetRow = 0.6f;
  g.detChannelOffset = -0.1f;
  g.detRowOffset = 0.35f;
  g.voxelRowAspect = 2.5f; // kept by autoSetReconGeometry() since it is not 1
  g.voxelSliceAspect = 1.25f;
  g.autoSetReconGeometry();
  g.rorMask = RorMask::ellipse(); // translation's default is "none"
  return g;
}

MultiAxisParallelGeometry
multiAxisSample()
{
  MultiAxisParallelGeometry g(
    SinogramShape{ 10, 6, 14 }, test::uniformRandom(10, 7, 0.0f, 3.14f), test::uniformRandom(10, 8, -0.6f, 0.6f));
  g.deltaDetChannel = 1.3f;
  g.deltaDetRow = 0.7f;
  g.detChannelOffset = 0.45f;
  g.detRowOffset = -0.15f;
  g.voxelRowAspect = 0.9f;
  g.voxelSliceAspect = 1.1f;
  g.autoSetReconGeometry();
  g.reconSliceOffset = -1.25f;
  g.rorMask = randomMask(g.reconShape, 9);
  return g;
}

std::vector<std::pair<std::string, Geometry>>
samples()
{
  return { { "parallel", parallelSample() },
           { "curved helical cone", curvedHelicalConeSample() },
           { "cone with infinite source_detector_dist", infiniteConeSample() },
           { "translation", translationSample() },
           { "multi-axis parallel", multiAxisSample() } };
}

// ---- Field-by-field comparison; floats must be equal, not close

void
expectSameDetectorAndGrid(const DetectorAndGrid & a, const DetectorAndGrid & b)
{
  EXPECT_EQ(a.sinogramShape, b.sinogramShape);
  EXPECT_EQ(a.deltaDetChannel, b.deltaDetChannel);
  EXPECT_EQ(a.deltaDetRow, b.deltaDetRow);
  EXPECT_EQ(a.detChannelOffset, b.detChannelOffset);
  EXPECT_EQ(a.detRowOffset, b.detRowOffset);
  EXPECT_EQ(a.deltaVoxel, b.deltaVoxel);
  EXPECT_EQ(a.voxelRowAspect, b.voxelRowAspect);
  EXPECT_EQ(a.voxelSliceAspect, b.voxelSliceAspect);
  EXPECT_EQ(a.reconShape, b.reconShape);
  EXPECT_EQ(a.rorMask.kind(), b.rorMask.kind());
  EXPECT_EQ(a.rorMask.pixelIndices(a.reconShape), b.rorMask.pixelIndices(b.reconShape));
}

void
expectSameFields(const ParallelBeamGeometry & a, const ParallelBeamGeometry & b)
{
  EXPECT_EQ(a.angles, b.angles);
}

void
expectSameFields(const ConeBeamGeometry & a, const ConeBeamGeometry & b)
{
  EXPECT_EQ(a.angles, b.angles);
  EXPECT_EQ(a.sourceDetectorDist, b.sourceDetectorDist);
  EXPECT_EQ(a.sourceIsoDist, b.sourceIsoDist);
  EXPECT_EQ(a.helicalZShifts, b.helicalZShifts);
  EXPECT_EQ(a.curvedDetector, b.curvedDetector);
  EXPECT_EQ(a.reconSliceOffset, b.reconSliceOffset);
}

void
expectSameFields(const TranslationGeometry & a, const TranslationGeometry & b)
{
  EXPECT_EQ(a.translations, b.translations);
  EXPECT_EQ(a.sourceDetectorDist, b.sourceDetectorDist);
  EXPECT_EQ(a.sourceIsoDist, b.sourceIsoDist);
}

void
expectSameFields(const MultiAxisParallelGeometry & a, const MultiAxisParallelGeometry & b)
{
  EXPECT_EQ(a.angles, b.angles);
  EXPECT_EQ(a.elevations, b.elevations);
  EXPECT_EQ(a.reconSliceOffset, b.reconSliceOffset);
}

void
expectSameGeometry(const Geometry & a, const Geometry & b)
{
  ASSERT_EQ(geometryTypeName(a), std::string(geometryTypeName(b)));
  expectSameDetectorAndGrid(detectorAndGridOf(a), detectorAndGridOf(b));
  std::visit([&](const auto & ga) { expectSameFields(ga, std::get<std::decay_t<decltype(ga)>>(b)); }, a);
}

// ---- Hand-written files: an ordered list of (key, JSON value text)

using Fields = std::vector<std::pair<std::string, std::string>>;

std::string
jsonText(const Fields & fields)
{
  std::string text = "{";
  for (std::size_t i = 0; i < fields.size(); ++i)
  {
    text += (i > 0 ? ",\n  \"" : "\n  \"") + fields[i].first + "\": " + fields[i].second;
  }
  return text + "\n}\n";
}

// Replaces the field's value, or appends the field.
Fields
with(Fields fields, const std::string & key, const std::string & value)
{
  for (auto & field : fields)
  {
    if (field.first == key)
    {
      field.second = value;
      return fields;
    }
  }
  fields.emplace_back(key, value);
  return fields;
}

Fields
without(Fields fields, const std::string & key)
{
  for (auto it = fields.begin(); it != fields.end(); ++it)
  {
    if (it->first == key)
    {
      fields.erase(it);
      return fields;
    }
  }
  ADD_FAILURE() << "no field " << key << " to remove";
  return fields;
}

// The required fields only; the constructors below describe the same scans. Translation's default grid
// needs a detector of more than 16 rows and channels to keep its deep rows clear of the source.
Fields
minimalFile(const std::string & kind)
{
  Fields fields = { { "format", "\"mbir-geometry\"" },
                    { "version", "1" },
                    { "geometry", "\"" + kind + "\"" },
                    { "sinogram_shape", "[4, 40, 48]" } };
  if (kind != "translation")
  {
    fields.emplace_back("angles", "[0, 0.5, 1, 1.5]");
  }
  if (kind == "cone" || kind == "translation")
  {
    fields.emplace_back("source_detector_dist", "40");
    fields.emplace_back("source_iso_dist", "20");
  }
  if (kind == "translation")
  {
    fields.emplace_back("translation_vectors", "[[0, 0, 0], [1, 0.5, 0], [2, -0.5, 1], [3, 0, 1]]");
  }
  if (kind == "multi_axis_parallel")
  {
    fields.emplace_back("elevations", "[0.1, 0.2, -0.1, 0.3]");
  }
  return fields;
}

const SinogramShape      kMinimalShape{ 4, 40, 48 };
const std::vector<float> kMinimalAngles{ 0.0f, 0.5f, 1.0f, 1.5f };

void
expectRejected(const Fields & fields, const std::string & needle)
{
  expectInvalid([&] { (void)geometryFromJson(jsonText(fields)); }, needle);
}

} // namespace

TEST(GeometryJson, RoundTripIsExactForEveryGeometry)
{
  std::vector<bool> kindsSeen(std::variant_size_v<Geometry>, false);
  for (const auto & [name, geometry] : samples())
  {
    SCOPED_TRACE(name);
    kindsSeen[geometry.index()] = true;
    const std::string text = geometryToJson(geometry);
    const Geometry    read = geometryFromJson(text);
    expectSameGeometry(geometry, read);
    EXPECT_EQ(geometryToJson(read), text);
  }
  EXPECT_EQ(kindsSeen, std::vector<bool>(std::variant_size_v<Geometry>, true));
}

TEST(GeometryJson, WritesTheDocumentedLayout)
{
  ParallelBeamGeometry g(SinogramShape{ 2, 1, 3 }, { 0.0f, 1.5707964f });
  g.detChannelOffset = 0.1f; // the shortest text that reads back to the float, not 0.10000000149011612
  g.rorMask = RorMask::custom({ 0, 1, 0, 1, 1, 1, 0, 1, 0 }, 3, 3);
  EXPECT_EQ(geometryToJson(g),
            R"({
  "format": "mbir-geometry",
  "version": 1,
  "geometry": "parallel",
  "sinogram_shape": [2, 1, 3],
  "delta_det_channel": 1.0,
  "delta_det_row": 1.0,
  "det_channel_offset": 0.1,
  "det_row_offset": 0.0,
  "delta_voxel": 1.0,
  "voxel_row_aspect": 1.0,
  "voxel_slice_aspect": 1.0,
  "recon_shape": [3, 3, 1],
  "ror_mask": {
    "rows": 3,
    "cols": 3,
    "mask": [
      0, 1, 0,
      1, 1, 1,
      0, 1, 0
    ]
  },
  "angles": [0.0, 1.5707964]
})");
}

TEST(GeometryJson, WritesInfinityAndWrapsLongArrays)
{
  const std::string text = geometryToJson(infiniteConeSample());
  EXPECT_NE(text.find("\"source_detector_dist\": \"infinity\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"helical_z_shifts\": []"), std::string::npos) << text;
  // Eight views to a line: the 8 angles fit on one.
  EXPECT_NE(text.find("\"angles\": [0.0, 0.3926991, "), std::string::npos) << text;
  const std::string cone = geometryToJson(curvedHelicalConeSample());
  EXPECT_NE(cone.find("\"angles\": [\n    "), std::string::npos) << cone;
  const std::string translation = geometryToJson(translationSample());
  EXPECT_NE(translation.find("\"translation_vectors\": [\n    ["), std::string::npos) << translation;
}

TEST(GeometryJson, RefusesToWriteAnInvalidGeometry)
{
  ParallelBeamGeometry g(kMinimalShape, kMinimalAngles);
  g.angles.pop_back();
  expectInvalid([&] { (void)geometryToJson(g); }, "cannot write an invalid geometry");
}

TEST(GeometryJson, FileRoundTrip)
{
  const std::string path = ::testing::TempDir() + "mbir_geometry_json_test.json";
  for (const auto & [name, geometry] : samples())
  {
    SCOPED_TRACE(name);
    writeGeometryFile(geometry, path);
    expectSameGeometry(geometry, readGeometryFile(path));
  }
  std::remove(path.c_str());
}

TEST(GeometryJson, FileErrorsNameThePath)
{
  const std::string missing = ::testing::TempDir() + "mbir_no_such_dir/geometry.json";
  const auto        startsWithPath = [&](const std::exception & e, const std::string & path) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  };
  try
  {
    (void)readGeometryFile(missing);
    ADD_FAILURE() << "reading a missing file did not throw";
  }
  catch (const std::runtime_error & e)
  {
    startsWithPath(e, missing);
  }
  try
  {
    writeGeometryFile(parallelSample(), missing);
    ADD_FAILURE() << "writing into a missing directory did not throw";
  }
  catch (const std::runtime_error & e)
  {
    startsWithPath(e, missing);
  }

  const std::string bad = ::testing::TempDir() + "mbir_geometry_json_bad.json";
  std::ofstream(bad) << jsonText(without(minimalFile("cone"), "angles"));
  try
  {
    (void)readGeometryFile(bad);
    ADD_FAILURE() << "reading a bad file did not throw";
  }
  catch (const std::invalid_argument & e)
  {
    startsWithPath(e, bad);
    EXPECT_NE(std::string(e.what()).find("missing field \"angles\""), std::string::npos) << e.what();
  }
  std::remove(bad.c_str());
}

TEST(GeometryJson, MinimalFileGivesTheConstructorsGeometry)
{
  expectSameGeometry(geometryFromJson(jsonText(minimalFile("parallel"))),
                     ParallelBeamGeometry(kMinimalShape, kMinimalAngles));
  expectSameGeometry(geometryFromJson(jsonText(minimalFile("cone"))),
                     ConeBeamGeometry(kMinimalShape, kMinimalAngles, 40.0f, 20.0f));
  expectSameGeometry(
    geometryFromJson(jsonText(minimalFile("translation"))),
    TranslationGeometry(kMinimalShape, { { 0.0f, 0.0f, 0.0f }, { 1, 0.5f, 0 }, { 2, -0.5f, 1 }, { 3, 0, 1 } }, 40, 20));
  expectSameGeometry(geometryFromJson(jsonText(minimalFile("multi_axis_parallel"))),
                     MultiAxisParallelGeometry(kMinimalShape, kMinimalAngles, { 0.1f, 0.2f, -0.1f, 0.3f }));
}

TEST(GeometryJson, DefaultGridUsesTheFileDetectorAndAspects)
{
  // Without delta_voxel and recon_shape the grid comes from autoSetReconGeometry() on the file's values.
  const Fields     cone = with(with(minimalFile("cone"), "delta_det_channel", "0.5"), "voxel_slice_aspect", "2");
  ConeBeamGeometry expected(kMinimalShape, kMinimalAngles, 40.0f, 20.0f);
  expected.deltaDetChannel = 0.5f;
  expected.voxelSliceAspect = 2.0f;
  expected.autoSetReconGeometry();
  expectSameGeometry(geometryFromJson(jsonText(cone)), expected);

  // Cone beam's autoSetReconGeometry() centres the slices on the helix; a given offset wins.
  const Fields helical = with(minimalFile("cone"), "helical_z_shifts", "[0, 1, 2, 3]");
  const auto   offsetOf = [](const Fields & fields) {
    return std::get<ConeBeamGeometry>(geometryFromJson(jsonText(fields))).reconSliceOffset;
  };
  EXPECT_EQ(offsetOf(helical), 1.5f);
  EXPECT_EQ(offsetOf(with(helical, "recon_slice_offset", "0.25")), 0.25f);

  // Translation's autoSetReconGeometry() keeps a row aspect other than 1.
  const Fields translation = with(minimalFile("translation"), "voxel_row_aspect", "3");
  EXPECT_EQ(std::get<TranslationGeometry>(geometryFromJson(jsonText(translation))).voxelRowAspect, 3.0f);
  EXPECT_NE(std::get<TranslationGeometry>(geometryFromJson(jsonText(minimalFile("translation")))).voxelRowAspect, 1.0f);
}

TEST(GeometryJson, RejectsBadHeaders)
{
  const Fields cone = minimalFile("cone");
  expectRejected(with(cone, "version", "2"), "geometry JSON: unsupported version 2 (this build reads version 1)");
  expectRejected(with(cone, "version", "\"1\""), "field \"version\" must be an integer");
  expectRejected(without(cone, "format"), "geometry JSON: missing field \"format\"");
  expectRejected(with(cone, "format", "\"mbir-geometri\""), "field \"format\" must be \"mbir-geometry\"");
  expectRejected(without(cone, "version"), "missing field \"version\"");
  expectRejected(without(cone, "geometry"), "missing field \"geometry\"");
  expectRejected(with(cone, "geometry", "\"fan\""),
                 "unknown geometry \"fan\"; expected parallel, cone, translation or multi_axis_parallel");
  expectInvalid([] { (void)geometryFromJson("[1, 2]"); }, "the top level must be an object");
}

TEST(GeometryJson, RejectsMissingRequiredFields)
{
  expectRejected(without(minimalFile("cone"), "sinogram_shape"), "missing field \"sinogram_shape\"");
  expectRejected(without(minimalFile("cone"), "angles"), "missing field \"angles\"");
  expectRejected(without(minimalFile("cone"), "source_iso_dist"), "missing field \"source_iso_dist\"");
  expectRejected(without(minimalFile("cone"), "source_detector_dist"), "missing field \"source_detector_dist\"");
  expectRejected(without(minimalFile("translation"), "translation_vectors"), "missing field \"translation_vectors\"");
  expectRejected(without(minimalFile("multi_axis_parallel"), "elevations"), "missing field \"elevations\"");
}

TEST(GeometryJson, RejectsUnknownAndDuplicateFields)
{
  expectRejected(with(minimalFile("cone"), "delta_det_chanel", "1"),
                 "unknown field \"delta_det_chanel\" for a cone geometry");
  // A field of another geometry is unknown too.
  expectRejected(with(minimalFile("parallel"), "helical_z_shifts", "[0, 0, 0, 0]"),
                 "unknown field \"helical_z_shifts\" for a parallel geometry");
  Fields twice = minimalFile("parallel");
  twice.emplace_back("angles", "[0, 1, 2, 3]");
  expectRejected(twice, "duplicate field \"angles\"");
  expectRejected(with(minimalFile("parallel"), "ror_mask", R"({"rows": 1, "cols": 1, "mask": [1], "colls": 1})"),
                 "unknown field \"colls\" in ror_mask");
}

TEST(GeometryJson, RejectsWrongTypes)
{
  const Fields cone = minimalFile("cone");
  expectRejected(with(cone, "delta_det_row", "\"1.0\""), "field \"delta_det_row\" must be a number, got \"1.0\"");
  expectRejected(with(cone, "angles", "[0, 0.5, \"1\", 1.5]"), "field \"angles\" entry 2 must be a number");
  expectRejected(with(cone, "angles", "0.5"), "field \"angles\" must be an array of numbers");
  expectRejected(with(cone, "curved_detector", "1"), "field \"curved_detector\" must be true or false");
  expectRejected(with(cone, "source_detector_dist", "\"infinite\""),
                 "field \"source_detector_dist\" must be a number or \"infinity\"");
  expectRejected(with(minimalFile("translation"), "source_detector_dist", "\"infinity\""),
                 "field \"source_detector_dist\" must be a number");
  // Shapes hold integers, not numbers that happen to be whole.
  expectRejected(with(cone, "sinogram_shape", "[4.5, 40, 48]"), "field \"sinogram_shape\" entry 0 must be an integer");
  expectRejected(with(cone, "sinogram_shape", "[4.0, 40, 48]"), "field \"sinogram_shape\" entry 0 must be an integer");
  expectRejected(with(cone, "sinogram_shape", "[4, 40]"), "field \"sinogram_shape\" must be an array of 3");
  expectRejected(with(cone, "sinogram_shape", "[4, 0, 48]"), "field \"sinogram_shape\" entry 1 must be > 0");
  expectRejected(with(cone, "sinogram_shape", "[4, 40, 3000000000]"),
                 "field \"sinogram_shape\" entry 2 is out of range");
}

TEST(GeometryJson, RejectsBadDistances)
{
  expectRejected(with(minimalFile("cone"), "source_iso_dist", "-20"), "field \"source_iso_dist\" must be > 0");
  expectRejected(with(minimalFile("cone"), "source_detector_dist", "0"), "field \"source_detector_dist\" must be > 0");
  expectRejected(with(minimalFile("translation"), "source_iso_dist", "0"), "field \"source_iso_dist\" must be > 0");
  expectRejected(with(minimalFile("cone"), "delta_det_channel", "-1"), "field \"delta_det_channel\" must be > 0");
  // The grid's corners reach sqrt(2) * 20 from the axis, beyond the source at 20.
  const Fields inside = with(with(minimalFile("cone"), "delta_voxel", "1"), "recon_shape", "[40, 40, 3]");
  expectRejected(inside, "the source lies inside the recon grid");
}

TEST(GeometryJson, RejectsViewArraysOfTheWrongLength)
{
  expectRejected(with(minimalFile("cone"), "angles", "[0, 1, 2]"),
                 "field \"angles\" has 3 entries but sinogram_shape has 4 views");
  expectRejected(with(minimalFile("cone"), "helical_z_shifts", "[0, 1, 2, 3, 4]"),
                 "field \"helical_z_shifts\" has 5 entries but sinogram_shape has 4 views");
  expectRejected(with(minimalFile("translation"), "translation_vectors", "[[0, 0, 0]]"),
                 "field \"translation_vectors\" has 1 entries but sinogram_shape has 4 views");
  expectRejected(with(minimalFile("multi_axis_parallel"), "elevations", "[0, 0, 0, 0, 0]"),
                 "field \"elevations\" has 5 entries but sinogram_shape has 4 views");
  expectRejected(with(minimalFile("translation"), "translation_vectors", "[[0, 0, 0], [1, 0], [2, 0, 0], [3, 0, 0]]"),
                 "field \"translation_vectors\" entry 1 must have 3 components [tx, ty, tz], got 2");
  expectRejected(
    with(minimalFile("translation"), "translation_vectors", "[[0, 0, 0], [1, 0, 0], [2, 0, null], [3, 0, 0]]"),
    "field \"translation_vectors\" entry 2 component 2 must be a number, got null");
}

TEST(GeometryJson, RejectsNonFiniteNumbers)
{
  // JSON has no NaN or infinity, but 1e999 (or 1e39, beyond float) would read as infinity.
  expectRejected(with(minimalFile("cone"), "delta_det_channel", "1e999"),
                 "number overflow parsing '1e999' in field \"delta_det_channel\"; numbers must be finite");
  expectRejected(with(minimalFile("cone"), "angles", "[0, 1e39, 1, 1.5]"),
                 "in field \"angles\"; numbers must be finite");
  expectRejected(with(minimalFile("cone"), "source_detector_dist", "1e999"), "numbers must be finite");
}

TEST(GeometryJson, RejectsHalfAGrid)
{
  expectRejected(with(minimalFile("parallel"), "delta_voxel", "1"),
                 "give both delta_voxel and recon_shape, or neither for the default grid (recon_shape is missing)");
  expectRejected(with(minimalFile("parallel"), "recon_shape", "[48, 48, 40]"),
                 "give both delta_voxel and recon_shape, or neither for the default grid (delta_voxel is missing)");
}

TEST(GeometryJson, RejectsBadMasks)
{
  const Fields parallel = minimalFile("parallel"); // default grid (48, 48, 40)
  expectRejected(with(parallel, "ror_mask", R"({"rows": 2, "cols": 2, "mask": [0, 1, 1]})"),
                 "field \"ror_mask.mask\" must be an array of rows x cols = 2 x 2 = 4 entries, got an array of 3");
  expectRejected(with(parallel, "ror_mask", R"({"rows": 2, "cols": 2, "mask": [0, 1, 1, 2]})"),
                 "field \"ror_mask.mask\" entry 3 must be 0 or 1, got 2");
  expectRejected(with(parallel, "ror_mask", R"({"rows": 2, "mask": [0, 1, 1, 0]})"), "missing field \"ror_mask.cols\"");
  expectRejected(with(parallel, "ror_mask", "\"circle\""), "field \"ror_mask\" must be \"ellipse\", \"none\" or");
  // A well-formed mask must still match the grid.
  expectRejected(with(parallel, "ror_mask", R"({"rows": 2, "cols": 2, "mask": [0, 1, 1, 0]})"),
                 "make the mask match recon_shape");
}

TEST(GeometryJson, RejectsInvalidJson)
{
  expectInvalid([] { (void)geometryFromJson("{\"format\": "); }, "geometry JSON: not valid JSON: ");
  expectInvalid([] { (void)geometryFromJson(""); }, "not valid JSON");
  expectRejected(with(minimalFile("cone"), "angles", "[0, 0.5, 1, 1.5,]"), "not valid JSON");
}

TEST(GeometryJson, ValidatesTheWholeGeometry)
{
  // Each field is well-formed; the geometry's validate() names what does not fit together.
  expectRejected(with(minimalFile("parallel"), "voxel_slice_aspect", "2"), "voxel_slice_aspect must be 1");
  expectRejected(with(with(minimalFile("cone"), "source_detector_dist", "\"infinity\""), "curved_detector", "true"),
                 "a curved detector needs a finite source_detector_dist");
  expectRejected(with(minimalFile("multi_axis_parallel"), "elevations", "[0, 0, 1.5708, 0]"), "elevations entry 2");
}
