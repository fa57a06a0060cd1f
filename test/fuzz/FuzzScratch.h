// Where a fuzz target writes the files it reads back: a path of this process's own under the temporary folder,
// removed when the process exits (the end of a fuzzing run or of a replay), so that runs leave nothing behind.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

class FuzzScratch
{
public:
  explicit FuzzScratch(const std::string & name)
    : m_Path(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid())))
  {}
  ~FuzzScratch()
  {
    std::error_code ignored; // at exit: nothing to report to
    std::filesystem::remove_all(m_Path, ignored);
  }
  FuzzScratch(const FuzzScratch &) = delete;
  FuzzScratch &
  operator=(const FuzzScratch &) = delete;

  const std::filesystem::path &
  path() const
  {
    return m_Path;
  }

private:
  std::filesystem::path m_Path;
};
