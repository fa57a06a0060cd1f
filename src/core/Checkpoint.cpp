#include "mbir/Checkpoint.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace mbir {

namespace {

constexpr char          kMagic[8] = { 'M', 'B', 'I', 'R', 'C', 'K', 'P', 'T' };
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kByteOrder = 0x01020304; // reads back otherwise on a machine of the other byte order

std::uint64_t
mix(std::uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Writes a checkpoint's fields in order through one POSIX file, fingerprinting every byte for the trailer.
class FieldWriter
{
public:
  FieldWriter(std::string path, int fd)
    : m_Path(std::move(path))
    , m_Fd(fd)
  {}
  void
  bytes(const void * data, std::size_t size)
  {
    m_Sum.add(data, size);
    raw(data, size);
  }
  void
  raw(const void * data, std::size_t size)
  {
    const char * p = static_cast<const char *>(data);
    while (size > 0)
    {
      const ssize_t written = ::write(m_Fd, p, std::min<std::size_t>(size, std::size_t(1) << 30));
      if (written < 0 && errno == EINTR)
        continue;
      if (written <= 0)
        throw std::runtime_error("checkpoint '" + m_Path + "': cannot write: " + std::strerror(errno));
      p += written;
      size -= static_cast<std::size_t>(written);
    }
  }
  template<typename T>
  void
  value(const T & v)
  {
    bytes(&v, sizeof v);
  }
  void
  text(const std::string & s)
  {
    value<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  std::uint64_t
  sum() const
  {
    return m_Sum.value();
  }

private:
  std::string m_Path;
  int         m_Fd;
  Fingerprint m_Sum;
};

// Reads what FieldWriter wrote, refusing to read past the end of the file.
class FieldReader
{
public:
  FieldReader(std::string path, std::FILE * file, std::uint64_t size)
    : m_Path(std::move(path))
    , m_File(file)
    , m_Left(size)
  {}
  [[noreturn]] void
  fail(const std::string & what) const
  {
    throw std::runtime_error("checkpoint '" + m_Path + "': " + what);
  }
  void
  bytes(void * data, std::size_t size, bool summed = true)
  {
    if (size > m_Left || std::fread(data, 1, size, m_File) != size)
      fail("the file ends early (truncated or not a complete checkpoint)");
    m_Left -= size;
    if (summed)
      m_Sum.add(data, size);
  }
  template<typename T>
  T
  value()
  {
    T v{};
    bytes(&v, sizeof v);
    return v;
  }
  std::string
  text()
  {
    const auto size = value<std::uint64_t>();
    if (size > m_Left)
      fail("a text field is longer than the file (corrupt)");
    std::string s(size, '\0');
    bytes(s.data(), size);
    return s;
  }
  std::uint64_t
  left() const
  {
    return m_Left;
  }
  std::uint64_t
  sum() const
  {
    return m_Sum.value();
  }

private:
  std::string   m_Path;
  std::FILE *   m_File;
  std::uint64_t m_Left;
  Fingerprint   m_Sum;
};

void
writeFields(FieldWriter & out, const ReconCheckpoint & c)
{
  out.bytes(kMagic, sizeof kMagic);
  out.value(kVersion);
  out.value(kByteOrder);
  out.value(c.inputsKey);
  out.value(c.geometryKey);
  out.value(c.parametersKey);
  out.value(c.shape.rows);
  out.value(c.shape.cols);
  out.value(c.shape.slices);
  out.value(c.state.iteration);
  out.value(c.state.subsetsDone);
  out.value(c.scheduledIterations);
  out.value(c.state.changed);
  out.value(c.state.alphaSum);
  out.text(c.state.randomState);
  out.value(c.state.sigmaYFactor);
  out.value<std::uint8_t>(c.state.fitTested);
  out.text(c.regularizationNote);
  out.value<std::uint64_t>(c.state.log.size());
  for (const IterationLog & e : c.state.log)
  {
    out.value(e.iteration);
    out.value(e.numSubsets);
    for (const double v : { e.changePct, e.forwardLoss, e.priorLoss, e.alpha, e.seconds, e.totalCost })
      out.value(v);
  }
  out.value<std::uint64_t>(c.volume.size());
  out.bytes(c.volume.data(), c.volume.size() * sizeof(float));
}

ReconCheckpoint
readFields(FieldReader & in)
{
  char magic[sizeof kMagic];
  in.bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    in.fail("not an MBIR checkpoint (written by mbir-recon --checkpoint or the filter's CheckpointFileName)");
  const auto version = in.value<std::uint32_t>();
  if (in.value<std::uint32_t>() != kByteOrder)
    in.fail("written on a machine of the other byte order");
  if (version != kVersion)
    in.fail("format version " + std::to_string(version) + ", this build reads version " + std::to_string(kVersion));
  ReconCheckpoint c;
  c.inputsKey = in.value<std::uint64_t>();
  c.geometryKey = in.value<std::uint64_t>();
  c.parametersKey = in.value<std::uint64_t>();
  c.shape.rows = in.value<int>();
  c.shape.cols = in.value<int>();
  c.shape.slices = in.value<int>();
  c.state.iteration = in.value<int>();
  c.state.subsetsDone = in.value<int>();
  c.scheduledIterations = in.value<int>();
  c.state.changed = in.value<double>();
  c.state.alphaSum = in.value<double>();
  c.state.randomState = in.text();
  c.state.sigmaYFactor = in.value<double>();
  c.state.fitTested = in.value<std::uint8_t>() != 0;
  c.regularizationNote = in.text();
  const auto entries = in.value<std::uint64_t>();
  if (entries > in.left() / 8)
    in.fail("a log longer than the file (corrupt)");
  for (std::uint64_t i = 0; i < entries; ++i)
  {
    IterationLog e;
    e.iteration = in.value<int>();
    e.numSubsets = in.value<int>();
    for (double * v : { &e.changePct, &e.forwardLoss, &e.priorLoss, &e.alpha, &e.seconds, &e.totalCost })
      *v = in.value<double>();
    c.state.log.push_back(e);
  }
  const auto values = in.value<std::uint64_t>();
  if (c.shape.rows <= 0 || c.shape.cols <= 0 || c.shape.slices <= 0 || values != c.shape.size())
    in.fail("its volume does not match its shape " + c.shape.str() + " (corrupt)");
  if (values > in.left() / sizeof(float))
    in.fail("the file ends early (truncated or not a complete checkpoint)");
  c.volume.resize(values);
  in.bytes(c.volume.data(), values * sizeof(float));
  return c;
}

} // namespace

Fingerprint &
Fingerprint::add(const void * data, std::size_t bytes)
{
  const unsigned char * p = static_cast<const unsigned char *>(data);
  std::size_t           i = 0;
  for (; i + 8 <= bytes; i += 8)
  {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    m_State = (m_State ^ mix(word + i)) * 0x9e3779b97f4a7c15ULL;
  }
  std::uint64_t tail = 0;
  if (bytes > i)
    std::memcpy(&tail, p + i, bytes - i);
  m_State = (m_State ^ mix(tail ^ (bytes - i))) * 0x9e3779b97f4a7c15ULL;
  m_Bytes += bytes;
  return *this;
}

Fingerprint &
Fingerprint::add(const std::string & text)
{
  addValue<std::uint64_t>(text.size());
  return add(text.data(), text.size());
}

std::uint64_t
Fingerprint::value() const
{
  return mix(m_State ^ mix(m_Bytes));
}

namespace {

// The start of the names of the temporary files that this host's processes write the target through:
// ".NAME.partial-HOST-", then the writer's process id. The host is in the name because a process id only identifies a
// process on its own host, and a folder may be shared between hosts.
std::string
partialPrefix(const std::filesystem::path & target)
{
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0)
    host[0] = '\0';
  return "." + target.filename().string() + ".partial-" + host + "-";
}

// The folder the target and its temporary files are in.
std::filesystem::path
folderOf(const std::filesystem::path & target)
{
  return target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
}

} // namespace

void
removeStalePartialCheckpoints(const std::string & path)
{
  namespace fs = std::filesystem;
  const fs::path    target(path);
  const fs::path    folder = folderOf(target);
  const std::string prefix = partialPrefix(target);
  std::error_code   error;
  for (const fs::directory_entry & entry : fs::directory_iterator(folder, error))
  {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
      continue;
    const pid_t writer = static_cast<pid_t>(std::stol(digits));
    if (writer != ::getpid() && ::kill(writer, 0) != 0 && errno == ESRCH)
      fs::remove(entry.path(), error);
  }
}

void
writeCheckpoint(const std::string & path, const ReconCheckpoint & checkpoint)
{
  namespace fs = std::filesystem;
  const fs::path    target(path);
  const fs::path    folder = folderOf(target);
  const std::string prefix = partialPrefix(target);
  const std::string partial = (folder / (prefix + std::to_string(::getpid()))).string();
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("checkpoint '" + path + "': cannot create '" + partial + "': " + std::strerror(errno));
  try
  {
    FieldWriter out(path, fd);
    writeFields(out, checkpoint);
    const std::uint64_t sum = out.sum();
    out.raw(&sum, sizeof sum);
    if (::fsync(fd) != 0)
      throw std::runtime_error("checkpoint '" + path + "': cannot flush to disk: " + std::strerror(errno));
    if (::close(fd) != 0)
      throw std::runtime_error("checkpoint '" + path + "': cannot close: " + std::strerror(errno));
  }
  catch (...)
  {
    ::close(fd); // after a failed close, a second one fails harmlessly with EBADF
    ::unlink(partial.c_str());
    throw;
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0)
  {
    const std::string cause = std::strerror(errno);
    ::unlink(partial.c_str());
    throw std::runtime_error("checkpoint '" + path + "': cannot move into place: " + cause);
  }
  // The rename itself is durable once the folder's entry is on disk.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0)
  {
    ::fsync(dir);
    ::close(dir);
  }
}

ReconCheckpoint
readCheckpoint(const std::string & path)
{
  std::error_code     error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  if (error)
    throw std::runtime_error("checkpoint '" + path + "': cannot read: " + error.message());
  std::FILE * file = std::fopen(path.c_str(), "rb");
  if (!file)
    throw std::runtime_error("checkpoint '" + path + "': cannot open: " + std::strerror(errno));
  try
  {
    FieldReader     in(path, file, size);
    ReconCheckpoint checkpoint = readFields(in);
    const auto      expected = in.sum();
    std::uint64_t   sum = 0;
    in.bytes(&sum, sizeof sum, false);
    if (sum != expected)
      in.fail("its checksum does not match its contents (corrupt)");
    if (in.left() != 0)
      in.fail("data past the end of the checkpoint (corrupt)");
    std::fclose(file);
    return checkpoint;
  }
  catch (...)
  {
    std::fclose(file);
    throw;
  }
}

std::string
checkpointMismatch(const ReconCheckpoint & saved, const ReconCheckpoint & current)
{
  if (!(saved.shape == current.shape))
    return "its volume is " + saved.shape.str() + ", this recon's " + current.shape.str();
  if (saved.geometryKey != current.geometryKey)
    return "it was made with another geometry";
  if (saved.inputsKey != current.inputsKey)
    return "it was made from other projections, weights or proximal-map input";
  if (saved.parametersKey != current.parametersKey)
    return "it was made with other parameters (regularisation, prior, iterations, stop threshold, seed, "
           "positivity, granularity)";
  return {};
}

} // namespace mbir
