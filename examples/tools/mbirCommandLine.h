#pragma once
// One parameter table per tool: the command line (parsed by CLI11), --help and the Slicer CLI module's XML
// (--xml, SlicerExecutionModel's format) all come from it, so they cannot drift (README "3D Slicer").
//
// Slicer's conventions, which the table follows: long flags in the XML have only letters, digits and
// underscores, so every hyphenated option is also accepted with underscores (--max-iterations and
// --max_iterations); Slicer passes every parameter that has a value, defaults included, so an option given with
// its default value counts as not given (given() below), and an option whose absence means something (no noise,
// the other option's value) has no default in the XML; booleans are bare flags.
// The implementation, and CLI11 with it, is compiled once (mbirCommandLine.cxx), not in every tool.

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbirtool {

// A mistake on the command line: reported with a pointer to --help, exit status 2.
struct UsageError : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

double
parseNumber(const std::string & option, const std::string & text, double low, double high);
long
parseInteger(const std::string & option, const std::string & text, long low, long high);

// An output file's folder exists and is writable and the name is not a folder; std::runtime_error naming the
// option and what to do otherwise.
void
checkOutputPath(const std::string & option, const std::string & path);

// Where a file parameter's data go, in Slicer's terms.
enum class Channel
{
  Input,
  Output
};

// The header of the module's XML: where Slicer lists it and what its panel says about it.
struct ModuleInfo
{
  std::string category; // e.g. "Reconstruction.MBIR"
  std::string title;    // e.g. "MBIR Reconstruction"
};

class CommandLine
{
public:
  // One option: how it parses, and how Slicer's panel shows it. The setters return the option, to chain.
  class Option
  {
  public:
    Option &
    image(Channel channel)
    {
      return kind("image", channel, ".nrrd");
    }
    Option &
    file(Channel channel, const std::string & extensions)
    {
      return kind("file", channel, extensions);
    }
    Option &
    directory(Channel channel)
    {
      return kind("directory", channel, "");
    }
    // A choice among fixed words (a string-enumeration in the XML).
    Option &
    choices(std::vector<std::string> words)
    {
      m_Choices = std::move(words);
      if (!m_HasXmlDefault)
        xmlDefault(m_DefaultText);
      return *this;
    }
    Option &
    label(std::string text)
    {
      m_Label = std::move(text);
      return *this;
    }
    // The slider of a number: its range and step in Slicer's panel (the parsing range stays as declared).
    Option &
    constraints(double minimum, double maximum, double step)
    {
      m_Minimum = minimum;
      m_Maximum = maximum;
      m_Step = step;
      return *this;
    }
    // The XML default (only options whose declared default is a value have one otherwise).
    Option &
    xmlDefault(std::string value)
    {
      m_XmlDefault = std::move(value);
      m_HasXmlDefault = true;
      return *this;
    }
    // Left out of the XML: an option for people only (e.g. printing to the terminal).
    Option &
    notInSlicer()
    {
      m_InXml = false;
      return *this;
    }

  private:
    friend class CommandLine;
    Option &
    kind(const std::string & tag, Channel channel, const std::string & extensions)
    {
      m_Tag = tag;
      m_Channel = channel;
      m_Extensions = extensions;
      return *this;
    }

    std::string                              m_Name, m_Metavar, m_Help, m_DefaultText, m_Group;
    std::function<void(const std::string &)> m_Set;
    enum class Type
    {
      Text,
      Number,
      Integer,
      Flag,
      Custom
    } m_Type = Type::Text;
    bool                     m_Required = false, m_Repeatable = false, m_InXml = true;
    double                   m_Minimum = NAN, m_Maximum = NAN, m_Step = NAN;
    std::string              m_Tag, m_Extensions, m_Label, m_XmlDefault;
    bool                     m_HasXmlDefault = false;
    Channel                  m_Channel = Channel::Input;
    std::vector<std::string> m_Choices;
    std::vector<std::string> m_Values; // as given, in order
  };

  CommandLine(std::string tool, std::string usage, std::string purpose, ModuleInfo module = {})
    : m_Tool(std::move(tool))
    , m_Usage(std::move(usage))
    , m_Purpose(std::move(purpose))
    , m_Module(std::move(module))
  {
    group("Parameters");
  }

  // Starts a group of options: a box in Slicer's panel, a heading in --help.
  void
  group(const std::string & label, const std::string & description = "")
  {
    m_Groups.push_back({ label, description });
  }

  Option &
  text(const std::string & name, const std::string & metavar, const std::string & help, std::string & target)
  {
    Option & o = add(name, metavar, help, target, [&target](const std::string & v) { target = v; });
    if (!target.empty())
      o.xmlDefault(target);
    return o;
  }
  Option &
  required(const std::string & name, const std::string & metavar, const std::string & help, std::string & target)
  {
    Option & o = add(name, metavar, help, "", [&target](const std::string & v) { target = v; });
    o.m_Required = true;
    return o;
  }
  Option &
  number(const std::string & name,
         const std::string & metavar,
         const std::string & help,
         double &            target,
         double              low,
         double              high)
  {
    Option & o = add(name, metavar, help, shortest(target), [&target, name, low, high](const std::string & v) {
      target = parseNumber(name, v, low, high);
    });
    o.m_Type = Option::Type::Number;
    o.xmlDefault(shortest(target));
    if (std::isfinite(low) && std::isfinite(high) && high - low <= 1e6)
      o.constraints(low, high, (high - low) / 1000.0);
    return o;
  }
  Option &
  integer(const std::string & name, const std::string & metavar, const std::string & help, int & target, int low, int high)
  {
    Option & o = add(name, metavar, help, std::to_string(target), [&target, name, low, high](const std::string & v) {
      target = static_cast<int>(parseInteger(name, v, low, high));
    });
    o.m_Type = Option::Type::Integer;
    o.xmlDefault(std::to_string(target));
    o.constraints(low, high, 1);
    return o;
  }
  // An option that may be given several times; each value is appended.
  Option &
  repeated(const std::string & name, const std::string & metavar, const std::string & help, std::vector<std::string> & target)
  {
    Option & o = add(name, metavar, help, "", [&target](const std::string & v) { target.push_back(v); });
    o.m_Repeatable = true;
    return o;
  }
  Option &
  flag(const std::string & name, const std::string & help, bool & target)
  {
    Option & o = add(name, "", help, "", [&target](const std::string &) { target = true; });
    o.m_Type = Option::Type::Flag;
    return o;
  }
  // Any other kind of value: `set` parses it (and throws UsageError naming the option when it is bad).
  // `defaultText` is what --help shows; it is also the XML default only through xmlDefault() or choices().
  Option &
  custom(const std::string &                            name,
         const std::string &                            metavar,
         const std::string &                            help,
         const std::string &                            defaultText,
         std::function<void(const std::string & value)> set)
  {
    Option & o = add(name, metavar, help, defaultText, std::move(set));
    o.m_Type = Option::Type::Custom;
    return o;
  }

  // Sets the declared variables, in the order given, and checks that every output file can be written
  // (checkOutputPath). --help prints the help, --xml the Slicer module description; both exit 0.
  void
  parse(int argc, char ** argv);

  // Whether the option was given with a value other than its default (a flag: given at all).
  bool
  given(const std::string & name) const;

  void
  printHelp(std::ostream & out) const;
  void
  printXml(std::ostream & out) const;

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
  struct Group
  {
    std::string label, description;
  };

  Option &
  add(const std::string &                      name,
      const std::string &                      metavar,
      const std::string &                      help,
      const std::string &                      defaultText,
      std::function<void(const std::string &)> set);
  // The option `name` names in either spelling (--max-iterations or --max_iterations), or null.
  const Option *
  find(const std::string & name) const;

  std::string        m_Tool, m_Usage, m_Purpose;
  ModuleInfo         m_Module;
  std::vector<Group> m_Groups;
  std::deque<Option> m_Options; // a deque: the references add() returns stay valid
};

} // namespace mbirtool
