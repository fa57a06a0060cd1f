// Runs a fuzz target over files and folders of inputs, without libFuzzer: the seed corpus and the regressions
// (inputs that once crashed) as ordinary tests in every build.
//   fuzz-geometry-json FILE|FOLDER...

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size);

int
main(int argc, char ** argv)
{
  ::setenv("MBIR_FUZZ_REPLAY", "1", 1); // a replay takes every branch of a target, those fuzzed only on request too
  namespace fs = std::filesystem;
  std::size_t inputs = 0;
  auto        run = [&inputs](const fs::path & file) {
    std::ifstream           in(file, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size());
    ++inputs;
  };
  for (int a = 1; a < argc; ++a)
  {
    const fs::path path(argv[a]);
    if (!fs::exists(path))
    {
      std::cerr << argv[a] << ": no such file or folder\n";
      return 1;
    }
    if (fs::is_directory(path))
    {
      for (const auto & entry : fs::recursive_directory_iterator(path))
        if (entry.is_regular_file())
          run(entry.path());
    }
    else
      run(path);
  }
  std::cout << inputs << " inputs, none failed\n";
  return inputs > 0 ? 0 : 1;
}
