#pragma once
// What the command-line tools share besides their parameter table (mbirCommandLine.h): angles and lists,
// the device options, image and geometry files checked before use, progress for Slicer, and one way to report
// an error (a message naming the bad option or file, a non-zero exit status).

#include "mbirCommandLine.h"

#include "itkCommand.h"
#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageIOFactory.h"
#include "itkMBIRFilterSupport.h"
#include "itkMBIRGeometry.h"
#include "mbir/Devices.h"
#include "mbir/Metrics.h"
#include "mbir/ProcessGroup.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef MBIR_TOOL_FAULT_INJECTION
#  include "FaultInjection.h"
#endif

namespace mbirtool {

#ifdef MBIR_TOOL_FAULT_INJECTION
// Test builds of the tools only (mbir-*-faults, examples/tools/fault-test.sh): the filters run on one CPU device
// whose MBIR_FAULT_AT-th call fails (test/support/FaultInjection.h); at exit the tool says how many device calls it
// made and how many bytes it left allocated.
struct InjectedFaults
{
  std::shared_ptr<mbir::test::FaultPlan> plan = std::make_shared<mbir::test::FaultPlan>();
  std::shared_ptr<mbir::Backend>         device = mbir::makeCpuBackend();

  InjectedFaults()
  {
    if (const char * at = std::getenv("MBIR_FAULT_AT"))
      plan->failAt = std::atol(at);
  }
  ~InjectedFaults()
  {
    std::cerr << "fault injection: " << plan->calls.load() << " device calls, " << device->bytesInUse()
              << " bytes left allocated\n";
  }
};
inline InjectedFaults injectedFaults;
#endif

using ImageType = itk::Image<float, 3>;

// Pictures (mbir-view, --picture, --plot) are drawn with VTK (mbirPictures.h); a build without it refuses their
// options before any work.
inline void
requirePictures(const std::string & option)
{
#ifndef MBIR_HAVE_VTK
  throw std::runtime_error(option + ": this build of the tools has no VTK to draw with (Debian: apt-get install "
                                    "libvtk9-dev xvfb, then build again)");
#else
  (void)option;
#endif
}

// An angle in radians, written as a number or a multiple of pi: 1.5, pi, -pi/2, 2pi, 0.25*pi.
inline double
parseAngle(const std::string & option, const std::string & text)
{
  const std::size_t pi = text.find("pi");
  if (pi == std::string::npos)
  {
    return parseNumber(option, text, -1e6, 1e6);
  }
  std::string factor = text.substr(0, pi), divisor = text.substr(pi + 2);
  if (!factor.empty() && factor.back() == '*')
  {
    factor.pop_back();
  }
  const double scale = factor.empty() || factor == "+" ? 1.0
                       : factor == "-"                 ? -1.0
                                                       : parseNumber(option, factor, -1e6, 1e6);
  if (divisor.empty())
  {
    return scale * M_PI;
  }
  if (divisor[0] != '/')
  {
    throw UsageError(option + " needs an angle such as 1.5, pi, -pi/2 or 2pi, got '" + text + "'");
  }
  return scale * M_PI / parseNumber(option, divisor.substr(1), 1e-6, 1e6);
}

// Comma-separated numbers, or @FILE for numbers separated by commas, blanks or newlines in a text file.
inline std::vector<double>
parseList(const std::string & option, const std::string & text)
{
  std::string items = text;
  if (!text.empty() && text[0] == '@')
  {
    std::ifstream file(text.substr(1));
    if (!file)
    {
      throw UsageError(option + ": cannot read the list file '" + text.substr(1) + "'");
    }
    std::ostringstream content;
    content << file.rdbuf();
    items = content.str();
  }
  for (char & c : items)
  {
    if (c == ',' || c == '\n' || c == '\r' || c == '\t')
    {
      c = ' ';
    }
  }
  std::istringstream  words(items);
  std::vector<double> values;
  for (std::string word; words >> word;)
  {
    values.push_back(parseNumber(option, word, -1e30, 1e30));
  }
  if (values.empty())
  {
    throw UsageError(option + " needs at least one number, got '" + text + "'");
  }
  return values;
}

// --geometry FILE: the geometry JSON file a tool reads (written by mbir-geometry), required.
inline CommandLine::Option &
geometryOption(CommandLine & cl, std::string & path)
{
  return cl.required("--geometry", "FILE", "geometry JSON file (see mbir-geometry)", path)
    .file(Channel::Input, ".json")
    .label("Geometry file");
}

// --input FILE and --output FILE of a tool that turns projections into a volume (back projection, recon), required.
inline void
projectionsToVolumeOptions(CommandLine & cl, std::string & input, std::string & output)
{
  cl.required("--input", "FILE", "the projections; any ITK 3-D image format", input)
    .image(Channel::Input)
    .label("Projections");
  cl.required("--output", "FILE", "the volume; any ITK format, chosen by extension (.nrrd, .mha, .tif ...)", output)
    .image(Channel::Output)
    .label("Output volume");
}

// --devices SPEC and --use-gpu POLICY, declared on a tool's command line and applied to its filter: which
// devices one run spreads over (README "The ITK layer").
class DeviceOptions
{
public:
  explicit DeviceOptions(CommandLine & cl)
  {
    cl.group("Devices", "Which devices one run spreads over (README \"The ITK layer\")");
    cl.custom("--devices",
              "SPEC",
              "the devices to compute on: auto (every GPU, else the CPU devices that MBIR_NUM_CPU_DEVICES sets, "
              "default 1), a count N (the first N), or indices i,j,... (a single index as i,)",
              "auto",
              [this](const std::string & v) { m_Spec = v; })
      .xmlDefault("auto");
    cl.custom("--use-gpu",
              "POLICY",
              "automatic or full (GPUs when present, else the CPU) or none (the CPU even when GPUs are present)",
              "automatic",
              [this](const std::string & v) {
                try
                {
                  m_UseGpu = mbir::parseUseGpu(v);
                }
                catch (const std::invalid_argument &)
                {
                  throw UsageError("--use-gpu must be automatic, full or none, got '" + v + "'");
                }
              })
      .choices({ "automatic", "full", "none" })
      .label("Use GPU");
  }

