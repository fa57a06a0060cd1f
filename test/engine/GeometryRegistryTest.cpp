// The geometry registry (mbir/GeometryRegistry.h) against the Geometry variant and the JSON files: its
// order is the variant's, every key the writer emits is a registered parameter, and every parameter
// reaches the struct and comes back when read and written, with the required flags and defaults it states.

#include "MBIRTestSupport.h"
#include "mbir/GeometryDescription.h"
#include "mbir/GeometryJson.h"
#include "mbir/GeometryRegistry.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

using namespace mbir;

namespace {

using Json = nlohmann::ordered_json;

const std::vector<std::string> kHeader = { "format", "version", "geometry" };

// A small valid geometry of each type, with a given grid so that changing one parameter leaves the others.
std::vector<Geometry>
samples()
{
  const SinogramShape  shape{ 6, 4, 10 };
  std::vector<float>   angles = test::evenAngles(6, M_PI);
  ParallelBeamGeometry parallel(shape, angles);
  ConeBeamGeometry     cone(shape, test::evenAngles(6, 2 * M_PI), 80.0f, 40.0f);
  cone.helicalZShifts = test::uniformRandom(6, 1, -0.5f, 0.5f);
  TranslationGeometry translation(
    shape, { { -2, 0, 1 }, { -1, 0, 1 }, { 0, 0, 1 }, { 1, 0, 0 }, { 2, 0, 0 }, { 3, 1, 0 } }, 80.0f, 40.0f);
  MultiAxisParallelGeometry multiAxis(shape, angles, test::uniformRandom(6, 2, -0.5f, 0.5f));
  return { parallel, cone, translation, multiAxis };
}

std::vector<std::string>
namesOf(const GeometryType & type)
{
  std::vector<std::string> names;
  for (const GeometryParameter & parameter : type.parameters)
  {
    names.push_back(parameter.name);
  }
  return names;
}

Json
writtenJson(const Geometry & geometry)
{
  return Json::parse(geometryToJson(geometry));
}

// Reads `doc` back and returns the writer's JSON of the result.
Json
reread(const Json & doc)
{
  return writtenJson(geometryFromJson(doc.dump()));
}

// Values of `value`'s kind that differ from it, to try one after the other (a geometry may refuse some).
std::vector<Json>
changedValues(const GeometryParameter & parameter, const Json & value)
{
  std::vector<Json> candidates;
  const auto        shifted = [](Json array, double by) {
    for (Json & entry : array)
    {
      if (entry.is_array())
      {
        for (Json & component : entry)
          component = component.get<double>() + by;
      }
      else
      {
        entry = entry.get<double>() + by;
      }
    }
    return array;
  };
  switch (parameter.kind)
  {
    case ParameterKind::Integer3:
      for (std::size_t i : { 2, 1, 0 })
      {
        Json changed = value;
        changed[i] = value[i].get<int>() + 2;
        candidates.push_back(changed);
      }
      break;
    case ParameterKind::Number:
      if (value.is_string())
      {
        candidates.push_back(70.0);
      }
      else
      {
        candidates.push_back(value.get<double>() * 1.25 + 0.25);
        candidates.push_back(value.get<double>() * 0.8);
      }
      if (parameter.infinityAllowed && !value.is_string())
      {
        candidates.push_back("infinity");
      }
      break;
    case ParameterKind::Boolean:
      candidates.push_back(!value.get<bool>());
      break;
    case ParameterKind::NumberPerView:
    case ParameterKind::Vector3PerView:
      candidates.push_back(shifted(value, 0.125));
      if (parameter.emptyAllowed)
      {
        candidates.push_back(Json::array());
      }
      break;
    case ParameterKind::RorMask:
      candidates.push_back(value == "ellipse" ? "none" : "ellipse");
      break;
  }
  return candidates;
}

bool
sameValue(const Json & a, const Json & b)
{
  if (a.is_number() && b.is_number())
  {
    return static_cast<float>(a.get<double>()) == static_cast<float>(b.get<double>());
  }
  if (a.is_array() && b.is_array() && a.size() == b.size())
  {
    for (std::size_t i = 0; i < a.size(); ++i)
    {
      if (!sameValue(a[i], b[i]))
        return false;
    }
    return true;
  }
  return a == b;
}

template<std::size_t... I>
std::vector<std::string>
descriptionClassNames(std::index_sequence<I...>)
{
  return { std::variant_alternative_t<I, Geometry>::description().className... };
}

} // namespace

