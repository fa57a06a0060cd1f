#pragma once
// What the command-line tools share: options declared once (so --help lists every option and an unknown
// one is caught), numbers checked whole, the device options, image and geometry files checked before use,
// and one way to report an error (a message naming the bad option or file, a non-zero exit status).

#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageIOFactory.h"
#include "itkMBIRGeometry.h"
#include "mbir/Devices.h"
#include "mbir/Metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbirtool {

using ImageType = itk::Image<float, 3>;

// A mistake on the command line: reported with a pointer to --help, exit status 2.
struct UsageError : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

// `text` as a whole number in [low, high]; `option` names it in errors.
inline double
parseNumber(const std::string & option, const std::string & text, double low, double high)
{
  char *       end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value))
  {
    throw UsageError(option + " needs a number, got '" + text + "'");
  }
  if (value < low || value > high)
  {
    std::ostringstream range;
    range << option << " must lie in [" << low << ", " << high << "], got " << text;
    throw UsageError(range.str());
  }
  return value;
}

inline long
parseInteger(const std::string & option, const std::string & text, long low, long high)
{
  const double value = parseNumber(option, text, static_cast<double>(low), static_cast<double>(high));
  if (value != std::floor(value))
  {
    throw UsageError(option + " needs a whole number, got '" + text + "'");
  }
  return static_cast<long>(value);
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

// The declared options of one tool and their parsing. Each declaration binds an option to a variable; the
// variable's value at declaration time is the default that --help shows.
class CommandLine
{
public:
  CommandLine(std::string tool, std::string usage, std::string purpose)
    : m_Tool(std::move(tool))
    , m_Usage(std::move(usage))
    , m_Purpose(std::move(purpose))
  {}

  void
  text(const std::string & name, const std::string & metavar, const std::string & help, std::string & target)
  {
    add(name, metavar, help, target.empty() ? "" : target, [&target](const std::string & v) { target = v; });
  }
  void
  required(const std::string & name, const std::string & metavar, const std::string & help, std::string & target)
  {
    add(name, metavar, help, "required", [&target](const std::string & v) { target = v; });
    m_Options.back().required = true;
  }
  void
  number(const std::string & name,
         const std::string & metavar,
         const std::string & help,
         double &            target,
         double              low,
         double              high)
  {
    add(name, metavar, help, shortest(target), [&target, name, low, high](const std::string & v) {
      target = parseNumber(name, v, low, high);
    });
  }
  void
  integer(const std::string & name,
          const std::string & metavar,
          const std::string & help,
          int &               target,
          int                 low,
          int                 high)
  {
    add(name, metavar, help, std::to_string(target), [&target, name, low, high](const std::string & v) {
      target = static_cast<int>(parseInteger(name, v, low, high));
    });
  }
  // An option that may be given several times; each value is appended.
  void
  repeated(const std::string &        name,
           const std::string &        metavar,
           const std::string &        help,
           std::vector<std::string> & target)
  {
    add(name, metavar, help, "", [&target](const std::string & v) { target.push_back(v); });
    m_Options.back().repeatable = true;
  }
  void
  flag(const std::string & name, const std::string & help, bool & target)
  {
    add(name, "", help, "", [&target](const std::string &) { target = true; });
    m_Options.back().flag = true;
  }
  // Any other kind of value: `set` parses it (and throws UsageError naming the option when it is bad).
  void
  custom(const std::string &                            name,
         const std::string &                            metavar,
         const std::string &                            help,
         const std::string &                            defaultText,
         std::function<void(const std::string & value)> set)
  {
    add(name, metavar, help, defaultText, std::move(set));
  }

  // Sets the declared variables; --help prints the help and exits 0.
  void
  parse(int argc, char ** argv)
  {
    for (int a = 1; a < argc; ++a)
    {
      const std::string argument = argv[a];
      if (argument == "--help" || argument == "-h")
      {
        printHelp(std::cout);
        std::exit(0);
      }
      Option * option = find(argument);
      if (option == nullptr)
      {
        throw UsageError("unknown option '" + argument + "'");
      }
      if (option->given && !option->repeatable)
      {
        throw UsageError(argument + " given twice");
      }
      option->given = true;
      if (option->flag)
      {
        option->set("");
        continue;
      }
      if (a + 1 >= argc)
      {
        throw UsageError(argument + " needs a value (" + option->metavar + ")");
      }
      option->set(argv[++a]);
    }
    for (const Option & option : m_Options)
    {
      if (option.required && !option.given)
      {
        throw UsageError("missing " + option.name + " " + option.metavar);
      }
    }
  }

  bool
  given(const std::string & name) const
  {
    for (const Option & option : m_Options)
    {
      if (option.name == name)
      {
        return option.given;
      }
    }
    throw std::logic_error("undeclared option " + name);
  }

  void
  printHelp(std::ostream & out) const
  {
    out << "usage: " << m_Tool << " " << m_Usage << "\n" << wrap(m_Purpose, 0) << "\nOptions:\n";
    for (const Option & option : m_Options)
    {
      std::string head = "  " + option.name + (option.metavar.empty() ? "" : " " + option.metavar);
      std::string help = option.help;
      if (!option.defaultText.empty())
      {
        help += option.required ? " (required)" : " (default " + option.defaultText + ")";
      }
      head += head.size() < kHelpColumn ? std::string(kHelpColumn - head.size(), ' ') : "\n" + indent(kHelpColumn);
      out << head << wrap(help, kHelpColumn).substr(kHelpColumn) << "\n";
    }
    out << "  --help" << std::string(kHelpColumn - 8, ' ') << "print this help and exit\n";
  }

  const std::string &
  tool() const
  {
    return m_Tool;
  }

  // The shortest text that gives `value` back, for defaults and summaries.
  static std::string
  shortest(double value)
  {
    std::ostringstream out;
    out << value;
    return out.str();
  }

private:
  static constexpr std::size_t kHelpColumn = 30, kWidth = 100;

  struct Option
  {
    std::string                              name, metavar, help, defaultText;
    std::function<void(const std::string &)> set;
    bool                                     flag = false, required = false, repeatable = false, given = false;
  };

  void
  add(const std::string &                      name,
      const std::string &                      metavar,
      const std::string &                      help,
      const std::string &                      defaultText,
      std::function<void(const std::string &)> set)
  {
    m_Options.push_back(Option{ name, metavar, help, defaultText, std::move(set) });
  }

  Option *
  find(const std::string & name)
  {
    for (Option & option : m_Options)
    {
      if (option.name == name)
      {
        return &option;
      }
    }
    return nullptr;
  }

  static std::string
  indent(std::size_t n)
  {
    return std::string(n, ' ');
  }

  // Words of `text` in lines of at most kWidth characters, each line indented by `margin`; explicit
  // newlines are kept.
  static std::string
  wrap(const std::string & text, std::size_t margin)
  {
    std::string        result, line;
    std::istringstream paragraphs(text);
    for (std::string paragraph; std::getline(paragraphs, paragraph);)
    {
      std::istringstream words(paragraph);
      line = indent(margin);
      bool first = true;
      for (std::string word; words >> word; first = false)
      {
        if (!first && line.size() + 1 + word.size() > kWidth)
        {
          result += line + "\n";
          line = indent(margin);
          first = true;
        }
        line += (first ? "" : " ") + word;
      }
      result += line + "\n";
    }
    if (!result.empty())
    {
      result.pop_back();
    }
    return result;
  }

  std::string         m_Tool, m_Usage, m_Purpose;
  std::vector<Option> m_Options;
};

// --devices SPEC and --use-gpu POLICY, declared on a tool's command line and applied to its filter: which
// devices one run spreads over (README "The ITK layer").
class DeviceOptions
{
public:
  explicit DeviceOptions(CommandLine & cl)
  {
    cl.custom("--devices",
              "SPEC",
              "the devices to compute on: auto (every GPU, else the CPU devices that MBIR_NUM_CPU_DEVICES sets, "
              "default 1), a count N (the first N), or indices i,j,... (a single index as i,)",
              "auto",
              [this](const std::string & v) { m_Spec = v; });
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
              });
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
    filter->ConfigureDevices(Selection());
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

// An ITK exception's message without what means nothing to a tool's user: ITK's "ITK ERROR: ", the object's
// class and address, and the name of the method that threw ("WriteJSON: ").
inline std::string
description(const itk::ExceptionObject & e)
{
  static const std::regex prefix(R"(^(ITK ERROR: )?(\w+(::\w+)*\(0x[0-9a-fA-F]+\): )?([A-Z]\w*(::\w+)*: )?)");
  return std::regex_replace(std::string(e.GetDescription()), prefix, "", std::regex_constants::format_first_only);
}

// Checks that `path` (the value of `option`) is a readable 3-D image with one value per voxel, then reads it
// as float. ITK would otherwise read a 2-D image as one slice and a vector image as its first component.
// `fields`: dark or bright fields, where a 2-D image [channel, row] is also taken, as a stack of one.
inline ImageType::Pointer
readImage(const std::string & option, const std::string & path, bool fields = false)
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
  auto reader = itk::ImageFileReader<ImageType>::New();
  reader->SetFileName(path);
  reader->SetImageIO(io);
  try
  {
    reader->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error(what + ": cannot read the image: " + description(e));
  }
  return reader->GetOutput();
}