  // The choice the options name; a UsageError naming --devices when the devices do not exist here.
  mbir::DeviceSelection
  Selection() const
  {
    mbir::DeviceSelection selection = Parse();
    selection.useGpu(m_UseGpu);
    if (selection.pinned())
    {
      try
      {
        selection.resolve(1, 1); // counts and indices do not depend on the problem's size
      }
      catch (const std::invalid_argument & e)
      {
        static const std::string prefix = "device selection: ";
        std::string              message = e.what();
        if (message.compare(0, prefix.size(), prefix) == 0)
        {
          message.erase(0, prefix.size());
        }
        throw UsageError("--devices " + m_Spec + ": " + message);
      }
    }
    return selection;
  }

  // Checks the choice before any file is read, so that a mistake fails at once.
  void
  Check() const
  {
    Selection();
  }

  template<typename TFilter>
  void
  Apply(TFilter * filter) const
  {
#ifdef MBIR_TOOL_FAULT_INJECTION
    filter->SetDevices({ std::make_shared<mbir::test::FaultyBackend>(injectedFaults.device, injectedFaults.plan) });
#else
    filter->ConfigureDevices(Selection());
#endif
  }

private:
  mbir::DeviceSelection
  Parse() const
  {
    const std::string help = "--devices must be auto, a count N or indices i,j,..., got '" + m_Spec + "'";
    if (m_Spec == "auto")
    {
      return mbir::DeviceSelection();
    }
    if (m_Spec.find(',') == std::string::npos)
    {
      if (m_Spec.empty() || m_Spec.find_first_not_of("0123456789") != std::string::npos)
      {
        throw UsageError(help);
      }
      return mbir::DeviceSelection::firstDevices(static_cast<int>(parseInteger("--devices", m_Spec, 1, 4096)));
    }
    std::vector<int>   indices;
    std::istringstream items(m_Spec);
    for (std::string item; std::getline(items, item, ',');)
    {
      if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
      {
        throw UsageError(help);
      }
      indices.push_back(static_cast<int>(parseInteger("--devices", item, 0, 4095)));
    }
    return mbir::DeviceSelection::atIndices(indices);
  }

