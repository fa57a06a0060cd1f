#include "mbir/GeometryJson.h"

#include "mbir/GeometryDescription.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace mbir {
namespace {

// Numbers are float32 like the geometry fields, so the writer prints the shortest text that reads back to
// the same float and the reader rounds the decimal text once; keys keep the order they are written in.
using Json =
  nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

constexpr const char * kFormat = "mbir-geometry";
constexpr int          kVersion = 1;
// Longer arrays of numbers are wrapped, this many to a line.
constexpr std::size_t kNumbersPerLine = 8;

[[noreturn]] void
fail(const std::string & message)
{
  throw std::invalid_argument("geometry JSON: " + message);
}

// A value as messages quote it: scalars as written (long strings cut), arrays and objects by their type.
std::string
describe(const Json & value)
{
  if (!value.is_primitive())
  {
    return std::string("an ") + value.type_name();
  }
  const std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

// Where a value sits in the file, for messages; built only when a message needs it, since masks are large.
struct Where
{
  std::string    field;
  std::ptrdiff_t entry = -1;
  std::ptrdiff_t component = -1;

  Where
  at(std::ptrdiff_t index) const
  {
    Where where = *this;
    (entry < 0 ? where.entry : where.component) = index;
    return where;
  }

  std::string
  str() const
  {
    std::string text = "field \"" + field + "\"";
    if (entry >= 0)
    {
      text += " entry " + std::to_string(entry);
    }
    if (component >= 0)
    {
      text += " component " + std::to_string(component);
    }
    return text;
  }
};

// ---- Reading

// Whether some geometry lets the parameter `name` be infinite (known before the geometry type is).
bool
infinityAllowedSomewhere(const std::string & name)
{
  for (const GeometryType & type : geometryTypes())
  {
    const GeometryParameter * parameter = type.find(name);
    if (parameter && parameter->infinityAllowed)
    {
      return true;
    }
  }
  return false;
}

// Also rejects duplicate keys: nlohmann would keep the last one silently, and a repeated key is as likely
// a mistake as a typo.
Json
parse(const std::string & text)
{
  std::vector<std::set<std::string>> openObjects; // the keys seen in each open object, innermost last
  std::string                        lastKey;
  const Json::parser_callback_t      checkKeys = [&](int, Json::parse_event_t event, Json & parsed) {
    if (event == Json::parse_event_t::object_start)
    {
      openObjects.emplace_back();
    }
    else if (event == Json::parse_event_t::object_end)
    {
      openObjects.pop_back();
    }
    else if (event == Json::parse_event_t::key)
    {
      lastKey = parsed.get<std::string>();
      if (!openObjects.back().insert(lastKey).second)
      {
        fail("duplicate field \"" + lastKey + "\"");
      }
    }
    return true;
  };
  // nlohmann's messages start with "[json.exception.<kind>.<id>] ", which says nothing to a user.
  const auto message = [](const Json::exception & e) {
    const std::string what = e.what();
    const std::size_t end = what.find("] ");
    return end == std::string::npos ? what : what.substr(end + 2);
  };
  try
  {
    return Json::parse(text, checkKeys);
  }
  catch (const Json::out_of_range & e)
  {
    // A number beyond the float range (1e999, 1e39): the parser rejects it instead of storing infinity.
    fail(message(e) + (lastKey.empty() ? "" : " in field \"" + lastKey + "\"") + "; numbers must be finite" +
         (infinityAllowedSomewhere(lastKey) ? " (write \"infinity\" for parallel rays)" : ""));
  }
  catch (const Json::exception & e)
  {
    fail("not valid JSON: " + message(e));
  }
}

const Json *
find(const Json & object, const char * field)
{
  const auto it = object.find(field);
  return it == object.end() ? nullptr : &*it;
}

const Json &
require(const Json & object, const char * field, const char * prefix = "")
{
  if (const Json * value = find(object, field))
  {
    return *value;
  }
  fail("missing field \"" + std::string(prefix) + field + "\"");
}

void
rejectUnknownFields(const Json & object, const std::vector<std::string> & known, const std::string & context)
{
  for (const auto & item : object.items())
  {
    if (std::find(known.begin(), known.end(), item.key()) == known.end())
    {
      fail("unknown field \"" + item.key() + "\" " + context);
    }
  }
}

float
toFloat(const Json & value, const Where & where)
{
  if (!value.is_number())
  {
    fail(where.str() + " must be a number, got " + describe(value));
  }
  const float number = value.get<float>();
  // The parser already refuses overflow; checked here too so that no path lets a non-finite value in.
  if (!std::isfinite(number))
  {
    fail(where.str() + " must be finite");
  }
  return number;
}

float
toPositive(const Json & value, const Where & where)
{
  const float number = toFloat(value, where);
  // Checked before autoSetReconGeometry(), which divides by these.
  if (!(number > 0.0f))
  {
    fail(where.str() + " must be > 0, got " + describe(value));
  }
  return number;
}

int
toInt(const Json & value, const Where & where)
{
  if (!value.is_number_integer())
  {
    fail(where.str() + " must be an integer, got " + describe(value));
  }
  const bool outOfRange = value.is_number_unsigned()
                            ? value.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<int>::max())
                            : value.get<std::int64_t>() < std::numeric_limits<int>::min() ||
                                value.get<std::int64_t>() > std::numeric_limits<int>::max();
  if (outOfRange)
  {
    fail(where.str() + " is out of range, got " + describe(value));
  }
  return static_cast<int>(value.get<std::int64_t>());
}

std::array<int, 3>
toShape(const Json & value, const Where & where)
{
  if (!value.is_array() || value.size() != 3)
  {
    fail(where.str() + " must be an array of 3 positive integers, got " + describe(value) +
         (value.is_array() ? " of " + std::to_string(value.size()) : ""));
  }
  std::array<int, 3> shape{};
  for (std::size_t i = 0; i < 3; ++i)
  {
    shape[i] = toInt(value[i], where.at(i));
    if (shape[i] <= 0)
    {
      fail(where.at(i).str() + " must be > 0, got " + std::to_string(shape[i]));
    }
  }
  return shape;
}

std::vector<float>
toFloats(const Json & value, const Where & where)
{
  if (!value.is_array())
  {
    fail(where.str() + " must be an array of numbers, got " + describe(value));
  }
  std::vector<float> numbers;
  numbers.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i)
  {
    numbers.push_back(toFloat(value[i], where.at(i)));
  }
  return numbers;
}

