// Fuzz target: the tools' command-line parser (examples/tools/mbirCommandLine.h) with an option of every kind.
// The input is the argument list, one argument per line (a NUL also ends one, as it ends a C string in argv). Any list
// either parses or is refused with UsageError or, for an output that could not be written, std::runtime_error; never a
// crash or another exception.

#include "mbirCommandLine.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  std::vector<std::string> arguments{ "mbir-fuzz" };
  std::string              current;
  for (std::size_t i = 0; i < size; ++i)
  {
    const char c = static_cast<char>(data[i]);
    if (c != '\n' && c != '\0')
    {
      current += c;
      continue;
    }
    arguments.push_back(current);
    current.clear();
  }
  arguments.push_back(current);
  for (const std::string & a : arguments)
  {
    if (a == "--help" || a == "-h" || a == "--xml")
      return 0; // they print and exit by design
  }

  std::string              input, output, choice = "one", optional;
  double                   number = 1.0;
  int                      count = 3;
  bool                     flag = false;
  std::vector<std::string> many;
  mbirtool::CommandLine    cl("mbir-fuzz", "[options]", "Parses options of every kind.");
  cl.required("--input", "FILE", "an input", input).image(mbirtool::Channel::Input);
  cl.text("--output", "FILE", "an output checked for writability", output).image(mbirtool::Channel::Output);
  cl.text("--optional", "TEXT", "free text", optional);
  cl.number("--number", "X", "a number in [-10, 10]", number, -10, 10);
  cl.integer("--count-of-things", "N", "an integer in [0, 100]", count, 0, 100);
  cl.flag("--flag", "a flag", flag);
  cl.repeated("--many", "V", "repeatable", many);
  cl.custom("--choice",
            "WORD",
            "one or two",
            choice,
            [&choice](const std::string & v) {
              if (v != "one" && v != "two")
                throw mbirtool::UsageError("--choice must be one or two, got '" + v + "'");
              choice = v;
            })
    .choices({ "one", "two" });
  std::vector<char *> argv;
  for (std::string & a : arguments)
    argv.push_back(a.data());
  try
  {
    cl.parse(static_cast<int>(argv.size()), argv.data());
    cl.given("--number");
  }
  catch (const mbirtool::UsageError &)
  {}
  catch (const std::runtime_error &) // an output that cannot be written
  {}
  return 0;
}