  std::string  m_Spec = "auto";
  mbir::UseGpu m_UseGpu = mbir::UseGpu::Automatic;
};

// SIGINT or SIGTERM, once received (run() installs the handler): the filter being updated stops at its next
// progress step (a VCD subset), and run() exits with 128 + the signal. A second signal ends the tool at once.
inline volatile std::sig_atomic_t interruptSignal = 0;

extern "C" inline void
onInterrupt(int signal)
{
  if (interruptSignal != 0)
    std::_Exit(128 + signal);
  interruptSignal = signal;
}

// A file where the tool saves its state when stopped (a checkpoint), and the option that continues from it: the
// interrupt message names it when the stop wrote it.
struct SavedState
{
  std::string                     path, resumeOption;
  std::filesystem::file_time_type before{};
  bool                            existed = false;

  bool
  written() const
  {
    std::error_code error;
    const auto      now = std::filesystem::last_write_time(path, error);
    return !path.empty() && !error && (!existed || now != before);
  }
};
inline SavedState savedState;

inline void
noteSavedState(const std::string & path, const std::string & resumeOption)
{
  std::error_code error;
  savedState.path = path;
  savedState.resumeOption = resumeOption;
  savedState.before = std::filesystem::last_write_time(path, error);
  savedState.existed = !error;
}

// "m:ss", or "h:mm:ss" past an hour: the times a tool's progress shows.
inline std::string
Clock(double seconds)
{
  const long total = std::lround(std::max(0.0, seconds));
  char       text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
  return text;
}

// The time left of a long update, at the rate since its progress first moved: the work before that (a recon's set-up,
// its initial volume and Hessian, which no fraction counts) is left out, where counted in it had made a recon's first
// estimate several times too long. Unknown until progress has moved another 1% over at least a second.
class ProgressRate
{
public:
  // Takes note of a report; the first past 0 is the origin of the rate.
  void
  Observe(double fraction, double elapsed)
  {
    if (m_OriginFraction < 0.0 && fraction > 0.0)
    {
      m_OriginFraction = fraction;
      m_OriginElapsed = elapsed;
    }
  }
  // "m:ss" left at that rate, or "" while unknown.
  std::string
  Left(double fraction, double elapsed) const
  {
    const double moved = fraction - m_OriginFraction, seconds = elapsed - m_OriginElapsed;
    if (m_OriginFraction < 0.0 || moved < 0.01 || seconds < 1.0)
      return "";
    return Clock(seconds * (1.0 - fraction) / moved);
  }

private:
  double m_OriginFraction = -1.0, m_OriginElapsed = 0.0;
};

// The progress of a long filter update, on standard output, as MBIR_PROGRESS says:
// - bar (the default on a terminal): one line redrawn in place,
//   "MBIR [#####-----]  50%  iteration 8/15  0:12 elapsed, 0:12 left", ended with a newline; left out under
//   --verbose, whose iteration lines would break it;
// - lines: a plain line every 10% ("MBIR: 50% (iteration 8/15) after 0:12, about 0:12 left"), for log files;
// - xml (the default when standard output is not a terminal, since Slicer reads it through a pipe): Slicer's CLI
//   protocol, <filter-start>, <filter-progress>F</filter-progress> (0..1, at most every percent), <filter-end>;
// - none.
// At every step, an interrupt (interruptSignal) asks the filter to stop.
class ToolProgress
{
public:
  enum class Style
  {
    None,
    Bar,
    Lines,
    Xml
  };

  // The style MBIR_PROGRESS asks for (auto or unset: a bar on a terminal, Slicer's XML when Slicer runs the tool,
  // which sets SLICER_HOME for its CLI modules, else plain lines for log files); another value is refused.
  static Style
  StyleFromEnvironment(bool terminal = isatty(fileno(stdout)) != 0)
  {
    const char *      setting = std::getenv("MBIR_PROGRESS");
    const std::string value = setting ? setting : "auto";
    if (value == "auto")
      return terminal ? Style::Bar : std::getenv("SLICER_HOME") ? Style::Xml : Style::Lines;
    for (const auto & [name, style] : { std::pair{ "bar", Style::Bar },
                                        std::pair{ "lines", Style::Lines },
                                        std::pair{ "xml", Style::Xml },
                                        std::pair{ "none", Style::None } })
    {
      if (value == name)
        return style;
    }
    throw std::invalid_argument("MBIR_PROGRESS must be auto, bar, lines, xml or none, got '" + value + "'");
  }

