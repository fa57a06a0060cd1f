/*=========================================================================
 *
 *  Copyright ITKMBIR contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
// The three readers of MBIRScanReader: a TIFF folder with a JSON sidecar, DXchange HDF5, Nikon .xtekct.
#include "itkMBIRScanReader.h"

#include "itkImageFileReader.h"
#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRFilterSupport.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkTIFFImageIO.h"

#include <nlohmann/json.hpp>

#ifdef MBIR_HAVE_HDF5
#  include <hdf5.h>
#endif

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

namespace itk {
namespace {

namespace fs = std::filesystem;
using ImageType = MBIRScanReader::ImageType;
using Scan = MBIRScanReader::Scan;
constexpr double kDegree = M_PI / 180.0;

// An ITK message without ITK's "ITK ERROR: " and "Class(0x...): " prefixes, to quote inside another.
std::string
Describe(const ExceptionObject & e)
{
  static const std::regex prefix(R"(^(ITK ERROR: )?(\w+(::\w+)*\(0x[0-9a-fA-F]+\): )?)");
  return std::regex_replace(std::string(e.GetDescription()), prefix, "", std::regex_constants::format_first_only);
}

// Every reader error: the file, the field (a key, dataset or option), then what is wrong.
// Filesystem questions about names taken from scan files, answered false rather than thrown when the name cannot
// be asked about (too long, not permitted; found by fuzzing).
bool
IsFile(const fs::path & path)
{
  std::error_code error;
  return fs::is_regular_file(path, error);
}
bool
IsFolder(const fs::path & path)
{
  std::error_code error;
  return fs::is_directory(path, error);
}

[[noreturn]] void
Fail(const std::string & file, const std::string & field, const std::string & problem)
{
  itkGenericExceptionMacro(<< "'" << file << "': " << (field.empty() ? "" : field + ": ") << problem);
}

std::string
Lower(std::string text)
{
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string
Trim(const std::string & text)
{
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
  {
    return "";
  }
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// `text` as a whole number, or an error naming the file and field.
double
Number(const std::string & file, const std::string & field, const std::string & text)
{
  const std::string trimmed = Trim(text);
  char *            end = nullptr;
  const double      value = std::strtod(trimmed.c_str(), &end);
  if (trimmed.empty() || *end != '\0' || !std::isfinite(value))
  {
    Fail(file, field, "'" + trimmed + "' is not a number");
  }
  return value;
}

// Shell-style wildcard match of a file name: '*' any run of characters, '?' one character.
bool
Matches(const char * pattern, const char * name)
{
  if (*pattern == '\0')
  {
    return *name == '\0';
  }
  if (*pattern == '*')
  {
    return Matches(pattern + 1, name) || (*name != '\0' && Matches(pattern, name + 1));
  }
  return *name != '\0' && (*pattern == '?' || *pattern == *name) && Matches(pattern + 1, name + 1);
}

// The regular files of `folder` whose names match `pattern`, sorted by name.
std::vector<fs::path>
FilesMatching(const fs::path & folder, const std::string & pattern)
{
  std::vector<fs::path> files;
  std::error_code       error; // a folder that cannot be listed holds no match
  for (const auto & entry : fs::directory_iterator(folder, error))
  {
    if (entry.is_regular_file(error) && Matches(pattern.c_str(), entry.path().filename().string().c_str()))
    {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// What is wrong with a TIFF file's header and page chain, or "" when they are sound. ITK's TIFF reader walks a
// damaged page chain for minutes (a 276-byte file found by fuzzing took more than 5), so the chain is checked first:
// a projection file holds exactly one page.
std::string
TiffStructureProblem(const fs::path & path)
{
  std::error_code     error;
  const std::uint64_t size = fs::file_size(path, error);
  if (error)
  {
    return "cannot be read: " + error.message();
  }
  std::ifstream in(path, std::ios::binary);
  auto          readAt = [&](std::uint64_t offset, unsigned char * bytes, std::size_t count) {
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char *>(bytes), static_cast<std::streamsize>(count));
    return in.gcount() == static_cast<std::streamsize>(count);
  };
  unsigned char header[16]{};
  if (!readAt(0, header, 8))
  {
    return "not a TIFF image (shorter than a TIFF header, 8 bytes)";
  }
  const bool little = header[0] == 'I' && header[1] == 'I';
  if (!little && !(header[0] == 'M' && header[1] == 'M'))
  {
    return "not a TIFF image (no II or MM byte-order mark)";
  }
  auto number = [little](const unsigned char * bytes, int count) {
    std::uint64_t value = 0;
    for (int i = 0; i < count; ++i)
    {
      value |= std::uint64_t{ bytes[little ? i : count - 1 - i] } << (8 * i);
    }
    return value;
  };
  const auto version = number(header + 2, 2);
  if (version != 42 && version != 43)
  {
    return "not a TIFF image (version " + std::to_string(version) + ", expected 42, or 43 for BigTIFF)";
  }
  const bool big = version == 43; // BigTIFF: 8-byte counts and offsets, 20-byte entries
  if (big && !readAt(8, header + 8, 8))
  {
    return "not a TIFF image (shorter than a BigTIFF header, 16 bytes)";
  }
  const int           countBytes = big ? 8 : 2;
  const int           offsetBytes = big ? 8 : 4;
  const std::uint64_t entryBytes = big ? 20 : 12;
  const std::uint64_t directory = big ? number(header + 8, 8) : number(header + 4, 4);
  unsigned char       field[8]{};
  if (directory < (big ? 16u : 8u) || directory > size || !readAt(directory, field, countBytes))
  {
    return "its first page directory (at byte " + std::to_string(directory) + ") lies outside the file (" +
           std::to_string(size) + " bytes): damaged or truncated";
  }
  const auto entries = number(field, countBytes);
  if (entries > (size - directory) / entryBytes ||
      !readAt(directory + countBytes + entries * entryBytes, field, offsetBytes))
  {
    return "its first page directory (" + std::to_string(entries) +
           " entries) runs past the end of the file: damaged or truncated";
  }
  if (number(field, offsetBytes) != 0)
  {
    return "holds more than one page (its first page directory links to another); one image per file expected";
  }
  // Strips and tiles are two layouts of one page: libtiff reads both offset (or byte count) arrays into one place,
  // so which one the pixels come from is arbitrary (and the other one leaks).
  std::vector<unsigned char> table(entries * entryBytes);
  if (!readAt(directory + countBytes, table.data(), table.size()))
  {
    return "its first page directory cannot be read: damaged or truncated";
  }
  std::set<std::uint64_t> tags;
  for (std::uint64_t e = 0; e < entries; ++e)
  {
    tags.insert(number(table.data() + e * entryBytes, 2));
  }
  for (const auto & [strips, tiles, what] :
       { std::make_tuple(273, 324, "offsets"), std::make_tuple(279, 325, "byte counts") })
  {
    if (tags.count(strips) != 0 && tags.count(tiles) != 0)
    {
      return std::string("its page has both strip and tile ") + what + " (tags " + std::to_string(strips) + " and " +
             std::to_string(tiles) + "), two layouts at once: damaged";
    }
  }
  return {};
}

// One 2-D TIFF image as float; `what` says what it is in errors.
Image<float, 2>::Pointer
ReadTiff(const fs::path & path, const std::string & what)
{
  if (!IsFile(path))
  {
    Fail(path.string(), what, "no such file");
  }
  if (const auto problem = TiffStructureProblem(path); !problem.empty())
  {
    Fail(path.string(), what, problem);
  }
  auto io = TIFFImageIO::New();
  if (!io->CanReadFile(path.string().c_str()))
  {
    Fail(path.string(), what, "not a TIFF image that can be read (damaged, or another format)");
  }
  auto reader = ImageFileReader<Image<float, 2>>::New();
  reader->SetFileName(path.string());
  reader->SetImageIO(io);
  try
  {
    reader->Update();
  }
  catch (const ExceptionObject & e)
  {
    Fail(path.string(), what, "cannot read the image: " + Describe(e));
  }
  if (io->GetNumberOfComponents() != 1)
  {
    Fail(path.string(),
         what,
         "has " + std::to_string(io->GetNumberOfComponents()) + " components per pixel; one expected");
  }
  return reader->GetOutput();
}

// Projections placed as the filters take them: spacing [channel pitch, row pitch, 1], the detector centred
// on the origin, identity direction.
void
PlaceOnDetector(ImageType * image, double channelPitch, double rowPitch)
{
  ImageType::SpacingType spacing;
  spacing[0] = channelPitch;
  spacing[1] = rowPitch;
  spacing[2] = 1.0;
  image->SetSpacing(spacing);
  const auto           size = image->GetLargestPossibleRegion().GetSize();
  ImageType::PointType origin;
  origin[0] = -0.5 * channelPitch * (static_cast<double>(size[0]) - 1.0);
  origin[1] = -0.5 * rowPitch * (static_cast<double>(size[1]) - 1.0);
  origin[2] = 0.0;
  image->SetOrigin(origin);
  ImageType::DirectionType direction;
  direction.SetIdentity();
  image->SetDirection(direction);
}

ImageType::Pointer
NewStack(std::size_t channels, std::size_t rows, std::size_t frames)
{
  auto                image = ImageType::New();
  ImageType::SizeType size = { { channels, rows, frames } };
  image->SetRegions(ImageType::RegionType(size));
  image->Allocate();
  return image;
}

// The 2-D images of `files` as frames of one stack; every one must have the size of the first, or of
// `expected` when given (channels, rows).
ImageType::Pointer
StackTiffs(const std::vector<fs::path> & files, const std::string & what, const ImageType::SizeType * expected)
{
  std::size_t        channels = 0, rows = 0;
  ImageType::Pointer stack;
  for (std::size_t f = 0; f < files.size(); ++f)
  {
    const auto image = ReadTiff(files[f], what);
    const auto size = image->GetLargestPossibleRegion().GetSize();
    if (f == 0)
    {
      channels = expected ? (*expected)[0] : size[0];
      rows = expected ? (*expected)[1] : size[1];
      stack = NewStack(channels, rows, files.size());
    }
    if (size[0] != channels || size[1] != rows)
    {
      std::ostringstream text;
      text << "is " << size[0] << " x " << size[1] << " pixels but " << channels << " x " << rows
           << " (channels x rows) are expected";
      Fail(files[f].string(), what, text.str());
    }
    std::copy(image->GetBufferPointer(),
              image->GetBufferPointer() + channels * rows,
              stack->GetBufferPointer() + f * channels * rows);
  }
  return stack;
}

// The geometry's validation (GetEngineGeometry()) reported against the file that described it.
void
Validate(MBIRGeometry & geometry, const std::string & file)
{
  try
  {
    geometry.AutoSetVolumeGeometry();
    geometry.GetEngineGeometry();
  }
  catch (const ExceptionObject & e)
  {
    Fail(file, "", std::string("the scan it describes is not a valid geometry: ") + Describe(e));
  }
}

MBIRGeometry::DetectorVectorType
Pair(double channel, double row)
{
  MBIRGeometry::DetectorVectorType v;
  v[0] = channel;
  v[1] = row;
  return v;
}

// A parallel or cone geometry of `channels` x `rows` cells at `pitch` and these angles (radians); cone when
// sourceDetector > 0.
MBIRGeometry::Pointer
MakeGeometry(std::size_t                              channels,
             std::size_t                              rows,
             const MBIRGeometry::DetectorVectorType & pitch,
             const MBIRGeometry::DetectorVectorType & offset,
             const std::vector<double> &              angles,
             double                                   sourceDetector,
             double                                   sourceIso)
{
  if (sourceDetector > 0.0)
  {
    auto cone = MBIRConeBeamGeometry::New();
    cone->SetDetectorSize(channels, rows);
    cone->SetDetectorSpacing(pitch);
    cone->SetDetectorOffset(offset);
    cone->SetAngles(angles);
    cone->SetSourceToDetectorDistance(sourceDetector);
    cone->SetSourceToIsocenterDistance(sourceIso);
    return cone.GetPointer();
  }
  auto parallel = MBIRParallelBeamGeometry::New();
  parallel->SetDetectorSize(channels, rows);
  parallel->SetDetectorSpacing(pitch);
  parallel->SetDetectorOffset(offset);
  parallel->SetAngles(angles);
  return parallel.GetPointer();
}

void
Finish(Scan & scan, const std::string & file)
{
  Validate(*scan.Geometry, file);
  const auto pitch = scan.Geometry->GetDetectorSpacing();
  for (ImageType * image : { scan.Projections.GetPointer(), scan.Dark.GetPointer(), scan.Bright.GetPointer() })
  {
    if (image)
    {
      PlaceOnDetector(image, pitch[0], pitch[1]);
    }
  }
}

std::vector<double>
Radians(std::vector<double> angles, double unit, bool reverse)
{
  for (double & a : angles)
  {
    a *= (reverse ? -unit : unit);
  }
  return angles;
}

// ---- TIFF folder + JSON sidecar ----

using Json = nlohmann::json;

// The numbers of a JSON array, or a lone number as a list of one.
std::vector<double>
JsonNumbers(const Json & value, const std::string & file, const std::string & key)
{
  std::vector<double> numbers;
  if (value.is_number())
  {
    numbers.push_back(value.get<double>());
    return numbers;
  }
  if (!value.is_array())
  {
    Fail(file, key, "must be a number or an array of numbers, got " + value.dump());
  }
  for (const Json & item : value)
  {
    if (!item.is_number())
    {
      Fail(file, key, "must hold numbers only, got " + item.dump());
    }
    numbers.push_back(item.get<double>());
  }
  return numbers;
}

double
JsonPositive(const Json & sidecar, const std::string & file, const std::string & key)
{
  if (!sidecar.contains(key))
  {
    Fail(file, key, "missing (a length in mm)");
  }
  if (!sidecar[key].is_number() || !(sidecar[key].get<double>() > 0.0))
  {
    Fail(file, key, "must be a positive number of mm, got " + sidecar[key].dump());
  }
  return sidecar[key].get<double>();
}

std::string
JsonText(const Json & sidecar, const std::string & file, const std::string & key, const std::string & fallback)
{
  if (!sidecar.contains(key))
  {
    if (fallback.empty())
    {
      Fail(file, key, "missing");
    }
    return fallback;
  }
  if (!sidecar[key].is_string() || sidecar[key].get<std::string>().empty())
  {
    Fail(file, key, "must be a non-empty string, got " + sidecar[key].dump());
  }
  return sidecar[key].get<std::string>();
}

// An angle list file: JSON (an array, or an object with "angles") when it ends in .json, else text with one
// number per line ('#' starts a comment, blank lines are skipped).
std::vector<double>
ReadAngleFile(const fs::path & path, const std::string & sidecar)
{
  std::ifstream in(path);
  if (!in)
  {
    Fail(sidecar, "angles_file", "cannot read '" + path.string() + "'");
  }
  if (Lower(path.extension().string()) == ".json")
  {
    Json content;
    try
    {
      content = Json::parse(in);
    }
    catch (const Json::exception & e)
    {
      Fail(path.string(), "", std::string("not valid JSON: ") + e.what());
    }
    if (content.is_object())
    {
      if (!content.contains("angles"))
      {
        Fail(path.string(), "angles", "missing (the file must be an array of numbers or hold one as \"angles\")");
      }
      return JsonNumbers(content["angles"], path.string(), "angles");
    }
    return JsonNumbers(content, path.string(), "angles");
  }
  std::vector<double> angles;
  int                 lineNumber = 0;
  for (std::string line; std::getline(in, line);)
  {
    ++lineNumber;
    line = Trim(line.substr(0, line.find('#')));
    if (!line.empty())
    {
      angles.push_back(Number(path.string(), "line " + std::to_string(lineNumber), line));
    }
  }
  return angles;
}

// ---- DXchange ----

#ifdef MBIR_HAVE_HDF5
// An HDF5 handle closed when it goes out of scope.
class Handle
{
public:
  Handle(hid_t id, herr_t (*close)(hid_t))
    : m_Id(id)
    , m_Close(close)
  {}
  ~Handle()
  {
    if (m_Id >= 0)
    {
      m_Close(m_Id);
    }
  }
  Handle(const Handle &) = delete;
  Handle &
  operator=(const Handle &) = delete;
  hid_t
  get() const
  {
    return m_Id;
  }

private:
  hid_t m_Id;
  herr_t (*m_Close)(hid_t);
};

// Silences HDF5's own error printing while a file is read; our messages say what went wrong.
class QuietHdf5
{
public:
  QuietHdf5()
  {
    H5Eget_auto2(H5E_DEFAULT, &m_Function, &m_Data);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, m_Function, m_Data); }

private:
  H5E_auto2_t m_Function = nullptr;
  void *      m_Data = nullptr;
};

// Whether every link along `path` ("/a/b/c") exists.
bool
Exists(hid_t file, const std::string & path)
{
  std::string        prefix;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '/');)
  {
    if (part.empty())
    {
      continue;
    }
    prefix += "/" + part;
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0)
    {
      return false;
    }
  }
  return true;
}

// A numeric dataset read, converted to T, into the memory that `destination(dims)` returns for its
// dimensions (destination checks them and throws when they do not suit). Read straight into an image, a
// large stack is held once.
template<typename T, typename TDestination>
void
ReadDatasetInto(hid_t file, const std::string & fileName, const std::string & path, TDestination destination)
{
  Handle dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (dataset.get() < 0)
  {
    Fail(fileName, path, "not a dataset");
  }
  Handle            type(H5Dget_type(dataset.get()), H5Tclose);
  const H5T_class_t kind = H5Tget_class(type.get());
  if (kind != H5T_INTEGER && kind != H5T_FLOAT)
  {
    Fail(fileName, path, "does not hold numbers");
  }
  // libhdf5 reads a damaged file's odd number types or short storage past its buffers (found by fuzzing): numbers
  // of 1 to 8 bytes only, and contiguous or compact storage that holds every value.
  const std::size_t bytesPerValue = H5Tget_size(type.get());
  if (bytesPerValue != 1 && bytesPerValue != 2 && bytesPerValue != 4 && bytesPerValue != 8)
  {
    Fail(fileName, path, "holds " + std::to_string(bytesPerValue) + "-byte numbers; 1, 2, 4 or 8 bytes expected");
  }
  Handle             space(H5Dget_space(dataset.get()), H5Sclose);
  const hssize_t     points = H5Sget_simple_extent_npoints(space.get());
  Handle             creation(H5Dget_create_plist(dataset.get()), H5Pclose);
  const H5D_layout_t layout = H5Pget_layout(creation.get());
  const double       nominal = double(points) * double(bytesPerValue);
  const double       stored = double(H5Dget_storage_size(dataset.get()));
  if (points > 0 && (layout == H5D_CONTIGUOUS || layout == H5D_COMPACT) && stored < nominal)
  {
    Fail(fileName, path, "its stored values are fewer than its shape says (damaged or truncated)");
  }
  // Chunked storage may be compressed, or leave chunks unwritten (read as the fill value); more than 1024 times
  // the bytes stored (and 64 MiB) is no measured scan but a damaged shape, refused before it is allocated.
  if (points > 0 && layout == H5D_CHUNKED && nominal > 1024.0 * stored + 64.0 * (1 << 20))
  {
    Fail(fileName,
         path,
         "its shape says " + std::to_string(points) + " values but it stores only " +
           std::to_string(static_cast<long long>(stored)) + " bytes (damaged, or a dataset mostly never written)");
  }
  // A virtual dataset stores nothing itself: its shape may claim terabytes of missing files' fill values, and
  // libhdf5 recurses without end on one that maps itself (both found by fuzzing). DXchange writers store data.
  if (layout == H5D_VIRTUAL)
  {
    Fail(fileName, path, "is a virtual dataset (mapped from other datasets); only stored data is read");
  }
  const int            rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)), 0);
  if (rank > 0)
  {
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  }
  std::size_t count = 1; // a shape whose size overflows is a damaged file's
  for (const hsize_t extent : dims)
  {
    if (extent != 0 && count > std::numeric_limits<std::size_t>::max() / sizeof(T) / extent)
    {
      Fail(fileName, path, "has a shape of more values than memory can address (damaged)");
    }
    count *= static_cast<std::size_t>(extent);
  }
  T *         values = destination(dims);
  const hid_t memoryType = std::is_same_v<T, float> ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
  if (points > 0 && H5Dread(dataset.get(), memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
  {
    Fail(fileName, path, "cannot read its values");
  }
}

// A small numeric dataset: its dimensions and values.
std::vector<double>
ReadDataset(hid_t file, const std::string & fileName, const std::string & path, std::vector<hsize_t> & dims)
{
  std::vector<double> values;
  ReadDatasetInto<double>(file, fileName, path, [&](const std::vector<hsize_t> & d) {
    dims = d;
    std::size_t n = 1;
    for (hsize_t e : d)
    {
      n *= static_cast<std::size_t>(e);
    }
    values.resize(n);
    return values.data();
  });
  return values;
}

// The string attribute `name` of the object at `path`, or "" when it has none (or no value, or no text).
std::string
TextAttribute(hid_t file, const std::string & fileName, const std::string & path, const char * name)
{
  Handle object(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose);
  if (object.get() < 0 || H5Aexists(object.get(), name) <= 0)
  {
    return "";
  }
  Handle attribute(H5Aopen(object.get(), name, H5P_DEFAULT), H5Aclose);
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING)
  {
    return "";
  }
  // H5Aread writes every value: several would overrun the one read here (found by fuzzing).
  Handle         space(H5Aget_space(attribute.get()), H5Sclose);
  const hssize_t values = H5Sget_simple_extent_npoints(space.get());
  if (values == 0)
  {
    return "";
  }
  if (values != 1)
  {
    Fail(fileName, path + " " + name, "holds " + std::to_string(values) + " texts; one expected");
  }
  std::string text;
  if (H5Tis_variable_str(type.get()) > 0)
  {
    Handle memoryType(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memoryType.get(), H5T_VARIABLE);
    char * value = nullptr;
    if (H5Aread(attribute.get(), memoryType.get(), &value) >= 0 && value != nullptr)
    {
      text = value;
      H5free_memory(value);
    }
  }
  else
  {
    std::vector<char> value(H5Tget_size(type.get()) + 1, '\0');
    Handle            memoryType(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memoryType.get(), value.size());
    if (H5Aread(attribute.get(), memoryType.get(), value.data()) >= 0)
    {
      text = value.data();
    }
  }
  return Trim(text);
}

// mm per unit of a length's "units" attribute; 1 (mm) when absent.
double
MillimetresPer(const std::string & units, const std::string & file, const std::string & path)
{
  const std::string u = Lower(units);
  if (u.empty() || u == "mm" || u == "millimeter" || u == "millimeters" || u == "millimetre" || u == "millimetres")
  {
    return 1.0;
  }
  if (u == "um" || u == "micron" || u == "microns" || u == "micrometer" || u == "micrometers" || u == "\xc2\xb5m")
  {
    return 1e-3;
  }
  if (u == "nm")
  {
    return 1e-6;
  }
  if (u == "cm")
  {
    return 10.0;
  }
  if (u == "m" || u == "meter" || u == "meters" || u == "metre" || u == "metres")
  {
    return 1000.0;
  }
  Fail(file, path + " units", "unknown length unit '" + units + "' (mm, um, nm, cm or m)");
}
#endif

// ---- Nikon .xtekct ----

// The key=value lines of the [XTekCT] section.
std::map<std::string, std::string>
ReadXtekSection(const std::string & path)
{
  std::ifstream in(path);
  if (!in)
  {
    Fail(path, "", "cannot read the file");
  }
  std::map<std::string, std::string> keys;
  std::string                        section;
  bool                               found = false;
  for (std::string line; std::getline(in, line);)
  {
    line = Trim(line);
    if (line.empty() || line[0] == ';' || line[0] == '#')
    {
      continue;
    }
    if (line.front() == '[' && line.back() == ']')
    {
      section = Lower(Trim(line.substr(1, line.size() - 2)));
      found = found || section == "xtekct";
      continue;
    }
    const auto equals = line.find('=');
    if (section == "xtekct" && equals != std::string::npos)
    {
      keys[Trim(line.substr(0, equals))] = Trim(line.substr(equals + 1));
    }
  }
  if (!found)
  {
    Fail(path, "[XTekCT]", "no such section; not an .xtekct file");
  }
  return keys;
}

// The angles (degrees) of a Nikon angle file: `header` lines, then one line per projection whose first two
// numbers are its index and its angle (blanks, tabs, commas or colons between them).
std::vector<double>
ReadNikonAngles(const std::string & path, int header, std::size_t views)
{
  std::ifstream in(path);
  if (!in)
  {
    Fail(path, "", "cannot read the file");
  }
  std::vector<double> angles;
  int                 lineNumber = 0;
  for (std::string line; std::getline(in, line);)
  {
    if (++lineNumber <= header)
    {
      continue;
    }
    std::replace_if(line.begin(), line.end(), [](char c) { return c == ',' || c == ':' || c == '\t'; }, ' ');
    std::istringstream words(line);
    std::string        index, angle;
    if (!(words >> index))
    {
      continue; // a blank line
    }
    if (!(words >> angle))
    {
      Fail(path, "line " + std::to_string(lineNumber), "no angle after the projection number '" + index + "'");
    }
    Number(path, "line " + std::to_string(lineNumber), index);
    angles.push_back(Number(path, "line " + std::to_string(lineNumber), angle));
  }
  if (angles.size() != views)
  {
    Fail(path,
         "",
         std::to_string(angles.size()) + " angles for " + std::to_string(views) +
           " projections (Projections in the .xtekct file)");
  }
  return angles;
}

} // namespace

MBIRScanReader::Scan
MBIRScanReader::ReadTiffFolder(const std::string & folderName, const std::string & sidecarName, const Options & options)
{
  const std::string & file = sidecarName;
  std::ifstream       in(sidecarName);
  if (!IsFile(sidecarName) || !in)
  {
    Fail(file, "", "no such file");
  }
  Json sidecar;
  try
  {
    sidecar = Json::parse(in);
  }
  catch (const Json::exception & e)
  {
    Fail(file, "", std::string("not valid JSON: ") + e.what());
  }
  if (!sidecar.is_object())
  {
    Fail(file, "", "must be a JSON object of keys (README \"Real scanner data: files\")");
  }
  static const std::vector<std::string> known = {
    "geometry",   "folder",          "projections",          "angles",          "angles_file", "angle_unit",
    "pixel_size", "detector_offset", "source_detector_dist", "source_iso_dist", "dark",        "bright",
    "comment"
  };
  for (const auto & item : sidecar.items())
  {
    if (std::find(known.begin(), known.end(), item.key()) == known.end())
    {
      Fail(file, item.key(), "unknown key");
    }
  }
  const fs::path    sidecarFolder = fs::path(sidecarName).parent_path();
  const std::string kind = JsonText(sidecar, file, "geometry", "");
  if (kind != "parallel" && kind != "cone")
  {
    Fail(file, "geometry", "must be \"parallel\" or \"cone\", got \"" + kind + "\"");
  }
  fs::path folder = folderName;
  if (folder.empty())
  {
    folder = sidecar.contains("folder") ? sidecarFolder / JsonText(sidecar, file, "folder", "") : sidecarFolder;
  }
  if (folder.empty())
  {
    folder = ".";
  }
  if (!IsFolder(folder))
  {
    Fail(file, "folder", "'" + folder.string() + "' is not a folder");
  }

  // Angles: inline or in a file, exactly one of the two, with an explicit unit.
  if (sidecar.contains("angles") == sidecar.contains("angles_file"))
  {
    Fail(
      file, "angles", "give either \"angles\" (an array) or \"angles_file\" (a JSON or text file), not both or none");
  }
  std::vector<double> angles = sidecar.contains("angles")
                                 ? JsonNumbers(sidecar["angles"], file, "angles")
                                 : ReadAngleFile(sidecarFolder / JsonText(sidecar, file, "angles_file", ""), file);
  const std::string   unit = JsonText(sidecar, file, "angle_unit", "");
  if (unit != "degree" && unit != "radian")
  {
    Fail(file, "angle_unit", "must be \"degree\" or \"radian\", got \"" + unit + "\"");
  }
  angles = Radians(angles, unit == "degree" ? kDegree : 1.0, options.ReverseRotation);

  if (!sidecar.contains("pixel_size"))
  {
    Fail(file, "pixel_size", "missing (the detector pitch in mm: a number or [channel, row])");
  }
  const std::vector<double> pixel = JsonNumbers(sidecar["pixel_size"], file, "pixel_size");
  if (pixel.empty() || pixel.size() > 2 || !(pixel.front() > 0.0) || !(pixel.back() > 0.0))
  {
    Fail(file, "pixel_size", "must be one or two positive numbers of mm, got " + sidecar["pixel_size"].dump());
  }
  std::vector<double> offset = { 0.0, 0.0 };
  if (sidecar.contains("detector_offset"))
  {
    offset = JsonNumbers(sidecar["detector_offset"], file, "detector_offset");
    if (offset.size() != 2)
    {
      Fail(file, "detector_offset", "must be [channel, row] in mm, got " + sidecar["detector_offset"].dump());
    }
  }
  double sourceDetector = 0.0, sourceIso = 0.0;
  if (kind == "cone")
  {
    sourceDetector = JsonPositive(sidecar, file, "source_detector_dist");
    sourceIso = JsonPositive(sidecar, file, "source_iso_dist");
  }
  else if (sidecar.contains("source_detector_dist") || sidecar.contains("source_iso_dist"))
  {
    Fail(file,
         sidecar.contains("source_iso_dist") ? "source_iso_dist" : "source_detector_dist",
         "does not apply to a parallel geometry");
  }

  // The files: dark and bright frames are left out of the projections.
  std::vector<fs::path> dark, bright;
  if (sidecar.contains("dark"))
  {
    dark = FilesMatching(folder, JsonText(sidecar, file, "dark", ""));
    if (dark.empty())
    {
      Fail(file, "dark", "no file in '" + folder.string() + "' matches \"" + sidecar["dark"].get<std::string>() + "\"");
    }
  }
  if (sidecar.contains("bright"))
  {
    bright = FilesMatching(folder, JsonText(sidecar, file, "bright", ""));
    if (bright.empty())
    {
      Fail(file,
           "bright",
           "no file in '" + folder.string() + "' matches \"" + sidecar["bright"].get<std::string>() + "\"");
    }
  }
  const std::string     pattern = JsonText(sidecar, file, "projections", "*.tif");
  std::vector<fs::path> projections;
  for (const fs::path & p : FilesMatching(folder, pattern))
  {
    if (std::find(dark.begin(), dark.end(), p) == dark.end() &&
        std::find(bright.begin(), bright.end(), p) == bright.end())
    {
      projections.push_back(p);
    }
  }
  if (projections.empty())
  {
    Fail(file, "projections", "no file in '" + folder.string() + "' matches \"" + pattern + "\"");
  }
  if (projections.size() != angles.size())
  {
    Fail(file,
         sidecar.contains("angles") ? "angles" : "angles_file",
         std::to_string(angles.size()) + " angles for " + std::to_string(projections.size()) + " projection files (\"" +
           pattern + "\" in '" + folder.string() + "')");
  }

  Scan scan;
  scan.Projections = StackTiffs(projections, "projection", nullptr);
  const ImageType::SizeType size = scan.Projections->GetLargestPossibleRegion().GetSize();
  if (!dark.empty())
  {
    scan.Dark = StackTiffs(dark, "dark", &size);
  }
  if (!bright.empty())
  {
    scan.Bright = StackTiffs(bright, "bright", &size);
  }
  scan.Geometry = MakeGeometry(
    size[0], size[1], Pair(pixel.front(), pixel.back()), Pair(offset[0], offset[1]), angles, sourceDetector, sourceIso);
  scan.Notes.push_back(std::to_string(projections.size()) + " projections \"" + pattern + "\" from '" +
                       folder.string() + "', sorted by name; angles in " + unit + "s" +
                       (options.ReverseRotation ? ", negated" : ""));
  Finish(scan, file);
  return scan;
}

bool
MBIRScanReader::HasDXchange()
{
#ifdef MBIR_HAVE_HDF5
  return true;
#else
  return false;
#endif
}

MBIRScanReader::Scan
MBIRScanReader::ReadDXchange(const std::string & path, const Options & options)
{
#ifndef MBIR_HAVE_HDF5
  (void)options;
  Fail(path, "", "this build of ITKMBIR has no HDF5 support (reconfigure with libhdf5 installed)");
#else
  if (!IsFile(path))
  {
    Fail(path, "", "no such file");
  }
  QuietHdf5 quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0)
  {
    Fail(path, "", "not an HDF5 file");
  }
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.get() < 0)
  {
    Fail(path, "", "cannot open the HDF5 file");
  }
  Scan scan;
  auto readStack = [&](const std::string & dataset, const std::size_t * channelsRows) -> ImageType::Pointer {
    ImageType::Pointer image;
    ReadDatasetInto<float>(file.get(), path, dataset, [&](const std::vector<hsize_t> & dims) {
      if (dims.size() != 3 || dims[0] == 0 || dims[1] == 0 || dims[2] == 0)
      {
        std::ostringstream shape;
        for (std::size_t d = 0; d < dims.size(); ++d)
        {
          shape << (d ? ", " : "") << dims[d];
        }
        Fail(path, dataset, "has shape [" + shape.str() + "]; (frames, rows, channels) expected");
      }
      if (channelsRows && (dims[2] != channelsRows[0] || dims[1] != channelsRows[1]))
      {
        std::ostringstream text;
        text << "has frames of " << dims[1] << " rows x " << dims[2] << " channels but /exchange/data has "
             << channelsRows[1] << " x " << channelsRows[0];
        Fail(path, dataset, text.str());
      }
      // (frames, rows, channels), channels fastest: the memory order of an image [channel, row, frame].
      image = NewStack(dims[2], dims[1], dims[0]);
      return image->GetBufferPointer();
    });
    return image;
  };
  if (!Exists(file.get(), "/exchange/data"))
  {
    Fail(path, "/exchange/data", "missing (the projections of a DXchange file)");
  }
  scan.Projections = readStack("/exchange/data", nullptr);
  const ImageType::SizeType size = scan.Projections->GetLargestPossibleRegion().GetSize();
  const std::size_t         channelsRows[2] = { size[0], size[1] };
  if (Exists(file.get(), "/exchange/data_dark"))
  {
    scan.Dark = readStack("/exchange/data_dark", channelsRows);
  }
  if (Exists(file.get(), "/exchange/data_white"))
  {
    scan.Bright = readStack("/exchange/data_white", channelsRows);
  }

  if (!Exists(file.get(), "/exchange/theta"))
  {
    Fail(path, "/exchange/theta", "missing (the angle of every projection)");
  }
  std::vector<hsize_t> dims;
  std::vector<double>  theta = ReadDataset(file.get(), path, "/exchange/theta", dims);
  if (dims.size() != 1 || theta.size() != size[2])
  {
    Fail(path,
         "/exchange/theta",
         std::to_string(theta.size()) + " angles for " + std::to_string(size[2]) + " projections in /exchange/data");
  }
  const std::string thetaUnits = Lower(TextAttribute(file.get(), path, "/exchange/theta", "units"));
  double            unit = kDegree;
  if (thetaUnits == "rad" || thetaUnits == "radian" || thetaUnits == "radians")
  {
    unit = 1.0;
  }
  else if (!thetaUnits.empty() && thetaUnits != "deg" && thetaUnits != "degree" && thetaUnits != "degrees")
  {
    Fail(path, "/exchange/theta units", "unknown angle unit '" + thetaUnits + "' (deg or rad)");
  }
  scan.Notes.push_back(std::string("/exchange/theta in ") + (unit == 1.0 ? "radians" : "degrees") +
                       (thetaUnits.empty() ? " (no units attribute: DXchange's degrees)" : "") +
                       (options.ReverseRotation ? ", negated" : ""));
  const std::vector<double> angles = Radians(theta, unit, options.ReverseRotation);

  // The pitch: pixel_size (one or two values), or x_pixel_size and y_pixel_size, else the option.
  const std::string detector = "/measurement/instrument/detector/";
  double            pitch[2] = { options.PixelSize, options.PixelSize };
  std::string       pitchFrom = "the given pixel size";
  if (Exists(file.get(), detector + "pixel_size") ||
      (Exists(file.get(), detector + "x_pixel_size") && Exists(file.get(), detector + "y_pixel_size")))
  {
    const bool        single = Exists(file.get(), detector + "pixel_size");
    const std::string names[2] = { single ? detector + "pixel_size" : detector + "x_pixel_size",
                                   single ? detector + "pixel_size" : detector + "y_pixel_size" };
    for (int d = 0; d < 2; ++d)
    {
      const std::vector<double> values = ReadDataset(file.get(), path, names[d], dims);
      if (values.empty() || values.size() > 2 || !(values[0] > 0.0) || !(values.back() > 0.0))
      {
        Fail(path, names[d], "must hold one or two positive numbers");
      }
      const std::string units = TextAttribute(file.get(), path, names[d], "units");
      pitch[d] = (single ? values[std::min<std::size_t>(d, values.size() - 1)] : values[0]) *
                 MillimetresPer(units, path, names[d]);
      if (units.empty())
      {
        pitchFrom = names[d] + " (no units attribute: taken as mm)";
      }
      else
      {
        pitchFrom = names[d] + " in " + units;
      }
    }
  }
  else if (!(options.PixelSize > 0.0))
  {
    Fail(path, detector + "pixel_size", "missing, and no pixel size was given (the detector pitch in mm)");
  }
  scan.Notes.push_back("detector pitch from " + pitchFrom);
  scan.Geometry = MakeGeometry(size[0], size[1], Pair(pitch[0], pitch[1]), Pair(0.0, 0.0), angles, 0.0, 0.0);
  Finish(scan, path);
  return scan;
#endif
}

MBIRScanReader::Scan
MBIRScanReader::ReadXtekCT(const std::string & path, const Options & options)
{
  if (!IsFile(path))
  {
    Fail(path, "", "no such file");
  }
  const std::map<std::string, std::string> keys = ReadXtekSection(path);
  auto                                     text = [&](const std::string & key) -> std::string {
    const auto found = keys.find(key);
    if (found == keys.end() || found->second.empty())
    {
      Fail(path, key, "missing from the [XTekCT] section");
    }
    return found->second;
  };
  auto number = [&](const std::string & key) { return Number(path, key, text(key)); };
  auto optional = [&](const std::string & key) { return keys.count(key) ? Number(path, key, keys.at(key)) : 0.0; };
  auto positive = [&](const std::string & key) {
    const double value = number(key);
    if (!(value > 0.0))
    {
      Fail(path, key, "must be positive, got " + text(key));
    }
    return value;
  };
  auto count = [&](const std::string & key) {
    const double value = positive(key);
    if (value != std::floor(value))
    {
      Fail(path, key, "must be a whole number, got " + text(key));
    }
    // Counts index the engine's int arrays (and a larger double would not even convert to size_t).
    if (value > static_cast<double>(std::numeric_limits<int>::max()))
    {
      Fail(path, key, "must be at most 2147483647, got " + text(key));
    }
    return static_cast<std::size_t>(value);
  };
  if (keys.count("Units") && Lower(keys.at("Units")) != "mm")
  {
    Fail(path, "Units", "only mm is supported, got '" + keys.at("Units") + "'");
  }
  const std::string name = text("Name");
  const std::size_t views = count("Projections"), channels = count("DetectorPixelsX"), rows = count("DetectorPixelsY");
  const double      du = positive("DetectorPixelSizeX"), dv = positive("DetectorPixelSizeY");
  const double      sourceIso = positive("SrcToObject"), sourceDetector = positive("SrcToDetector");
  const fs::path    folder = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();

  // The measured angles of _ctdata.txt, else those of <Name>.ang, else the nominal InitialAngle + v AngularStep.
  std::vector<double> angles;
  std::string         anglesFrom;
  for (const auto & [file, header] :
       { std::make_pair(folder / "_ctdata.txt", 3), std::make_pair(folder / (name + ".ang"), 1) })
  {
    if (IsFile(file))
    {
      angles = ReadNikonAngles(file.string(), header, views);
      anglesFrom = "the second column of " + file.filename().string();
      break;
    }
  }
  if (angles.empty())
  {
    const double start = optional("InitialAngle"), step = number("AngularStep");
    for (std::size_t v = 0; v < views; ++v)
    {
      angles.push_back(start + step * static_cast<double>(v));
    }
    anglesFrom = "InitialAngle + v AngularStep";
  }
  angles = Radians(angles, kDegree, options.ReverseRotation);

  // Projections <Name>_0001.tif ... <Name>_NNNN.tif next to the .xtekct file.
  std::vector<fs::path> files;
  for (std::size_t v = 1; v <= views; ++v)
  {
    char number[32];
    std::snprintf(number, sizeof(number), "_%04zu.tif", v);
    files.push_back(folder / (name + number));
    if (!IsFile(files.back()))
    {
      Fail(path,
           "Projections",
           "says " + std::to_string(views) + " projections but '" + files.back().string() +
             "' does not exist (files <Name>_0001.tif ... expected next to the .xtekct file)");
    }
  }
  Scan                      scan;
  const ImageType::SizeType expected = { { channels, rows, views } };
  scan.Projections = StackTiffs(files, "projection of '" + path + "' (DetectorPixelsX x DetectorPixelsY)", &expected);
  // Nikon's DetectorOffsetX/Y displace the detector (mm); the central ray then hits it that far the other way.
  const double offsetX = optional("DetectorOffsetX"), offsetY = optional("DetectorOffsetY");
  scan.Geometry =
    MakeGeometry(channels, rows, Pair(du, dv), Pair(-offsetX, -offsetY), angles, sourceDetector, sourceIso);
  scan.Notes.push_back("angles from " + anglesFrom + ", degrees" +
                       std::string(options.ReverseRotation ? ", negated" : "") +
                       "; detector offset -(DetectorOffsetX, DetectorOffsetY) mm");
  if (optional("ObjectOffsetX") != 0.0)
  {
    scan.Notes.push_back("ObjectOffsetX = " + keys.at("ObjectOffsetX") + " is not used");
  }
  Finish(scan, path);
  return scan;
}

} // end namespace itk