void
requireOnePerView(std::size_t entries, int views, const char * field)
{
  if (entries != static_cast<std::size_t>(views))
  {
    fail("field \"" + std::string(field) + "\" has " + std::to_string(entries) + " entries but sinogram_shape has " +
         std::to_string(views) + " views");
  }
}

RorMask
toRorMask(const Json & value)
{
  if (value.is_string() && value == "ellipse")
  {
    return RorMask::ellipse();
  }
  if (value.is_string() && value == "none")
  {
    return RorMask::none();
  }
  if (!value.is_object())
  {
    fail("field \"ror_mask\" must be \"ellipse\", \"none\" or {\"rows\": r, \"cols\": c, \"mask\": [...]}, got " +
         describe(value));
  }
  rejectUnknownFields(value, { "rows", "cols", "mask" }, "in ror_mask");
  const int    rows = toInt(require(value, "rows", "ror_mask."), Where{ "ror_mask.rows" });
  const int    cols = toInt(require(value, "cols", "ror_mask."), Where{ "ror_mask.cols" });
  const Json & mask = require(value, "mask", "ror_mask.");
  if (rows <= 0 || cols <= 0)
  {
    fail("field \"ror_mask\" must have rows and cols > 0, got " + std::to_string(rows) + " x " + std::to_string(cols));
  }
  const std::size_t size = static_cast<std::size_t>(rows) * cols;
  if (!mask.is_array() || mask.size() != size)
  {
    fail("field \"ror_mask.mask\" must be an array of rows x cols = " + std::to_string(rows) + " x " +
         std::to_string(cols) + " = " + std::to_string(size) + " entries, got " + describe(mask) +
         (mask.is_array() ? " of " + std::to_string(mask.size()) : ""));
  }
  std::vector<std::uint8_t> pixels(size);
  for (std::size_t p = 0; p < size; ++p)
  {
    const Json & entry = mask[p];
    if (!(entry.is_number_integer() && (entry == 0 || entry == 1)))
    {
      fail(Where{ "ror_mask.mask" }.at(p).str() + " must be 0 or 1, got " + describe(entry));
    }
    pixels[p] = entry == 1 ? 1 : 0;
  }
  return RorMask::custom(std::move(pixels), rows, cols);
}

// A per-view array, one entry per view (or empty where the parameter allows it).
std::vector<float>
readPerView(const Json & value, const GeometryParameter & p, int views)
{
  std::vector<float> values = toFloats(value, Where{ p.name });
  if (!(p.emptyAllowed && values.empty()))
  {
    requireOnePerView(values.size(), views, p.name.c_str());
  }
  return values;
}