  template<typename TFilter>
  ToolProgress(TFilter * filter, std::string name, std::string comment, bool verbose = false)
    : m_Name(std::move(name))
    , m_Comment(std::move(comment))
    , m_Style(StyleFromEnvironment())
  {
    if (m_Style == Style::Bar && verbose)
      m_Style = Style::None;
    auto progress = itk::MemberCommand<ToolProgress>::New();
    progress->SetCallbackFunction(this, &ToolProgress::Progress);
    filter->AddObserver(itk::ProgressEvent(), progress);
    auto command = itk::SimpleMemberCommand<ToolProgress>::New();
    command->SetCallbackFunction(this, &ToolProgress::Start);
    filter->AddObserver(itk::StartEvent(), command);
    auto end = itk::SimpleMemberCommand<ToolProgress>::New();
    end->SetCallbackFunction(this, &ToolProgress::End);
    filter->AddObserver(itk::EndEvent(), end);
  }
  ~ToolProgress()
  {
    if (m_Style == Style::Bar && m_Drawn) // a failed or interrupted update: end the bar's line
      std::cout << std::endl;
  }

  // Adds "iteration k/N" (the one running) for a filter with GetIterationsDone() and GetMaxIterations().
  template<typename TFilter>
  void
  ShowIterations(const TFilter * filter)
  {
    m_Iteration = [filter] {
      const int most = filter->GetMaxIterations();
      return "iteration " + std::to_string(std::min(filter->GetIterationsDone() + 1, most)) + "/" +
             std::to_string(most);
    };
  }

private:
  double
  Elapsed() const
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_Start).count();
  }
  void
  Start()
  {
    m_Start = std::chrono::steady_clock::now();
    m_Last = -1.0;
    m_LastDrawn = -1.0;
    m_Drawn = false;
    m_Rate = ProgressRate();
    if (m_Style == Style::Xml)
      std::cout << "<filter-start>\n<filter-name>" << m_Name << "</filter-name>\n<filter-comment>" << m_Comment
                << "</filter-comment>\n</filter-start>" << std::endl;
  }
  void
  Progress(itk::Object * caller, const itk::EventObject &)
  {
    auto * filter = static_cast<itk::ProcessObject *>(caller);
    if (interruptSignal != 0)
      filter->AbortGenerateDataOn();
    const double fraction = std::clamp(static_cast<double>(filter->GetProgress()), 0.0, 1.0);
    const double elapsed = Elapsed();
    m_Rate.Observe(fraction, elapsed);
    switch (m_Style)
    {
      case Style::Xml:
        if (fraction < m_Last + 0.01 && fraction < 1.0)
          return;
        std::cout << "<filter-progress>" << fraction << "</filter-progress>" << std::endl;
        break;
      case Style::Lines:
      {
        // Every 10%; the end has its own line.
        if (fraction < 0.1 || fraction >= 1.0 || std::floor(10 * fraction) <= std::floor(10 * m_Last))
          return;
        const auto left = m_Rate.Left(fraction, elapsed);
        std::cout << m_Name << ": " << std::lround(100 * fraction) << "%"
                  << (m_Iteration ? " (" + m_Iteration() + ")" : "") << " after " << Clock(elapsed)
                  << (left.empty() ? "" : ", about " + left + " left") << std::endl;
        break;
      }
      case Style::Bar: // at most 10 redraws a second: when the percentage changes, and every second for the clock
        if (elapsed < m_LastDrawn + 0.1 ||
            (std::lround(100 * fraction) == std::lround(100 * m_Last) && elapsed < m_LastDrawn + 1.0))
          return;
        Draw(fraction, elapsed);
        break;
      case Style::None:
        return;
    }
    m_Last = fraction;
  }
  void
  Draw(double fraction, double elapsed)
  {
    constexpr int width = 30;
    const int     filled = static_cast<int>(fraction * width);
    const auto    left = m_Rate.Left(fraction, elapsed);
    // \r returns to the line's start, and ESC [ K clears what a longer line before left there.
    std::cout << '\r' << m_Name << " [" << std::string(filled, '#') << std::string(width - filled, '-') << "] "
              << std::setw(3) << std::lround(100 * fraction) << "%  " << (m_Iteration ? m_Iteration() + "  " : "")
              << Clock(elapsed) << " elapsed" << (left.empty() || fraction >= 1.0 ? "" : ", " + left + " left")
              << "\x1b[K" << std::flush;
    m_Drawn = true;
    m_LastDrawn = elapsed;
  }
  void
  End()
  {
    const double seconds = Elapsed();
    switch (m_Style)
    {
      case Style::Xml:
        std::cout << "<filter-end>\n<filter-name>" << m_Name << "</filter-name>\n<filter-time>" << seconds
                  << "</filter-time>\n</filter-end>" << std::endl;
        break;
      case Style::Lines:
        std::cout << m_Name << ": done after " << Clock(seconds) << std::endl;
        break;
      case Style::Bar:
        Draw(1.0, seconds);
        std::cout << std::endl;
        m_Drawn = false;
        break;
      case Style::None:
        break;
    }
  }

  std::string                           m_Name, m_Comment;
  Style                                 m_Style;
  std::chrono::steady_clock::time_point m_Start = std::chrono::steady_clock::now();
  double                                m_Last = -1.0, m_LastDrawn = -1.0;
  bool                                  m_Drawn = false;
  ProgressRate                          m_Rate;
  std::function<std::string()>          m_Iteration; // "iteration k/N", when shown
};

