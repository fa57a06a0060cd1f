// Fuzz target: the DXchange reader (MBIRScanReader::ReadDXchange) on well-formed HDF5 files whose contents are
// fuzzed. The input is a recipe, not a file: it chooses which of the objects the reader looks at exist (the
// projections, dark and white fields, angles and detector pitch), as datasets, groups or links, with their shapes,
// number types (odd ones too), values, "units" attributes, storage (contiguous, compact, chunked with filters,
// virtual, external) and the reader's options. libhdf5's C API writes the file, then the reader either reads it or
// refuses it with an itk::ExceptionObject (or std::bad_alloc for a shape larger than the machine), leaves no HDF5
// object open, and what it reads holds together. Byte-level damage of HDF5 files is FuzzScanFiles.cpp's, on
// request only: libhdf5 itself is not hardened against it.

#include "FuzzScratch.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRScanReader.h"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The recipe's bytes in order; past its end every read is 0, which is each choice's usual, valid value, so that
// a short recipe is a valid scan.
class Recipe
{
public:
  Recipe(const std::uint8_t * data, std::size_t size)
    : m_Data(data)
    , m_Size(size)
  {}
  unsigned
  byte()
  {
    return m_Next < m_Size ? m_Data[m_Next++] : 0u;
  }
  unsigned
  below(unsigned n)
  {
    return byte() % n;
  }
  double
  raw() // any double, NaN payloads and denormals included
  {
    std::uint64_t bits = 0;
    for (int b = 0; b < 8; ++b)
      bits = bits << 8 | byte();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  std::string
  bytes(std::size_t length)
  {
    std::string text;
    for (std::size_t i = 0; i < length; ++i)
      text += static_cast<char>(byte());
    return text;
  }

private:
  const std::uint8_t * m_Data;
  std::size_t          m_Size;
  std::size_t          m_Next = 0;
};

// An HDF5 identifier closed when it goes out of scope (the reader's check of open objects counts ours too).
class Id
{
public:
  Id(hid_t id, herr_t (*close)(hid_t))
    : m_Id(id)
    , m_Close(close)
  {}
  ~Id()
  {
    if (m_Id >= 0)
      m_Close(m_Id);
  }
  Id(const Id &) = delete;
  Id &
  operator=(const Id &) = delete;
  hid_t
  get() const
  {
    return m_Id;
  }

private:
  hid_t m_Id;
  herr_t (*m_Close)(hid_t);
};

// What the reader looks at, and the usual scan: 3 projections of 4 x 5 cells in degrees, 6.5 um pitch in mm.
struct Item
{
  const char *         path;
  bool                 present;   // in the usual scan
  std::vector<hsize_t> dims;      // its usual shape
  bool                 attribute; // the reader reads its "units"
};
const std::array<Item, 7> kItems = { { { "/exchange/data", true, { 3, 4, 5 }, false },
                                       { "/exchange/data_dark", false, { 1, 4, 5 }, false },
                                       { "/exchange/data_white", false, { 2, 4, 5 }, false },
                                       { "/exchange/theta", true, { 3 }, true },
                                       { "/measurement/instrument/detector/pixel_size", true, { 1 }, true },
                                       { "/measurement/instrument/detector/x_pixel_size", false, { 1 }, true },
                                       { "/measurement/instrument/detector/y_pixel_size", false, { 1 }, true } } };
enum Index
{
  kData,
  kDark,
  kWhite,
  kTheta
};

// Values that break naive arithmetic.
const double kSpecial[] = { 0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            std::numeric_limits<double>::quiet_NaN(),
                            -std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::denorm_min(),
                            double(std::numeric_limits<float>::denorm_min()),
                            1e-300,
                            1e300,
                            -1e300,
                            double(std::numeric_limits<float>::max()),
                            3.5e38,
                            0.5,
                            360.0,
                            1e6,
                            9007199254740993.0,
                            -9223372036854775808.0,
                            18446744073709551616.0,
                            255.0,
                            256.0,
                            65536.0,
                            1e-3,
                            1e10 };

// Extents past the small ones: none fits in 1 MiB, some overflow.
const hsize_t kHuge[] = { 239,
                          255,
                          1000,
                          4096,
                          65535,
                          hsize_t(1) << 20,
                          hsize_t(1) << 24,
                          hsize_t(1) << 31,
                          hsize_t(1) << 32,
                          hsize_t(1) << 40,
                          hsize_t(1) << 48,
                          hsize_t(1) << 62,
                          std::numeric_limits<hsize_t>::max() / 2,
                          std::numeric_limits<hsize_t>::max() - 2,
                          3,
                          7 };

const char * const kUnits[] = { "deg", "degree",  "degrees",   "rad", "radian", "Radians",  " rad ",     "grad",
                                "mm",  "um",      "\xc2\xb5m", "nm",  "cm",     "m",        "Metres",    "furlong",
                                "",    "microns", "DEG\t",     "r",   "mm mm",  "\xff\xfe", "radians\n", "millimetre" };

// A number or odd file type; the numbers' size and byte order vary. Every one is closed by the caller.
hid_t
FileType(unsigned choice, bool stack)
{
  switch (choice)
  {
    case 0:
      return H5Tcopy(stack ? H5T_IEEE_F32LE : H5T_IEEE_F64LE);
    case 1:
      return H5Tcopy(H5T_IEEE_F32BE);
    case 2:
      return H5Tcopy(H5T_IEEE_F64BE);
    case 3:
      return H5Tcopy(H5T_STD_I8LE);
    case 4:
      return H5Tcopy(H5T_STD_U8LE);
    case 5:
      return H5Tcopy(H5T_STD_I16LE);
    case 6:
      return H5Tcopy(H5T_STD_U16BE);
    case 7:
      return H5Tcopy(H5T_STD_I32LE);
    case 8:
      return H5Tcopy(H5T_STD_U32BE);
    case 9:
      return H5Tcopy(H5T_STD_I64LE);
    case 10:
      return H5Tcopy(H5T_STD_U64LE);
    case 11:
      return H5Tcopy(H5T_NATIVE_LDOUBLE); // 16 bytes on x86-64
    case 12:
    { // IEEE half precision, which libhdf5 1.10 has no name for
      const hid_t half = H5Tcopy(H5T_IEEE_F32LE);
      H5Tset_fields(half, 15, 10, 5, 0, 10);
      H5Tset_size(half, 2);
      H5Tset_ebias(half, 15);
      return half;
    }
    case 13:
    { // a 3-byte integer
      const hid_t odd = H5Tcopy(H5T_STD_I32LE);
      H5Tset_size(odd, 3);
      return odd;
    }
    case 14:
    { // a 12-bit integer at bit 2 of a 16-bit word
      const hid_t odd = H5Tcopy(H5T_STD_U16LE);
      H5Tset_precision(odd, 12);
      H5Tset_offset(odd, 2);
      return odd;
    }
    case 15:
    {
      const hid_t text = H5Tcopy(H5T_C_S1);
      H5Tset_size(text, 8);
      return text;
    }
    case 16:
    {
      const hid_t text = H5Tcopy(H5T_C_S1);
      H5Tset_size(text, H5T_VARIABLE);
      return text;
    }
    case 17:
    {
      const hid_t compound = H5Tcreate(H5T_COMPOUND, sizeof(float));
      H5Tinsert(compound, "value", 0, H5T_NATIVE_FLOAT);
      return compound;
    }
    case 18:
    {
      const hid_t enumeration = H5Tenum_create(H5T_NATIVE_INT);
      int         value = 0;
      H5Tenum_insert(enumeration, "zero", &value);
      return enumeration;
    }
    case 19:
      return H5Tcopy(H5T_STD_B8LE);
    case 20:
      return H5Tcreate(H5T_OPAQUE, 4);
    case 21:
    {
      const hsize_t two = 2;
      return H5Tarray_create2(H5T_NATIVE_FLOAT, 1, &two);
    }
    case 22:
      return H5Tvlen_create(H5T_NATIVE_FLOAT);
    default:
      return H5Tcopy(H5T_STD_REF_OBJ);
  }
}
constexpr unsigned kTypes = 24;

// Saturating product of the extents.
hsize_t
Count(const std::vector<hsize_t> & dims)
{
  hsize_t n = 1;
  for (const hsize_t e : dims)
    n = (e != 0 && n > std::numeric_limits<hsize_t>::max() / e) ? std::numeric_limits<hsize_t>::max() : n * e;
  return n;
}

// The "units" attribute: absent, a fixed or variable string (padded, UTF-8, several of them, none), or a number.
void
WriteUnits(Recipe & recipe, hid_t object)
{
  const unsigned kind = recipe.below(10);
  if (kind == 0)
    return;
  std::string    text;
  const unsigned which = recipe.byte();
  if (which < 200)
    text = kUnits[which % (sizeof kUnits / sizeof *kUnits)];
  else if (which < 250)
    text = recipe.bytes(recipe.below(16));
  else
    text = std::string(300 + recipe.byte(), 'm');
  const hsize_t elements = (kind == 6 || kind == 7) ? 1 + recipe.below(4) : 1;
  Id            space(kind == 8 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &elements, nullptr), H5Sclose);
  if (kind == 9)
  {
    Id  attribute(H5Acreate2(object, "units", H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    int value[1] = { 1 };
    H5Awrite(attribute.get(), H5T_NATIVE_INT, value);
    return;
  }
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (kind == 3 || kind == 7) // variable length
  {
    H5Tset_size(type.get(), H5T_VARIABLE);
    Id attribute(H5Acreate2(object, "units", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    std::vector<const char *> values(elements, recipe.below(4) == 1 ? nullptr : text.c_str());
    H5Awrite(attribute.get(), type.get(), values.data());
    return;
  }
  H5Tset_size(type.get(), std::max<std::size_t>(text.size(), 1));
  H5Tset_strpad(type.get(), kind == 4 ? H5T_STR_NULLPAD : kind == 5 ? H5T_STR_SPACEPAD : H5T_STR_NULLTERM);
  if (kind == 2)
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
  Id          attribute(H5Acreate2(object, "units", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  std::string all;
  for (hsize_t e = 0; e < elements; ++e)
    all += text + std::string(std::max<std::size_t>(text.size(), 1) - text.size(), '\0');
  if (kind != 8)
    H5Awrite(attribute.get(), type.get(), all.data());
}

// What the writer made of one item, for the checks of a read that succeeds.
struct Made
{
  bool                exists = false; // the reader finds a link at its path
  bool                exact = false;  // a dataset whose values the reader must return as written
  std::vector<double> values;         // as written
};

// One dataset at `path` as the recipe says; `usual` is its shape in the usual scan.
Made
WriteDataset(Recipe &                     recipe,
             hid_t                        file,
             hid_t                        links,
             const fs::path &             folder,
             const Item &                 item,
             std::size_t                  index,
             const std::vector<hsize_t> & usual)
{
  Made              made;
  const bool        stack = index < kTheta;
  const unsigned    typeChoice = recipe.below(kTypes);
  Id                type(FileType(typeChoice, stack), H5Tclose);
  const H5T_class_t kind = H5Tget_class(type.get());
  const bool        numbers = kind == H5T_INTEGER || kind == H5T_FLOAT;

  // Shape: the usual rank or another, a scalar or empty space; each extent usual, small (zero too) or huge.
  std::vector<hsize_t> dims = usual;
  const unsigned       rankChoice = recipe.below(9);
  if (rankChoice >= 1 && rankChoice <= 6)
    dims.resize(rankChoice, 1);
  else if (rankChoice == 7 || rankChoice == 8)
    dims.clear();
  for (std::size_t d = 0; d < dims.size(); ++d)
  {
    const unsigned b = recipe.byte();
    if (b == 0)
      dims[d] = d < usual.size() ? usual[d] : 1;
    else if (b < 0xf0)
      dims[d] = b - 1;
    else
      dims[d] = kHuge[b - 0xf0];
  }
  const hsize_t points = rankChoice == 8 ? 0 : Count(dims);
  const double  bytes = double(points) * double(H5Tget_size(type.get()));
  const bool    small = bytes <= double(1 << 20);

  // Storage: contiguous, chunked (with filters), compact, virtual or external; a large shape only where the
  // file stays small (libhdf5 writes fill values for early contiguous allocation).
  unsigned storage = recipe.below(6);
  if (!small && storage != 1 && storage != 4)
    storage = 0;
  const unsigned       flags = recipe.byte();
  Id                   creation(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  std::vector<hsize_t> maxDims = dims;
  if (storage == 1 && !dims.empty())
  {
    const bool unlimited = flags & 1;
    if (unlimited)
      maxDims.assign(dims.size(), H5S_UNLIMITED);
    std::vector<hsize_t> chunk(dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d)
    {
      chunk[d] = 1 + recipe.below(16);
      if (!unlimited && dims[d] > 0)
        chunk[d] = std::min(chunk[d], dims[d]);
    }
    // A chunk may pass an unlimited extent, but not by so much that the file is gigabytes of padding (a rank-6
    // chunk of 16^6 values, each one allocated early: found so).
    if (double(Count(chunk)) * double(H5Tget_size(type.get())) > double(1 << 20))
      for (std::size_t d = 0; d < dims.size(); ++d)
        chunk[d] = std::min(chunk[d], std::max<hsize_t>(dims[d], 1));
    H5Pset_chunk(creation.get(), static_cast<int>(chunk.size()), chunk.data());
    // The packing filters come first, on whole-byte numbers: otherwise libhdf5 writes past its buffers (found so).
    if ((flags & 16) && typeChoice <= 10)
    {
      if (kind == H5T_INTEGER)
        H5Pset_scaleoffset(creation.get(), H5Z_SO_INT, H5Z_SO_INT_MINBITS_DEFAULT);
      else
        H5Pset_nbit(creation.get());
    }
    if (flags & 2)
      H5Pset_shuffle(creation.get());
    if (flags & 4)
      H5Pset_deflate(creation.get(), 1 + (flags >> 5));
    if (flags & 8)
      H5Pset_fletcher32(creation.get());
  }
  else if (storage == 2)
    H5Pset_layout(creation.get(), H5D_COMPACT);
  else if (storage == 3 && small)
    H5Pset_external(creation.get(),
                    (folder / ("raw-" + std::to_string(index) + ".bin")).c_str(), // one each: no aliases
                    recipe.below(4) * 64,
                    (flags & 1) ? H5F_UNLIMITED : static_cast<hsize_t>(bytes));
  Id space(rankChoice == 8 ? H5Screate(H5S_NULL)
           : dims.empty()  ? H5Screate(H5S_SCALAR)
                           : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxDims.data()),
           H5Sclose);
  if (storage == 4) // virtual: its values from this file's projections, or from a file that is not there
  {
    Id source(H5Screate_simple(1, &points, nullptr), H5Sclose);
    H5Pset_virtual(creation.get(),
                   space.get(),
                   (flags & 1) ? "missing.h5" : ".",
                   (flags & 2) ? kItems[kData].path : "/nowhere",
                   source.get());
  }
  if ((flags & 64) && small) // allocated and filled when created, not when written
    H5Pset_alloc_time(creation.get(), H5D_ALLOC_TIME_EARLY);
  if ((flags & 128) && numbers)
  {
    const double fill = kSpecial[recipe.below(sizeof kSpecial / sizeof *kSpecial)];
    H5Pset_fill_value(creation.get(), H5T_NATIVE_DOUBLE, &fill);
  }
  Id dataset(H5Dcreate2(file, item.path, type.get(), space.get(), links, creation.get(), H5P_DEFAULT), H5Dclose);
  if (dataset.get() < 0)
    return made;
  made.exists = true;
  if (item.attribute)
    WriteUnits(recipe, dataset.get());

  // Values: the usual ones (distinct per cell, angles over half a turn, the pitch), some replaced by odd ones.
  const bool write = numbers && small && storage != 4 && recipe.below(8) != 1;
  if (!write)
    return made;
  made.values.resize(static_cast<std::size_t>(points));
  for (std::size_t i = 0; i < made.values.size(); ++i)
    made.values[i] = index == kTheta ? 180.0 * double(i) / double(made.values.size())
                     : stack         ? double((i * 37 + index) % 101)
                                     : 0.0065;
  for (unsigned n = recipe.below(4); n > 0 && !made.values.empty(); --n)
  {
    const std::size_t at = recipe.byte() % made.values.size();
    const unsigned    v = recipe.byte();
    made.values[at] = v == 255 ? recipe.raw() : kSpecial[v % (sizeof kSpecial / sizeof *kSpecial)];
  }
  if (H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, made.values.data()) < 0)
    return made;
  const double low[] = { -128.0, 0.0, -32768.0, 0.0 }, high[] = { 127.0, 255.0, 32767.0, 65535.0 };
  made.exact = typeChoice <= 1 || (typeChoice >= 3 && typeChoice <= 6);
  for (const double v : made.values)
    if (!made.exact)
      break;
    else if (typeChoice >= 3 && !(v == std::floor(v) && v >= low[typeChoice - 3] && v <= high[typeChoice - 3]))
      made.exact = false;
    else if (typeChoice <= 1 && std::isfinite(v) && double(static_cast<float>(v)) != v)
      made.exact = false;
  return made;
}

// The file the recipe describes; what was made of each item.
std::array<Made, kItems.size()>
WriteFile(Recipe & recipe, const fs::path & folder, const std::string & path)
{
  std::array<Made, kItems.size()> made;
  const unsigned                  layout = recipe.byte();
  Id                              access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (layout & 1) // the newest format: other group, chunk index and message encodings
    H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
  if (file.get() < 0)
    std::abort(); // the temporary folder is ours
  Id links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(links.get(), 1);
  if (layout & 2) // a dataset where the readers expect the group /exchange
  {
    Id space(H5Screate(H5S_SCALAR), H5Sclose);
    Id exchange(H5Dcreate2(file.get(), "/exchange", H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                H5Dclose);
  }
  std::vector<hsize_t> frames = kItems[kData].dims;
  for (std::size_t i = 0; i < kItems.size(); ++i)
  {
    const Item &         item = kItems[i];
    const unsigned       kind = recipe.below(8);
    std::vector<hsize_t> usual = item.dims;
    if (i == kTheta && !frames.empty())
      usual[0] = frames[0]; // one angle per projection
    else if ((i == kDark || i == kWhite) && frames.size() == 3)
      usual = { item.dims[0], frames[1], frames[2] };
    switch (kind == 0 ? (item.present ? 1 : 2) : kind)
    {
      case 1:
        made[i] = WriteDataset(recipe, file.get(), links.get(), folder, item, i, usual);
        if (i == kData)
        { // later items follow the projections' shape, whatever it is
          Id        dataset(H5Dopen2(file.get(), item.path, H5P_DEFAULT), H5Dclose);
          Id        space(dataset.get() >= 0 ? H5Dget_space(dataset.get()) : -1, H5Sclose);
          const int rank = space.get() >= 0 ? H5Sget_simple_extent_ndims(space.get()) : -1;
          if (rank > 0)
          {
            frames.assign(static_cast<std::size_t>(rank), 0);
            H5Sget_simple_extent_dims(space.get(), frames.data(), nullptr);
          }
        }
        break;
      case 2: // absent
        break;
      case 3:
      {
        Id group(H5Gcreate2(file.get(), item.path, links.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        made[i].exists = group.get() >= 0;
        break;
      }
      case 4:
        made[i].exists =
          H5Lcreate_soft(kItems[recipe.below(kItems.size())].path, file.get(), item.path, links.get(), H5P_DEFAULT) >=
          0;
        break;
      case 5:
        made[i].exists = H5Lcreate_soft("/nowhere", file.get(), item.path, links.get(), H5P_DEFAULT) >= 0;
        break;
      case 6:
        made[i].exists = H5Lcreate_external((recipe.byte() & 1) ? "missing.h5" : "scan.h5",
                                            kItems[recipe.below(kItems.size())].path,
                                            file.get(),
                                            item.path,
                                            links.get(),
                                            H5P_DEFAULT) >= 0;
        break;
      default:
        made[i].exists = i > 0 && H5Lcreate_hard(file.get(),
                                                 kItems[recipe.below(static_cast<unsigned>(i))].path,
                                                 file.get(),
                                                 item.path,
                                                 links.get(),
                                                 H5P_DEFAULT) >= 0;
    }
  }
  return made;
}

bool
Positive(double v)
{
  return std::isfinite(v) && v > 0.0;
}

bool
Near(double a, double b) // the geometry may keep lengths in float
{
  return std::fabs(a - b) <= 1e-6 * std::fabs(b);
}

// What a successful read promises: the shapes agree with each other and the geometry, the fields are there
// exactly when the file has them, the geometry is finite, and values that float keeps come back as written.
void
Check(const itk::MBIRScan & scan, const std::array<Made, kItems.size()> & made, double pixelSize, bool fromFile)
{
  using ImageType = itk::MBIRScanReader::ImageType;
  if (!scan.Projections || !scan.Geometry || scan.Notes.empty())
    std::abort();
  const ImageType::SizeType size = scan.Projections->GetLargestPossibleRegion().GetSize();
  const auto &              geometry = *scan.Geometry;
  if (size[0] == 0 || size[1] == 0 || size[2] == 0 || geometry.GetNumberOfChannels() != size[0] ||
      geometry.GetNumberOfRows() != size[1] || geometry.GetNumberOfViews() != size[2])
    std::abort();
  const auto * parallel = dynamic_cast<const itk::MBIRParallelBeamGeometry *>(&geometry);
  if (!parallel || parallel->GetAngles().size() != size[2])
    std::abort();
  for (const double angle : parallel->GetAngles())
    if (!std::isfinite(angle))
      std::abort();
  const auto pitch = geometry.GetDetectorSpacing();
  if (!Positive(pitch[0]) || !Positive(pitch[1]) ||
      (!fromFile && !(Near(pitch[0], pixelSize) && Near(pitch[1], pixelSize))))
    std::abort();
  const auto volume = geometry.GetVolumeSpacing();
  const auto grid = geometry.GetVolumeSize();
  for (int d = 0; d < 3; ++d)
    if (!Positive(volume[d]) || grid[d] == 0)
      std::abort();
  const ImageType * fields[2] = { scan.Dark.GetPointer(), scan.Bright.GetPointer() };
  for (int f = 0; f < 2; ++f)
  {
    if ((fields[f] != nullptr) != made[kDark + f].exists)
      std::abort();
    if (fields[f])
    {
      const auto s = fields[f]->GetLargestPossibleRegion().GetSize();
      if (s[0] != size[0] || s[1] != size[1] || s[2] == 0 || fields[f]->GetSpacing()[0] != pitch[0])
        std::abort();
    }
  }
  if (scan.Projections->GetSpacing()[0] != pitch[0] || scan.Projections->GetSpacing()[1] != pitch[1] ||
      !std::isfinite(scan.Projections->GetOrigin()[0]) || !std::isfinite(scan.Projections->GetOrigin()[1]))
    std::abort();
  for (int f = -1; f < 2; ++f)
  {
    const Made &      m = made[kDark + f];
    const ImageType * image = f < 0 ? scan.Projections.GetPointer() : fields[f];
    if (!m.exact || !image)
      continue;
    const std::size_t n = image->GetLargestPossibleRegion().GetNumberOfPixels();
    if (n != m.values.size())
      std::abort();
    for (std::size_t i = 0; i < n; ++i)
    {
      const float got = image->GetBufferPointer()[i], want = static_cast<float>(m.values[i]);
      if (!(got == want || (std::isnan(got) && std::isnan(want))))
        std::abort();
    }
  }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  if (!itk::MBIRScanReader::HasDXchange())
    return 0;
  static const FuzzScratch scratch("mbir-fuzz-dxchange");
  const fs::path &         folder = scratch.path();
  static const bool        quiet = [] { return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0; }(); // the writer's
  (void)quiet; // refusals (a compact dataset too large, a filter that does not suit) only leave an item out
  fs::remove_all(folder);
  fs::create_directories(folder);
  const std::string path = (folder / "scan.h5").string();
  // What each input came to, to see that the recipes reach every refusal of the reader.
  static const bool verbose = std::getenv("MBIR_FUZZ_VERBOSE") != nullptr;

  Recipe                       recipe(data, size);
  itk::MBIRScanReader::Options options;
  const unsigned               choice = recipe.byte();
  const double                 given[] = {
    0.0,   0.01, std::numeric_limits<double>::quiet_NaN(), -1.0, std::numeric_limits<double>::infinity(), 1e-300,
    1e300, 2.5
  };
  options.ReverseRotation = choice & 1;
  options.PixelSize = given[(choice >> 1) % 8];
  const std::array<Made, kItems.size()> made = WriteFile(recipe, folder, path);
  if (H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL) != 0)
    std::abort(); // the writer's own
  try
  {
    const itk::MBIRScan scan = itk::MBIRScanReader::ReadDXchange(path, options);
    const bool          fromFile = made[4].exists || (made[5].exists && made[6].exists);
    Check(scan, made, options.PixelSize, fromFile);
    if (verbose)
      std::cerr << "read: " << scan.Geometry->GetNumberOfViews() << " projections\n";
  }
  catch (const itk::ExceptionObject & e)
  {
    if (verbose)
      std::cerr << "refused: " << e.GetDescription() << "\n";
  }
  catch (const std::bad_alloc &) // a shape too large for this machine: the tools say "out of host memory"
  {
    if (verbose)
      std::cerr << "refused: out of host memory\n";
  }
  if (H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL) != 0)
    std::abort(); // a file, dataset, type or attribute the reader opened and did not close
  return 0;
}