TEST(GeometryRegistry, FollowsTheVariantOrder)
{
  const std::vector<GeometryType> & types = geometryTypes();
  ASSERT_EQ(types.size(), std::variant_size_v<Geometry>);
  std::vector<std::string> names, classNames;
  for (const GeometryType & type : types)
  {
    names.push_back(type.name);
    classNames.push_back(type.className);
    EXPECT_FALSE(type.doc.empty()) << type.name;
    EXPECT_EQ(findGeometryType(type.name), &type);
  }
  EXPECT_EQ(names, (std::vector<std::string>{ "parallel", "cone", "translation", "multi_axis_parallel" }));
  EXPECT_EQ(classNames,
            (std::vector<std::string>{
              "ParallelBeamGeometry", "ConeBeamGeometry", "TranslationGeometry", "MultiAxisParallelGeometry" }));
  EXPECT_EQ(classNames, descriptionClassNames(std::make_index_sequence<std::variant_size_v<Geometry>>()));
  EXPECT_EQ(findGeometryType("fan"), nullptr);
  const std::vector<Geometry> geometries = samples();
  for (std::size_t i = 0; i < geometries.size(); ++i)
  {
    EXPECT_EQ(geometries[i].index(), i);
    EXPECT_EQ(&geometryTypeOf(geometries[i]), &types[i]);
    EXPECT_EQ(geometryTypeName(geometries[i]), types[i].name);
  }
}

TEST(GeometryRegistry, SharedParametersComeFirstAndAgree)
{
  const std::vector<GeometryType> & types = geometryTypes();
  std::vector<std::string>          shared;
  for (const GeometryParameter & parameter : types[0].parameters)
  {
    if (parameter.shared)
      shared.push_back(parameter.name);
  }
  EXPECT_EQ(shared.size(), 10u);
  for (const GeometryType & type : types)
  {
    SCOPED_TRACE(type.name);
    const std::vector<std::string> names = namesOf(type);
    ASSERT_GT(names.size(), shared.size());
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + shared.size()), shared);
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "a duplicate name";
    for (std::size_t p = 0; p < type.parameters.size(); ++p)
    {
      const GeometryParameter & parameter = type.parameters[p];
      EXPECT_EQ(parameter.shared, p < shared.size()) << parameter.name;
      EXPECT_FALSE(parameter.doc.empty()) << parameter.name;
      EXPECT_EQ(parameter.required, parameter.defaultText.empty()) << parameter.name;
      EXPECT_TRUE(parameter.unit == "" || parameter.unit == "ALU" || parameter.unit == "rad") << parameter.name;
      EXPECT_EQ(type.find(parameter.name), &parameter);
    }
  }
}

// The writer emits the header, then exactly the registered parameters, in their order.
TEST(GeometryRegistry, WriterEmitsExactlyTheRegisteredKeys)
{
  for (const Geometry & geometry : samples())
  {
    const GeometryType & type = geometryTypeOf(geometry);
    SCOPED_TRACE(type.name);
    const Json               written = writtenJson(geometry);
    std::vector<std::string> keys;
    for (const auto & item : written.items())
    {
      keys.push_back(item.key());
    }
    std::vector<std::string> expected = kHeader;
    for (const std::string & name : namesOf(type))
    {
      expected.push_back(name);
    }
    EXPECT_EQ(keys, expected);
    EXPECT_EQ(written["geometry"], type.name);
  }
}