// An ITK exception's message without what means nothing to a tool's user: ITK's "ITK ERROR: ", the object's
// class and address, and the name of the method that threw ("WriteJSON: ").
inline std::string
description(const itk::ExceptionObject & e)
{
  static const std::regex prefix(R"(^(ITK ERROR: )?(\w+(::\w+)*\(0x[0-9a-fA-F]+\): )?([A-Z]\w*(::\w+)*: )?)");
  return std::regex_replace(std::string(e.GetDescription()), prefix, "", std::regex_constants::format_first_only);
}

// Checks that `path` (the value of `option`) is a readable 3-D image with one value per voxel and returns its ITK
// IO, the header read. ITK would otherwise read a 2-D image as one slice and a vector image as its first component.
// `fields`: dark or bright fields, where a 2-D image [channel, row] is also taken, as a stack of one.
inline itk::ImageIOBase::Pointer
checkedImageIO(const std::string & option, const std::string & path, bool fields = false)
{
  const std::string what = option + " '" + path + "'";
  if (!std::filesystem::is_regular_file(path))
  {
    throw std::runtime_error(what + ": no such file");
  }
  const itk::ImageIOBase::Pointer io =
    itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::ImageIOFactory::IOFileModeEnum::ReadMode);
  if (io.IsNull())
  {
    throw std::runtime_error(what + ": not an image that ITK can read (unsupported format or damaged file)");
  }
  io->SetFileName(path);
  try
  {
    io->ReadImageInformation();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error(what + ": cannot read the image header: " + description(e));
  }
  if (io->GetNumberOfDimensions() != 3 && !(fields && io->GetNumberOfDimensions() == 2))
  {
    throw std::runtime_error(what + " is a " + std::to_string(io->GetNumberOfDimensions()) + "-D image; " +
                             (fields ? "fields are 2-D images [channel, row] or 3-D stacks [channel, row, n]"
                                     : "the MBIR tools need 3-D images (volumes [x, y, z], projections "
                                       "[channel, row, view])"));
  }
  if (io->GetNumberOfComponents() != 1)
  {
    throw std::runtime_error(what + " has " + std::to_string(io->GetNumberOfComponents()) + " components per pixel (" +
                             itk::ImageIOBase::GetPixelTypeAsString(io->GetPixelType()) +
                             " pixels); the MBIR tools need one value per pixel");
  }
  return io;
}