std::vector<std::array<float, 3>>
readVectorsPerView(const Json & value, const GeometryParameter & p, int views)
{
  const Where where{ p.name };
  if (!value.is_array())
  {
    fail(where.str() + " must be an array of [tx, ty, tz], got " + describe(value));
  }
  if (!(p.emptyAllowed && value.empty()))
  {
    requireOnePerView(value.size(), views, p.name.c_str());
  }
  std::vector<std::array<float, 3>> vectors(value.size());
  for (std::size_t v = 0; v < value.size(); ++v)
  {
    const std::vector<float> t = toFloats(value[v], where.at(v));
    if (t.size() != 3)
    {
      fail(where.at(v).str() + " must have 3 components [tx, ty, tz], got " + std::to_string(t.size()));
    }
    vectors[v] = { t[0], t[1], t[2] };
  }
  return vectors;
}

// A number, or the string "infinity" where the parameter allows it (JSON has no infinite number).
float
readNumber(const Json & value, const GeometryParameter & p)
{
  if (p.infinityAllowed && value.is_string())
  {
    if (value != "infinity")
    {
      fail("field \"" + p.name + "\" must be a number or \"infinity\", got " + describe(value));
    }
    return std::numeric_limits<float>::infinity();
  }
  return p.positive ? toPositive(value, Where{ p.name }) : toFloat(value, Where{ p.name });
}

// Sets the field of `g` from `value`, checked as its parameter says.
template<typename G>
void
readField(const Json & value, const GeometryField<G> & field, G & g)
{
  const GeometryParameter & p = field.parameter;
  std::visit(
    [&](auto member) {
      using T = std::decay_t<decltype(g.*member)>;
      if constexpr (std::is_same_v<T, SinogramShape>)
      {
        const std::array<int, 3> shape = toShape(value, Where{ p.name });
        g.*member = SinogramShape{ shape[0], shape[1], shape[2] };
      }
      else if constexpr (std::is_same_v<T, ReconShape>)
      {
        const std::array<int, 3> shape = toShape(value, Where{ p.name });
        g.*member = ReconShape{ shape[0], shape[1], shape[2] };
      }
      else if constexpr (std::is_same_v<T, float>)
      {
        g.*member = readNumber(value, p);
      }
      else if constexpr (std::is_same_v<T, bool>)
      {
        if (!value.is_boolean())
        {
          fail("field \"" + p.name + "\" must be true or false, got " + describe(value));
        }
        g.*member = value.template get<bool>();
      }
      else if constexpr (std::is_same_v<T, std::vector<float>>)
      {
        g.*member = readPerView(value, p, g.sinogramShape.views);
      }
      else if constexpr (std::is_same_v<T, std::vector<std::array<float, 3>>>)
      {
        g.*member = readVectorsPerView(value, p, g.sinogramShape.views);
      }
      else
      {
        static_assert(std::is_same_v<T, RorMask>);
        g.*member = toRorMask(value);
      }
    },
    field.member);
}

// Leaves the field at G's default when the file does not give it.
template<typename G>
void
readFieldIfGiven(const Json & doc, const GeometryField<G> & field, G & g)
{
  const std::string & name = field.parameter.name;
  if (const Json * value = field.parameter.required ? &require(doc, name.c_str()) : find(doc, name.c_str()))
  {
    readField(*value, field, g);
  }
}

bool
isPerView(ParameterKind kind)
{
  return kind == ParameterKind::NumberPerView || kind == ParameterKind::Vector3PerView;
}

