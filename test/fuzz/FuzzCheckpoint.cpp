// Fuzz target: the checkpoint reader. Any bytes either read or are refused with std::runtime_error naming the file
// (never a crash, a huge allocation from a lying header, or undefined behaviour); a checkpoint that reads writes
// back to one that reads the same.

#include "FuzzScratch.h"
#include "mbir/Checkpoint.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const std::uint8_t * data, std::size_t size)
{
  static const FuzzScratch scratch("mbir-fuzz-checkpoint");
  static const std::string path = scratch.path().string();
  std::FILE *              file = std::fopen(path.c_str(), "wb");
  if (!file)
    std::abort();
  std::fwrite(data, 1, size, file);
  std::fclose(file);
  mbir::ReconCheckpoint checkpoint;
  try
  {
    checkpoint = mbir::readCheckpoint(path);
  }
  catch (const std::runtime_error &)
  {
    return 0;
  }
  mbir::writeCheckpoint(path, checkpoint);
  const mbir::ReconCheckpoint again = mbir::readCheckpoint(path);
  if (again.volume != checkpoint.volume || again.state.log.size() != checkpoint.state.log.size() ||
      again.state.randomState != checkpoint.state.randomState || again.state.iteration != checkpoint.state.iteration)
    std::abort();
  return 0;
}