// ITK reads NRRD files whole; a float NRRD with its raw data attached (what the tools write) is read here in part:
// views [first, first + count) into `image`, which holds those views. False (nothing read) for any other NRRD.
inline bool
readRawNrrdViews(const std::string & path, std::pair<int, int> views, ImageType * image)
{
  std::ifstream file(path, std::ios::binary);
  std::string   line;
  if (!std::getline(file, line) || line.rfind("NRRD000", 0) != 0)
    return false;
  std::map<std::string, std::string> fields;
  while (std::getline(file, line) && !line.empty() && line != "\r")
  {
    const std::size_t colon = line.find(": ");
    if (line[0] != '#' && colon != std::string::npos)
      fields[line.substr(0, colon)] = line.substr(colon + 2);
  }
  const std::uint16_t probe = 1;
  const bool          little = *reinterpret_cast<const unsigned char *>(&probe) == 1;
  if (!file || fields["encoding"] != "raw" || fields["type"] != "float" ||
      fields["endian"] != (little ? "little" : "big") || fields.count("data file") || fields.count("datafile") ||
      fields.count("byte skip") || fields.count("byteskip") || fields.count("line skip") || fields.count("lineskip"))
    return false;
  const auto        size = image->GetLargestPossibleRegion().GetSize();
  const std::size_t viewSize = size[0] * size[1];
  const auto        data = static_cast<std::streamoff>(file.tellg());
  file.seekg(data + static_cast<std::streamoff>(views.first * viewSize * sizeof(float)));
  file.read(reinterpret_cast<char *>(image->GetBufferPointer()),
            static_cast<std::streamsize>(views.second * viewSize * sizeof(float)));
  if (!file)
    throw std::runtime_error("'" + path + "': the file ends before its last view (damaged or cut short)");
  return true;
}

// Reads `path` as float, through checkedImageIO; `views`, when given, is the part of the last axis to read: the image
// returned is those views, its region starting at the first of them, read alone where the format allows it
// (MetaImage, raw float NRRD; ITK reads other formats whole, and the rest is dropped).
inline ImageType::Pointer
readImage(const std::string &                option,
          const std::string &                path,
          bool                               fields = false,
          std::optional<std::pair<int, int>> views = std::nullopt)
{
  auto reader = itk::ImageFileReader<ImageType>::New();
  reader->SetFileName(path);
  reader->SetImageIO(checkedImageIO(option, path, fields));
  try
  {
    if (!views)
    {
      reader->Update();
      return reader->GetOutput();
    }
    reader->UpdateOutputInformation();
    const ImageType::RegionType whole = reader->GetOutput()->GetLargestPossibleRegion();
    ImageType::RegionType       part = whole;
    part.SetIndex(2, whole.GetIndex(2) + views->first);
    part.SetSize(2, static_cast<itk::SizeValueType>(views->second));
    auto image = ImageType::New();
    image->CopyInformation(reader->GetOutput());
    image->SetRegions(part); // the region's index along the views says which views it holds
    image->Allocate();
    if (views->second > 0 && !readRawNrrdViews(path, *views, image))
    {
      reader->GetOutput()->SetRequestedRegion(part);
      reader->Update();
      const ImageType * read = reader->GetOutput();
      const std::size_t viewSize = part.GetSize(0) * part.GetSize(1);
      const float *     from =
        read->GetBufferPointer() + (part.GetIndex(2) - read->GetBufferedRegion().GetIndex(2)) * viewSize;
      std::copy(from, from + views->second * viewSize, image->GetBufferPointer());
    }
    return image;
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error(option + " '" + path + "': cannot read the image: " + description(e));
  }
}

// Bytes this process has read through system calls so far (Linux's /proc/self/io), or -1 where unknown.
inline long long
bytesReadSoFar()
{
  std::ifstream io("/proc/self/io");
  std::string   key;
  long long     value = -1;
  while (io >> key >> value)
  {
    if (key == "rchar:")
      return value;
  }
  return -1;
}