// Fills a default-constructed geometry from its description, so that absent fields keep the struct's
// defaults. Order: the shared fields, then the grid (both or neither), then the geometry's own fields,
// required before optional and per-view arrays before scalars (so that the first error reported is the
// most basic one), then the default grid when none is given, then the fields placed after it.
template<typename G>
void
readGeometry(const Json & doc, G & g)
{
  const GeometryDescription<G> & description = G::description();
  std::vector<std::string>       known = { "format", "version", "geometry" };
  for (const GeometryField<G> & field : description.fields)
  {
    known.push_back(field.parameter.name);
  }
  rejectUnknownFields(doc, known, "for a " + description.name + " geometry");

  std::vector<const GeometryField<G> *> shared, grid, own, afterGrid;
  for (const GeometryField<G> & field : description.fields)
  {
    const GeometryParameter & p = field.parameter;
    (p.grid ? grid : p.afterGrid ? afterGrid : p.shared ? shared : own).push_back(&field);
  }
  const auto rank = [](const GeometryField<G> * field) {
    return (field->parameter.required ? 0 : 2) + (isPerView(field->parameter.kind) ? 0 : 1);
  };
  std::stable_sort(own.begin(), own.end(), [&](const auto * a, const auto * b) { return rank(a) < rank(b); });

  for (const GeometryField<G> * field : shared)
  {
    readFieldIfGiven(doc, *field, g);
  }
  std::vector<std::string> missing;
  for (const GeometryField<G> * field : grid)
  {
    if (!find(doc, field->parameter.name.c_str()))
    {
      missing.push_back(field->parameter.name);
    }
  }
  const bool gridGiven = missing.empty();
  if (!gridGiven && missing.size() < grid.size())
  {
    std::string names;
    for (const GeometryField<G> * field : grid)
    {
      names += (names.empty() ? "" : field == grid.back() ? " and " : ", ") + field->parameter.name;
    }
    fail("give both " + names + ", or neither for the default grid (" + missing.front() + " is missing)");
  }
  for (const GeometryField<G> * field : gridGiven ? grid : std::vector<const GeometryField<G> *>{})
  {
    readFieldIfGiven(doc, *field, g);
  }
  for (const GeometryField<G> * field : own)
  {
    readFieldIfGiven(doc, *field, g);
  }
  if (!gridGiven)
  {
    g.autoSetReconGeometry();
  }
  for (const GeometryField<G> * field : afterGrid)
  {
    readFieldIfGiven(doc, *field, g);
  }
  try
  {
    g.validate();
  }
  catch (const std::invalid_argument & e)
  {
    fail(e.what());
  }
}

// A geometry of the type that the registry lists at `index`, read from `doc`.
template<std::size_t I = 0>
Geometry
readGeometryOfType(std::size_t index, const Json & doc)
{
  if constexpr (I + 1 < std::variant_size_v<Geometry>)
  {
    if (index != I)
    {
      return readGeometryOfType<I + 1>(index, doc);
    }
  }
  Geometry geometry{ std::in_place_index<I> };
  readGeometry(doc, std::get<I>(geometry));
  return geometry;
}

// ---- Writing

Json
rorMaskToJson(const RorMask & mask, const ReconShape & shape)
{
  switch (mask.kind())
  {
    case RorMask::Kind::Ellipse:
      return "ellipse";
    case RorMask::Kind::None:
      return "none";
    case RorMask::Kind::Custom:
      break;
  }
  // RorMask keeps its array private; the pixel list of a mask that fits the grid gives it back.
  std::vector<int> pixels(shape.numPixels(), 0);
  for (const int p : mask.pixelIndices(shape))
  {
    pixels[p] = 1;
  }
  Json custom;
  custom["rows"] = shape.rows;
  custom["cols"] = shape.cols;
  custom["mask"] = pixels;
  return custom;
}

// Every field in the order of the description: the shared ones, then scalars before the long per-view
// arrays.
template<typename G>
void
writeFields(Json & doc, const G & g)
{
  for (const GeometryField<G> & field : G::description().fields)
  {
    const GeometryParameter & p = field.parameter;
    std::visit(
      [&](auto member) {
        using T = std::decay_t<decltype(g.*member)>;
        const T & value = g.*member;
        if constexpr (std::is_same_v<T, SinogramShape>)
        {
          doc[p.name] = { value.views, value.rows, value.channels };
        }
        else if constexpr (std::is_same_v<T, ReconShape>)
        {
          doc[p.name] = { value.rows, value.cols, value.slices };
        }
        else if constexpr (std::is_same_v<T, float>)
        {
          doc[p.name] = p.infinityAllowed && std::isinf(value) ? Json("infinity") : Json(value);
        }
        else if constexpr (std::is_same_v<T, RorMask>)
        {
          doc[p.name] = rorMaskToJson(value, g.reconShape);
        }
        else
        {
          doc[p.name] = value;
        }
      },
      field.member);
  }
}

bool
isFlatArray(const Json & value)
{
  return value.is_array() && std::all_of(value.begin(), value.end(), [](const Json & v) { return v.is_primitive(); });
}

