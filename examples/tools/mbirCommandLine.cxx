// The command line's implementation (mbirCommandLine.h), compiled once for all the tools.
#include "mbirCommandLine.h"

#include <CLI/CLI.hpp>

#ifndef MBIR_DOCUMENTATION_URL
#  define MBIR_DOCUMENTATION_URL ""
#endif
#ifndef MBIR_VERSION
#  define MBIR_VERSION ""
#endif

namespace mbirtool {
namespace {

// The option's name as Slicer spells it: no leading dashes, underscores for hyphens.
std::string
slicerName(const std::string & option)
{
  std::string name = option.substr(option.find_first_not_of('-'));
  for (char & c : name)
    if (c == '-')
      c = '_';
  return name;
}

// `text` with XML's special characters escaped.
std::string
xmlText(const std::string & text)
{
  std::string out;
  for (const char c : text)
  {
    switch (c)
    {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

} // namespace

// `text` as a number in [low, high]; `option` names it in errors.
double
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

long
parseInteger(const std::string & option, const std::string & text, long low, long high)
{
  const double value = parseNumber(option, text, static_cast<double>(low), static_cast<double>(high));
  if (value != std::floor(value))
  {
    throw UsageError(option + " needs a whole number, got '" + text + "'");
  }
  return static_cast<long>(value);
}

CommandLine::Option &
CommandLine::add(const std::string &                      name,
                 const std::string &                      metavar,
                 const std::string &                      help,
                 const std::string &                      defaultText,
                 std::function<void(const std::string &)> set)
{
  Option & o = m_Options.emplace_back();
  o.m_Name = name;
  o.m_Metavar = metavar;
  o.m_Help = help;
  o.m_DefaultText = defaultText;
  o.m_Set = std::move(set);
  o.m_Group = m_Groups.back().label;
  return o;
}

const CommandLine::Option *
CommandLine::find(const std::string & name) const
{
  for (const Option & o : m_Options)
    if (o.m_Name == name || "--" + slicerName(o.m_Name) == name)
      return &o;
  return nullptr;
}

void
CommandLine::parse(int argc, char ** argv)
{
  for (int a = 1; a < argc; ++a)
  {
    const std::string argument = argv[a];
    if (argument == "--help" || argument == "-h")
    {
      printHelp(std::cout);
      std::exit(0);
    }
    if (argument == "--xml" && m_Module.title.empty()) // a tool of its own window, as mbir-view: no CLI module
      throw UsageError("--xml: this tool is not a Slicer CLI module (it opens a window of its own)");
    if (argument == "--xml")
    {
      printXml(std::cout);
      std::exit(0);
    }
  }

  // "--option value" becomes "--option=value", so that a value such as -pi/2 is never taken for an option.
  std::vector<std::string> arguments{ argv[0] };
  for (int a = 1; a < argc; ++a)
  {
    const std::string argument = argv[a];
    const Option *    o = find(argument);
    if (o != nullptr && o->m_Type != Option::Type::Flag && a + 1 < argc)
      arguments.push_back(argument + "=" + argv[++a]);
    else
      arguments.push_back(argument);
  }
  std::vector<char *> pointers;
  for (std::string & argument : arguments)
    pointers.push_back(argument.data());

  CLI::App app(m_Purpose, m_Tool);
  app.set_help_flag(); // --help is ours, from the same table
  app.allow_extras();  // reported below in our words
  std::vector<std::pair<CLI::Option *, Option *>> bound;
  for (Option & o : m_Options)
  {
    std::string names = o.m_Name;
    if (slicerName(o.m_Name) != o.m_Name.substr(2))
      names += ",--" + slicerName(o.m_Name);
    CLI::Option * option = o.m_Type == Option::Type::Flag ? app.add_flag(names) : app.add_option(names);
    if (o.m_Type != Option::Type::Flag)
      option->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    bound.emplace_back(option, &o);
  }
  try
  {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  }
  catch (const CLI::ArgumentMismatch & e)
  {
    // "--views: 1 required TEXT missing": the option named before the colon had no value after it.
    const std::string message = e.what();
    if (const Option * o = find(message.substr(0, message.find(':'))))
      throw UsageError(o->m_Name + " needs a value (" + o->m_Metavar + ")");
    throw UsageError(message);
  }
  catch (const CLI::ParseError & e)
  {
    throw UsageError(e.what());
  }
  if (!app.remaining().empty())
  {
    const std::string first = app.remaining().front();
    throw UsageError(first.rfind("-", 0) == 0 ? "unknown option '" + first + "'"
                                              : "unexpected argument '" + first + "'");
  }

  // Each option's values, then the setters in the order the options were given.
  for (auto & [option, o] : bound)
  {
    const std::size_t count = option->count();
    if (count > 1 && !o->m_Repeatable)
      throw UsageError(o->m_Name + " given twice");
    o->m_Values = o->m_Type == Option::Type::Flag ? std::vector<std::string>(count, "true") : option->results();
  }
  std::vector<std::size_t> used(m_Options.size(), 0);
  for (const CLI::Option * option : app.parse_order())
  {
    for (std::size_t i = 0; i < bound.size(); ++i)
    {
      if (bound[i].first != option)
        continue;
      Option & o = *bound[i].second;
      if (used[i] < o.m_Values.size())
        o.m_Set(o.m_Values[used[i]++]);
    }
  }
  for (const Option & o : m_Options)
  {
    if (o.m_Required && o.m_Values.empty())
      throw UsageError("missing " + o.m_Name + " " + o.m_Metavar);
  }
  // Before any work: an output that could not be written would waste it.
  for (const Option & o : m_Options)
  {
    if (o.m_Channel == Channel::Output && (o.m_Tag == "image" || o.m_Tag == "file") && !o.m_Values.empty())
      checkOutputPath(o.m_Name, o.m_Values.back());
  }
}

void
checkOutputPath(const std::string & option, const std::string & path)
{
  namespace fs = std::filesystem;
  const std::string what = option + " '" + path + "'";
  const fs::path    folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  std::error_code   error;
  if (fs::is_directory(path, error))
    throw std::runtime_error(what + " is a folder; give a file name in it");
  if (!fs::is_directory(folder, error))
    throw std::runtime_error(what + ": the folder '" + folder.string() + "' does not exist; create it first");
  if (::access(folder.c_str(), W_OK) != 0)
    throw std::runtime_error(what + ": the folder '" + folder.string() + "' is not writable");
}

bool
CommandLine::given(const std::string & name) const
{
  const Option * o = find(name);
  if (o == nullptr)
    throw std::logic_error("undeclared option " + name);
  if (o->m_Values.empty())
    return false;
  if (o->m_Type == Option::Type::Flag || o->m_Repeatable || !o->m_HasXmlDefault)
    return true;
  // The default, as Slicer passes it, or the same number written otherwise.
  const std::string & value = o->m_Values.back();
  if (value == o->m_XmlDefault)
    return false;
  char *       endValue = nullptr;
  char *       endDefault = nullptr;
  const double a = std::strtod(value.c_str(), &endValue), b = std::strtod(o->m_XmlDefault.c_str(), &endDefault);
  return !(*endValue == '\0' && *endDefault == '\0' && !value.empty() && !o->m_XmlDefault.empty() && a == b);
}

namespace {

constexpr std::size_t kHelpColumn = 30, kWidth = 100;

// Words of `text` in lines of at most kWidth characters, each line indented by `margin`; explicit newlines
// are kept.
std::string
wrap(const std::string & text, std::size_t margin)
{
  std::string        result, line;
  std::istringstream paragraphs(text);
  for (std::string paragraph; std::getline(paragraphs, paragraph);)
  {
    std::istringstream words(paragraph);
    line = std::string(margin, ' ');
    bool first = true;
    for (std::string word; words >> word; first = false)
    {
      if (!first && line.size() + 1 + word.size() > kWidth)
      {
        result += line + "\n";
        line = std::string(margin, ' ');
        first = true;
      }
      line += (first ? "" : " ") + word;
    }
    result += line + "\n";
  }
  if (!result.empty())
    result.pop_back();
  return result;
}

} // namespace

void
CommandLine::printHelp(std::ostream & out) const
{
  out << "usage: " << m_Tool << " " << m_Usage << "\n" << wrap(m_Purpose, 0) << "\n";
  out << wrap("Options (each hyphenated one also as --with_underscores, the spelling Slicer uses; an option "
              "given with its default value counts as not given):",
              0)
      << "\n";
  std::string group;
  for (const Option & o : m_Options)
  {
    if (m_Groups.size() > 1 && o.m_Group != group)
    {
      group = o.m_Group;
      out << " " << group << ":\n";
    }
    std::string head = "  " + o.m_Name + (o.m_Metavar.empty() ? "" : " " + o.m_Metavar);
    std::string help = o.m_Help;
    if (!o.m_Choices.empty() && help.find(o.m_Choices.front()) == std::string::npos)
    {
      help += " (one of";
      for (const std::string & c : o.m_Choices)
        help += " " + c;
      help += ")";
    }
    if (o.m_Required)
      help += " (required)";
    else if (!o.m_DefaultText.empty())
      help += " (default " + o.m_DefaultText + ")";
    head +=
      head.size() < kHelpColumn ? std::string(kHelpColumn - head.size(), ' ') : "\n" + std::string(kHelpColumn, ' ');
    out << head << wrap(help, kHelpColumn).substr(kHelpColumn) << "\n";
  }
  out << "  --xml" << std::string(kHelpColumn - 7, ' ') << "print the Slicer CLI module description (XML) and exit\n";
  out << "  --help" << std::string(kHelpColumn - 8, ' ') << "print this help and exit\n";
}

void
CommandLine::printXml(std::ostream & out) const
{
  out << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<executable>\n"
      << "  <category>" << xmlText(m_Module.category) << "</category>\n"
      << "  <title>" << xmlText(m_Module.title) << "</title>\n"
      << "  <description><![CDATA[" << m_Purpose << "]]></description>\n"
      << "  <version>" << MBIR_VERSION << "</version>\n"
      << "  <documentation-url>" << xmlText(MBIR_DOCUMENTATION_URL) << "</documentation-url>\n"
      << "  <license>Apache 2.0</license>\n"
      << "  <contributor>ITKMBIR contributors</contributor>\n"
      << "  <acknowledgements><![CDATA[Model-based iterative reconstruction after MBIRJAX's mathematics; "
         "the ITKMBIR engine on the CPU or NVIDIA GPUs.]]></acknowledgements>\n";
  for (const Group & g : m_Groups)
  {
    std::ostringstream body;
    for (const Option & o : m_Options)
    {
      if (o.m_Group != g.label || !o.m_InXml)
        continue;
      std::string tag = o.m_Tag;
      if (tag.empty())
      {
        tag = !o.m_Choices.empty()                ? "string-enumeration"
              : o.m_Type == Option::Type::Flag    ? "boolean"
              : o.m_Type == Option::Type::Number  ? "double"
              : o.m_Type == Option::Type::Integer ? "integer"
                                                  : "string";
      }
      const std::string name = slicerName(o.m_Name);
      std::string       label = o.m_Label;
      if (label.empty())
      {
        label = name;
        for (char & c : label)
          if (c == '_')
            c = ' ';
        label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
      }
      body << "    <" << tag;
      if (!o.m_Extensions.empty())
        body << " fileExtensions=\"" << xmlText(o.m_Extensions) << "\"";
      body << ">\n      <name>" << name << "</name>\n      <longflag>" << name << "</longflag>\n"
           << "      <label>" << xmlText(label) << "</label>\n"
           << "      <description><![CDATA[" << o.m_Help << "]]></description>\n";
      if (tag == "image" || tag == "file" || tag == "directory")
        body << "      <channel>" << (o.m_Channel == Channel::Input ? "input" : "output") << "</channel>\n";
      if (tag == "boolean")
        body << "      <default>false</default>\n";
      else if (o.m_HasXmlDefault)
        body << "      <default>" << xmlText(o.m_XmlDefault) << "</default>\n";
      for (const std::string & c : o.m_Choices)
        body << "      <element>" << xmlText(c) << "</element>\n";
      if ((tag == "double" || tag == "integer") && std::isfinite(o.m_Minimum))
        body << "      <constraints>\n        <minimum>" << shortest(o.m_Minimum) << "</minimum>\n        <maximum>"
             << shortest(o.m_Maximum) << "</maximum>\n        <step>" << shortest(o.m_Step) << "</step>\n"
             << "      </constraints>\n";
      body << "    </" << tag << ">\n";
    }
    if (body.str().empty())
      continue;
    out << "  <parameters>\n    <label>" << xmlText(g.label) << "</label>\n    <description><![CDATA["
        << (g.description.empty() ? g.label : g.description) << "]]></description>\n"
        << body.str() << "  </parameters>\n";
  }
  out << "</executable>\n";
}

} // namespace mbirtool
