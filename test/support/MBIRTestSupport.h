#pragma once
// Helpers shared by the engine, ITK and CUDA tests: reproducible random arrays, float64 dot products,
// relative errors, the reference-file reader and groups of CPU devices.

#include "mbir/Devices.h"
#include "mbir/ParallelBeamGeometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mbir::test {

// Sets an environment variable for the scope (unsets it for nullopt) and restores what the test was started with.
class ScopedEnvironment
{
public:
  ScopedEnvironment(std::string name, const std::optional<std::string> & value)
    : m_Name(std::move(name))
  {
    if (const char * old = std::getenv(m_Name.c_str()))
    {
      m_Old = old;
    }
    set(value);
  }
  ~ScopedEnvironment() { set(m_Old); }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &
  operator=(const ScopedEnvironment &) = delete;

private:
  void
  set(const std::optional<std::string> & value) const
  {
    if (value)
    {
      setenv(m_Name.c_str(), value->c_str(), 1);
    }
    else
    {
      unsetenv(m_Name.c_str());
    }
  }
  std::string                m_Name;
  std::optional<std::string> m_Old;
};

// n CPU devices joined in one group by the engine's communicator for them.
inline std::shared_ptr<const DeviceGroup>
cpuDevices(int n)
{
  std::vector<std::shared_ptr<Backend>> devices;
  for (int d = 0; d < n; ++d)
    devices.push_back(makeCpuBackend());
  return std::make_shared<const DeviceGroup>(devices);
}

inline std::vector<float>
uniformRandom(std::size_t n, unsigned seed, float low = 0.0f, float high = 1.0f)
{
  std::mt19937                          engine(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float>                    values(n);
  for (float & v : values)
  {
    v = distribution(engine);
  }
  return values;
}

inline double
dot(const std::vector<float> & a, const std::vector<float> & b)
{
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    sum += static_cast<double>(a[i]) * b[i];
  }
  return sum;
}

// ||a - b|| / ||b||
inline double
relativeError(const std::vector<float> & a, const std::vector<float> & b)
{
  double diff = 0.0, ref = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
    ref += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(diff / ref);
}

// ||a - b|| / ||b|| against a reference computed in double.
inline double
relativeError(const std::vector<float> & a, const std::vector<double> & b)
{
  double diff = 0.0, ref = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
  {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    ref += b[i] * b[i];
  }
  return std::sqrt(diff / ref);
}

inline std::vector<float>
evenAngles(int views, double span, double start = 0.0)
{
  std::vector<float> angles(views);
  for (int v = 0; v < views; ++v)
  {
    angles[v] = static_cast<float>(start + span * v / views);
  }
  return angles;
}

// One named case of a reference file: lines "key n v1 ... vn" (n values) or "key value".
struct ReferenceCase
{
  std::string                                name;
  std::map<std::string, std::vector<double>> arrays;

  const std::vector<double> &
  at(const std::string & key) const
  {
    const auto it = arrays.find(key);
    if (it == arrays.end())
    {
      throw std::runtime_error("reference case " + name + " has no entry " + key);
    }
    return it->second;
  }
  double
  scalar(const std::string & key) const
  {
    return at(key).at(0);
  }
  std::vector<float>
  floats(const std::string & key) const
  {
    const std::vector<double> & v = at(key);
    return std::vector<float>(v.begin(), v.end());
  }
};

// Reads "case NAME" blocks; '#' starts a comment line.
inline std::vector<ReferenceCase>
readReferenceFile(const std::string & path)
{
  std::ifstream in(path);
  if (!in)
  {
    throw std::runtime_error("cannot open reference file " + path);
  }
  std::vector<ReferenceCase> cases;
  std::string                line;
  while (std::getline(in, line))
  {
    if (line.empty() || line[0] == '#')
    {
      continue;
    }
    std::istringstream words(line);
    std::string        key;
    words >> key;
    if (key == "case")
    {
      cases.emplace_back();
      words >> cases.back().name;
      continue;
    }
    if (cases.empty())
    {
      throw std::runtime_error("reference file " + path + ": entry before the first case");
    }
    std::vector<double> values;
    double              v;
    while (words >> v)
    {
      values.push_back(v);
    }
    if (values.size() > 1 && static_cast<std::size_t>(values[0]) == values.size() - 1)
    {
      values.erase(values.begin()); // drop the leading count
    }
    cases.back().arrays[key] = values;
  }
  return cases;
}

// Expects f() to throw std::invalid_argument whose message mentions `needle`.
template<typename F>
void
expectInvalid(F && f, const std::string & needle)
{
  try
  {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  }
  catch (const std::invalid_argument & e)
  {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

} // namespace mbir::test