// Like dump(2), except that arrays of numbers take `perLine` entries to a line instead of one: a view
// list or a 512 x 512 mask would otherwise run to thousands of lines.
void
appendPretty(std::string & out, const Json & value, int indent, std::size_t perLine)
{
  const std::string pad(indent, ' ');
  if (value.is_object() && !value.empty())
  {
    out += "{\n";
    std::size_t i = 0;
    for (const auto & item : value.items())
    {
      // A custom ROR mask is written one grid row to a line.
      const bool maskRows = item.key() == "mask" && value.contains("cols") && value["cols"].is_number_integer() &&
                            value["cols"].get<std::int64_t>() > 0;
      const std::size_t itemPerLine = maskRows ? value["cols"].get<std::size_t>() : kNumbersPerLine;
      out += pad + "  " + Json(item.key()).dump() + ": ";
      appendPretty(out, item.value(), indent + 2, itemPerLine);
      out += ++i < value.size() ? ",\n" : "\n";
    }
    out += pad + "}";
  }
  else if (isFlatArray(value) && value.size() <= perLine)
  {
    out += "[";
    for (std::size_t i = 0; i < value.size(); ++i)
    {
      out += (i > 0 ? ", " : "") + value[i].dump();
    }
    out += "]";
  }
  else if (value.is_array() && !value.empty())
  {
    const bool        flat = isFlatArray(value);
    const std::size_t step = flat ? perLine : 1;
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i)
    {
      out += i % step == 0 ? pad + "  " : " ";
      appendPretty(out, value[i], indent + 2, kNumbersPerLine);
      out += i + 1 == value.size() ? "\n" : (i + 1) % step == 0 ? ",\n" : ",";
    }
    out += pad + "]";
  }
  else
  {
    out += value.dump();
  }
}

} // namespace

std::string
geometryToJson(const Geometry & geometry)
{
  // A file that fails to validate could not be read back, so refuse to write one.
  try
  {
    std::visit([](const auto & g) { g.validate(); }, geometry);
  }
  catch (const std::invalid_argument & e)
  {
    fail(std::string("cannot write an invalid geometry: ") + e.what());
  }
  Json doc;
  doc["format"] = kFormat;
  doc["version"] = kVersion;
  doc["geometry"] = geometryTypeName(geometry);
  std::visit([&](const auto & g) { writeFields(doc, g); }, geometry);
  std::string text;
  appendPretty(text, doc, 0, kNumbersPerLine);
  return text;
}

Geometry
geometryFromJson(const std::string & text)
{
  const Json doc = parse(text);
  if (!doc.is_object())
  {
    fail("the top level must be an object, got " + describe(doc));
  }
  const Json & format = require(doc, "format");
  if (format != kFormat)
  {
    fail("field \"format\" must be \"" + std::string(kFormat) + "\", got " + describe(format));
  }
  const Json & version = require(doc, "version");
  if (!version.is_number_integer())
  {
    fail("field \"version\" must be an integer, got " + describe(version));
  }
  if (version != kVersion)
  {
    fail("unsupported version " + version.dump() + " (this build reads version " + std::to_string(kVersion) + ")");
  }
  const Json &                      kind = require(doc, "geometry");
  const std::vector<GeometryType> & types = geometryTypes();
  std::string                       expected;
  for (std::size_t i = 0; i < types.size(); ++i)
  {
    if (kind.is_string() && kind == types[i].name)
    {
      return readGeometryOfType(i, doc);
    }
    expected += (i == 0 ? "" : i + 1 == types.size() ? " or " : ", ") + types[i].name;
  }
  fail("unknown geometry " + describe(kind) + "; expected " + expected);
}

Geometry
withParameters(const Geometry & geometry, const std::vector<std::pair<std::string, std::string>> & values)
{
  const std::string text = geometryToJson(geometry);
  Json              doc = parse(text);
  for (const auto & [name, value] : values)
  {
    const GeometryType & type = geometryTypeOf(geometry);
    if (!type.find(name))
    {
      fail("unknown field \"" + name + "\" for a " + type.name + " geometry");
    }
    try
    {
      doc[name] = parse(value);
    }
    catch (const std::invalid_argument & e)
    {
      throw std::invalid_argument(std::string(e.what()) + " in the value of \"" + name + "\"");
    }
  }
  return geometryFromJson(doc.dump());
}

void
writeGeometryFile(const Geometry & geometry, const std::string & path)
{
  const std::string text = geometryToJson(geometry) + "\n";
  std::ofstream     out(path, std::ios::binary);
  if (!out)
  {
    throw std::runtime_error(path + ": cannot open the geometry file for writing: " + std::strerror(errno));
  }
  out << text;
  out.close();
  if (!out)
  {
    throw std::runtime_error(path + ": cannot write the geometry file");
  }
}

Geometry
readGeometryFile(const std::string & path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
  {
    throw std::runtime_error(path + ": cannot open the geometry file: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
  {
    throw std::runtime_error(path + ": cannot read the geometry file");
  }
  try
  {
    return geometryFromJson(text.str());
  }
  catch (const std::invalid_argument & e)
  {
    throw std::invalid_argument(path + ": " + e.what());
  }
}

} // namespace mbir