// Writes any image type in the format that `path`'s extension names.
template<typename TImage>
void
writeImage(const std::string & option, const std::string & path, const TImage * image)
{
  const std::string what = option + " '" + path + "'";
  if (itk::ImageIOFactory::CreateImageIO(path.c_str(), itk::ImageIOFactory::IOFileModeEnum::WriteMode).IsNull())
  {
    throw std::runtime_error(what + ": no ITK image format for this file name (use e.g. .nrrd, .mha, .tif)");
  }
  auto writer = itk::ImageFileWriter<TImage>::New();
  writer->SetFileName(path);
  writer->SetInput(image);
  try
  {
    writer->Update();
  }
  catch (const itk::ExceptionObject & e)
  {
    throw std::runtime_error(what + ": cannot write the image: " + description(e));
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
  return mbir::nrmse(std::vector<float>(image->GetBufferPointer(), image->GetBufferPointer() + n),
                     std::vector<float>(reference->GetBufferPointer(), reference->GetBufferPointer() + n));
}

// Runs a tool's body and turns its errors into a message on standard error and an exit status: 2 for a
// command-line mistake, 1 for anything else. ITK's messages are shortened to their description.
inline int
run(const std::string & tool, const std::function<void()> & body)
{
  try
  {
    body();
    return 0;
  }
  catch (const UsageError & e)
  {
    std::cerr << tool << ": " << e.what() << " (see " << tool << " --help)\n";
    return 2;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << tool << ": " << description(e) << "\n";
    return 1;
  }
  catch (const std::exception & e)
  {
    std::cerr << tool << ": " << e.what() << "\n";
    return 1;
  }
}

} // namespace mbirtool