// Projections [channel, row, view] read for a reconstruction or back projection. Under MPI each rank's device holds
// only its share of the views (the engine's split, ShardLayout), so each rank reads only those where the format
// allows it (MetaImage .mha/.mhd, raw float NRRD; other formats are read whole) and holds only those in memory: the
// image's buffered region, which the MBIR filters take as the part they need (MBIRFilterSupport::ProcessViews).
// `report`: each rank says on standard error what it read and holds.
inline ImageType::Pointer
readProjections(const std::string & option, const std::string & path, bool report)
{
  const mbir::ProcessGroup & world = mbir::processGroup();
  if (world.size == 1)
    return readImage(option, path);
  const itk::ImageIOBase::Pointer io = checkedImageIO(option, path);
  ImageType::SizeType             size;
  for (unsigned int axis = 0; axis < 3; ++axis)
    size[axis] = io->GetDimensions(axis);
  const ImageType::RegionType part = itk::MBIRFilterSupport::ProcessViews(ImageType::RegionType(size));
  const int                   first = static_cast<int>(part.GetIndex(2)), count = static_cast<int>(part.GetSize(2));
  const long long             before = bytesReadSoFar();
  ImageType::Pointer          image = readImage(option, path, false, std::pair{ first, count });
  if (report)
  {
    std::error_code    ignored;
    std::ostringstream line;
    line << "rank " << world.rank << " of " << world.size << ": " << option << " '" << path << "': views " << first
         << " to " << first + count - 1 << " of " << size[2] << ", " << bytesReadSoFar() - before << " bytes read of "
         << std::filesystem::file_size(path, ignored) << ", "
         << image->GetBufferedRegion().GetNumberOfPixels() * sizeof(float) << " bytes held\n";
    const std::string text = line.str();
    std::fwrite(text.data(), 1, text.size(), stderr); // one write: the ranks' lines never interleave
  }
  return image;
}

// Under MPI with `report`: each rank says on standard error how much of a volume it holds, rank 0 the whole (it writes
// it) and each other rank its own slices (MBIRFilterSupport::WriteVolume).
inline void
reportVolumeHeld(const std::string & option, const std::string & path, const ImageType * volume, bool report)
{
  const mbir::ProcessGroup & world = mbir::processGroup();
  if (world.size == 1 || !report)
    return;
  const ImageType::RegionType held = volume->GetBufferedRegion();
  std::ostringstream          line;
  line << "rank " << world.rank << " of " << world.size << ": " << option << " '" << path << "': slices "
       << held.GetIndex(2) << " to " << held.GetIndex(2) + static_cast<long>(held.GetSize(2)) - 1 << " of "
       << volume->GetLargestPossibleRegion().GetSize(2) << ", " << held.GetNumberOfPixels() * sizeof(float)
       << " bytes held\n";
  const std::string text = line.str();
  std::fwrite(text.data(), 1, text.size(), stderr); // one write: the ranks' lines never interleave
}

// Where an image is first written: beside `path` under a name of this process with the same extension, so that a
// crash or a full disk never leaves a truncated file under the real name; `path` itself for formats whose header
// names a separate data file (.mhd, .nhdr, .hdr), which a rename would break.
inline std::string
partialPath(const std::string & path)
{
  namespace fs = std::filesystem;
  const fs::path    p(path);
  const std::string name = p.filename().string();
  for (const char * detached : { ".mhd", ".nhdr", ".hdr" })
  {
    if (p.extension() == detached)
      return path;
  }
  const std::size_t dot = name.find('.', 1); // x.nii.gz keeps .nii.gz
  const std::string stem = dot == std::string::npos ? name : name.substr(0, dot);
  const std::string extension = dot == std::string::npos ? "" : name.substr(dot);
  return (p.parent_path() / ("." + stem + ".partial-" + std::to_string(::getpid()) + extension)).string();
}

// Writes any image type in the format that `path`'s extension names, through partialPath and a rename; under MPI
// rank 0 writes it (the MBIR filters' volumes are whole there; other ranks hold their slices).
template<typename TImage>
void
writeImage(const std::string & option, const std::string & path, const TImage * image)
{
  if (mbir::processGroup().rank != 0)
  {
    return;
  }
  const std::string what = option + " '" + path + "'";
  if (itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::ImageIOFactory::IOFileModeEnum::WriteMode).IsNull())
  {
    throw std::runtime_error(what + ": no ITK image format for this file name (use e.g. .nrrd, .mha, .tif)");
  }
  const std::string partial = partialPath(path);
  auto              writer = itk::ImageFileWriter<TImage>::New();
  writer->SetFileName(partial);
  writer->SetInput(image);
  try
  {
    writer->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw std::runtime_error(what + ": cannot write the image: " + description(e));
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error)
  {
    std::filesystem::remove(partial, error);
    throw std::runtime_error(what + ": cannot move the written image into place: " + error.message());
  }
}