// Each parameter, changed in the file, reaches the geometry and is written back as given.
TEST(GeometryRegistry, EveryParameterRoundTripsThroughJson)
{
  // Parallel beam ties these to the detector (the slice pitch is the row pitch), so they keep one value.
  const std::set<std::pair<std::string, std::string>> fixed = { { "parallel", "voxel_slice_aspect" },
                                                                { "parallel", "det_row_offset" } };
  for (const Geometry & geometry : samples())
  {
    const GeometryType & type = geometryTypeOf(geometry);
    const Json           written = writtenJson(geometry);
    for (const GeometryParameter & parameter : type.parameters)
    {
      SCOPED_TRACE(type.name + " " + parameter.name);
      ASSERT_TRUE(written.contains(parameter.name));
      bool changed = false;
      for (const Json & value : changedValues(parameter, written[parameter.name]))
      {
        Json doc = written;
        doc[parameter.name] = value;
        if (parameter.name == "recon_shape" && written["ror_mask"].is_object())
        {
          doc["ror_mask"] = "none";
        }
        Json back;
        try
        {
          back = reread(doc);
        }
        catch (const std::invalid_argument &)
        {
          continue; // this value does not validate for this geometry; try the next
        }
        EXPECT_TRUE(sameValue(back[parameter.name], value)) << back[parameter.name] << " vs " << value;
        changed = true;
        break;
      }
      EXPECT_TRUE(changed || fixed.count({ type.name, parameter.name }) > 0) << "no changed value was accepted";
    }
  }
}

// Required parameters must be given; optional ones may be left out, and then take their stated default.
TEST(GeometryRegistry, RequiredFlagsAndDefaultsMatchTheReader)
{
  for (const Geometry & geometry : samples())
  {
    const GeometryType & type = geometryTypeOf(geometry);
    const Json           written = writtenJson(geometry);
    for (const GeometryParameter & parameter : type.parameters)
    {
      SCOPED_TRACE(type.name + " " + parameter.name);
      Json doc = written;
      doc.erase(parameter.name);
      if (parameter.grid)
      {
        // Half a grid is an error of its own; both left out give the default grid.
        test::expectInvalid([&] { geometryFromJson(doc.dump()); }, "give both delta_voxel and recon_shape");
        for (const GeometryParameter & other : type.parameters)
        {
          if (other.grid)
            doc.erase(other.name);
        }
      }
      if (parameter.required)
      {
        test::expectInvalid([&] { geometryFromJson(doc.dump()); }, "missing field \"" + parameter.name + "\"");
        continue;
      }
      const Json back = reread(doc);
      const Json value = back[parameter.name];
      switch (parameter.kind)
      {
        case ParameterKind::Number:
          if (parameter.defaultText.rfind("auto", 0) != 0)
            EXPECT_EQ(value.get<double>(), std::stod(parameter.defaultText));
          break;
        case ParameterKind::Boolean:
          EXPECT_EQ(value.dump(), parameter.defaultText);
          break;
        case ParameterKind::RorMask:
          EXPECT_EQ(value, parameter.defaultText);
          break;
        case ParameterKind::NumberPerView:
        case ParameterKind::Vector3PerView:
          EXPECT_TRUE(parameter.emptyAllowed);
          EXPECT_EQ(value, Json::array());
          EXPECT_EQ(parameter.defaultText.rfind("[]", 0), 0u);
          break;
        case ParameterKind::Integer3:
          EXPECT_EQ(parameter.defaultText, "auto (default grid)");
          break;
      }
    }
  }
}

// withParameters sets parameters by their registry names, as the tools' --set does.
TEST(GeometryRegistry, WithParametersSetsByName)
{
  const Geometry cone = samples()[1];
  const Geometry changed =
    withParameters(cone, { { "curved_detector", "true" }, { "source_iso_dist", "45.5" }, { "ror_mask", "\"none\"" } });
  const auto & g = std::get<ConeBeamGeometry>(changed);
  EXPECT_TRUE(g.curvedDetector);
  EXPECT_EQ(g.sourceIsoDist, 45.5f);
  EXPECT_EQ(g.rorMask.kind(), RorMask::Kind::None);
  EXPECT_EQ(g.reconShape, std::get<ConeBeamGeometry>(cone).reconShape); // the grid is kept
  test::expectInvalid(
    [&] {
      withParameters(cone, { { "elevations", "[0]" } });
    },
    "unknown field \"elevations\" for a cone geometry");
  test::expectInvalid(
    [&] {
      withParameters(cone, { { "curved_detector", "1" } });
    },
    "field \"curved_detector\" must be true or false");
  test::expectInvalid([&] { withParameters(cone, { { "angles", "[1, " } }); }, "not valid JSON");
}
