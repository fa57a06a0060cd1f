// The one binding a headless harness needs that slicer-core's Python wrapping lacks: registering a CLI
// module's description (vtkMRMLCommandLineModuleNode::RegisterModuleDescription, which takes a
// ModuleDescription that ModuleDescriptionParser::Parse fills from the module's --xml). Both are exported
// C++ symbols of the wheel's libMRMLCLI.so and libModuleDescriptionParser.so, but neither is wrapped and the
// SDK wheel ships no SlicerExecutionModel headers. So this file declares the few symbols it calls itself
// (names and signatures only: the class layout stays opaque) and exposes one C function for ctypes:
//
//   int mbir_register_cli(const char* xml, const char* executable, char* title, size_t titleSize,
//                         char* error, size_t errorSize)
//
// which does what Slicer's qSlicerCLIExecutableModuleFactory and qSlicerCLIModule::setXmlModuleDescription
// do for an executable CLI: parse the XML, set the type "CommandLineModule" and the target (the program
// path), and register the description under its title. It returns 0 on success and writes the title; on
// failure it returns non-zero and writes what the parser printed.
//
// Build it with the wheel's std::string ABI: slicer-core 5.13 is a manylinux_2_28 build whose std::string
// symbols are the pre-C++11 ones (nm shows ModuleDescription::SetTarget as ...ERKSs, not ...__cxx11...), so
// -D_GLIBCXX_USE_CXX11_ABI=0; test-slicer-cli.sh reads the ABI off the library with nm before compiling. With
// the wrong ABI the mangled names differ, and loading the bridge fails on an undefined symbol (the tests then
// skip with that reason) instead of running with mismatched strings.

#include <cstddef>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

struct ModuleProcessInformation; // opaque: only its address is used, for the layout check
class ModuleLogo;

// SlicerExecutionModel's ModuleDescription, as this file uses it. The real class is a dozen std::strings,
// a vector of parameter groups, a process-information block (with a 1024-character message) and a logo:
// 1248 bytes with this std::string ABI (measured on slicer-core 5.13: its constructors write bytes 0 to 1247
// of a buffer, and the logo starts at byte 1184). The storage here is far larger, so that constructing one
// in it, and the by-value temporary the compiler makes for RegisterModuleDescription, never write past it;
// the layout check below verifies that the members the library can reach lie well inside it. The declared
// copy constructor and destructor make the class non-trivial, so that, as for the real class, the Itanium ABI
// passes it by value through a caller-made temporary (by address) and the caller destroys that temporary.
class ModuleDescription
{
public:
  ModuleDescription();
  ModuleDescription(const ModuleDescription &);
  ~ModuleDescription(); // exported (weak) by libMRMLCLI.so
  void                              SetType(const std::string &);
  void                              SetTarget(const std::string &);
  const std::string &               GetTitle() const;
  ModuleProcessInformation *        GetProcessInformation();
  const ModuleLogo &                GetLogo() const;

private:
  alignas(64) unsigned char storage[16384];
};

class ModuleDescriptionParser // no data members
{
public:
  int Parse(const std::string & xml, ModuleDescription & description);
};

class vtkMRMLCommandLineModuleNode
{
public:
  static void RegisterModuleDescription(ModuleDescription description);
};

namespace
{
void
copyOut(const std::string & text, char * buffer, std::size_t size)
{
  if (buffer && size > 0)
  {
    const std::size_t n = text.size() < size - 1 ? text.size() : size - 1;
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
}

// Whether a member of `description` lies in its first `limit` bytes.
bool
inside(const ModuleDescription & description, const void * member, std::size_t limit)
{
  const char * begin = reinterpret_cast<const char *>(&description);
  const char * at = static_cast<const char *>(member);
  return at >= begin && at < begin + limit;
}
} // namespace

extern "C" __attribute__((visibility("default"))) int
mbir_register_cli(const char * xml,
                  const char * executable,
                  char *       title,
                  std::size_t  titleSize,
                  char *       error,
                  std::size_t  errorSize)
{
  copyOut("", title, titleSize);
  copyOut("", error, errorSize);
  if (!xml || !executable)
  {
    copyOut("mbir_register_cli: null argument", error, errorSize);
    return 2;
  }
  // Leaked on purpose: the registry keeps its own copy, and a test process is short-lived.
  ModuleDescription * description = new ModuleDescription;

  // The process information (about 1 KB) and the logo are the last members: both must start in the first
  // 4 KB of the storage, which leaves at least 12 KB past them.
  if (!inside(*description, description->GetProcessInformation(), 4096) ||
      !inside(*description, &description->GetLogo(), 4096))
  {
    copyOut("mbir_register_cli: ModuleDescription is larger than this bridge expects", error, errorSize);
    return 3;
  }

  // The parser reports problems on std::cerr: capture them for the caller.
  std::ostringstream messages;
  std::streambuf *   previous = std::cerr.rdbuf(messages.rdbuf());
  int                status = 1;
  try
  {
    ModuleDescriptionParser parser;
    status = parser.Parse(std::string(xml), *description);
  }
  catch (const std::exception & e)
  {
    messages << "exception while parsing: " << e.what();
    status = 1;
  }
  catch (...)
  {
    messages << "unknown exception while parsing";
    status = 1;
  }
  std::cerr.rdbuf(previous);
  if (status != 0)
  {
    copyOut("ModuleDescriptionParser::Parse failed: " + messages.str(), error, errorSize);
    return 1;
  }
  if (description->GetTitle().empty())
  {
    copyOut("the XML description has no <title>: Slicer registers a CLI module under its title", error, errorSize);
    return 1;
  }
  description->SetType("CommandLineModule");
  description->SetTarget(executable);
  vtkMRMLCommandLineModuleNode::RegisterModuleDescription(*description);
  copyOut(description->GetTitle(), title, titleSize);
  return 0;
}