inline itk::MBIRGeometry::Pointer
readGeometry(const std::string & option, const std::string & path)
{
  if (!std::filesystem::is_regular_file(path))
  {
    throw std::runtime_error(option + " '" + path + "': no such file");
  }
  try
  {
    return itk::MBIRGeometry::ReadJSON(path);
  }
  catch (const itk::ExceptionObject & e)
  {
    // The engine's message starts with the path and names the bad field.
    throw std::runtime_error(option + " " + description(e));
  }
}

// ||image - reference|| / ||reference||, after checking that the two images have the same size; the names
// describe them in that error.
inline double
nrmse(const ImageType *   image,
      const std::string & imageName,
      const ImageType *   reference,
      const std::string & referenceName)
{
  const ImageType::SizeType size = image->GetLargestPossibleRegion().GetSize(),
                            expected = reference->GetLargestPossibleRegion().GetSize();
  if (size != expected)
  {
    std::ostringstream message;
    message << referenceName << " has size " << expected << " but " << imageName << " has size " << size;
    throw std::runtime_error(message.str());
  }
  const std::size_t n = image->GetLargestPossibleRegion().GetNumberOfPixels();
  const float *     r = reference->GetBufferPointer();
  if (std::all_of(r, r + n, [](float v) { return v == 0.0f; }))
  {
    throw std::runtime_error(referenceName + " is zero everywhere, so the NRMSE against it is undefined");
  }
  if (image->GetBufferedRegion() != image->GetLargestPossibleRegion())
  {
    return std::numeric_limits<double>::quiet_NaN(); // an MPI rank's slices: rank 0 holds the whole and prints
  }
  return mbir::nrmse(std::vector<float>(image->GetBufferPointer(), image->GetBufferPointer() + n),
                     std::vector<float>(reference->GetBufferPointer(), reference->GetBufferPointer() + n));
}

// Runs a tool's body and turns its errors into a message on standard error and an exit status: 2 for a
// command-line mistake, 1 for anything else, 128 + the signal after SIGINT (130) or SIGTERM (143), which stop the
// work at its next step with nothing written. ITK's messages are shortened to their description. Under an MPI
// launcher (mpirun -np N, srun) the N processes run one reconstruction: rank 0 prints and writes, and an error in
// any rank ends them all (MPI_Abort) rather than leave the others waiting in a collective.
inline int
run(const std::string & tool, const std::function<void()> & body)
{
  const mbir::ProcessGroup & world = mbir::processGroup();
  static std::ofstream       quiet; // not open: what other ranks print goes nowhere
  if (world.rank != 0)
  {
    std::cout.rdbuf(quiet.rdbuf());
  }
  const std::string who = world.size > 1 ? tool + " (rank " + std::to_string(world.rank) + ")" : tool;
  auto              fail = [&](int status) {
    mbir::abortProcessGroup(status);
    return status;
  };
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  auto interrupted = [&] {
    const int signal = interruptSignal;
    std::cerr << who << ": stopped by " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
              << " at the end of a step; no output was written";
    if (savedState.written())
      std::cerr << "; the state is saved in '" << savedState.path << "': continue with " << savedState.resumeOption
                << " '" << savedState.path << "'";
    std::cerr << "\n";
    return fail(128 + signal);
  };
  try
  {
    ToolProgress::StyleFromEnvironment(); // a bad MBIR_PROGRESS fails before any work
    body();
    return 0;
  }
  catch (...)
  {
    if (interruptSignal != 0)
      return interrupted();
    try
    {
      throw;
    }
    catch (const UsageError & e)
    {
      std::cerr << who << ": " << e.what() << " (see " << tool << " --help)\n";
      return fail(2);
    }
    catch (const itk::ExceptionObject & e)
    {
      std::cerr << who << ": " << description(e) << "\n";
      return fail(1);
    }
    catch (const std::bad_alloc &)
    {
      std::cerr << who << ": out of host memory: the data do not fit in this machine's memory (use a smaller "
                << "volume or detector, fewer views, or a machine with more memory)\n";
      return fail(1);
    }
    catch (const std::exception & e)
    {
      std::cerr << who << ": " << e.what() << "\n";
      return fail(1);
    }
  }
}

} // namespace mbirtool
