#pragma once
// Checkpoints of an MBIR recon (README "Checkpoint and resume"): what a run saves, between two iterations or
// at an interrupt, to continue later exactly where it stopped, and the keys that tie it to its inputs.

#include "mbir/ReconParams.h"
#include "mbir/Shapes.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mbir {

// A 64-bit fingerprint of bytes (not cryptographic): equal data give equal keys on every machine of the same
// byte order, and a changed value changes the key with near certainty.
class Fingerprint
{
public:
  Fingerprint &
  add(const void * data, std::size_t bytes);
  Fingerprint &
  add(const std::string & text);
  template<typename T>
  Fingerprint &
  addValue(const T & value)
  {
    return add(&value, sizeof value);
  }
  std::uint64_t
  value() const;

private:
  std::uint64_t m_State = 0x6d6269722d6b6579ULL;
  std::uint64_t m_Bytes = 0;
};

// Where the VCD solver stands between two subset updates: iteration `iteration` of the schedule has done its first
// `subsetsDone` subsets (0 between iterations) in the order that the generator state `randomState` shuffles.
struct SolverState
{
  int                       iteration = 0;
  int                       subsetsDone = 0;
  double                    changed = 0.0, alphaSum = 0.0; // that iteration's sums over its subsets so far
  std::string               randomState;        // std::mt19937_64 as its stream operator writes it; empty: as given
  std::vector<IterationLog> log;                // the iterations done
  double                    sigmaYFactor = 1.0; // what the fit test applied
  bool                      fitTested = false;
};

// A recon's checkpoint: the solver's state, the volume it reached, and the keys that tie it to its inputs.
struct ReconCheckpoint
{
  // What the run was: a resume refuses a checkpoint whose keys differ from its own.
  std::uint64_t inputsKey = 0;     // the projections, weights and proximal-map input
  std::uint64_t geometryKey = 0;   // the geometry, its grid and ROR mask
  std::uint64_t parametersKey = 0; // every parameter that changes the result
  ReconShape    shape;

  int                scheduledIterations = 0;
  SolverState        state;
  std::string        regularizationNote;
  std::vector<float> volume; // (rows, cols, slices)
};

// Writes through a temporary file in the same folder, flushed to disk and renamed over `path`, so that a crash
// leaves either the previous checkpoint or the new one, never a truncated file. std::runtime_error names the
// path and the cause.
void
writeCheckpoint(const std::string & path, const ReconCheckpoint & checkpoint);

// Removes the temporary files of `path` that writers of this host killed mid-write (SIGKILL, power cut) left beside
// it; another host's, or a live writer's, are left alone. A run calls it once, before its first checkpoint.
void
removeStalePartialCheckpoints(const std::string & path);

// Reads and verifies (format, version, size, checksum); std::runtime_error names the path and what is wrong.
ReconCheckpoint
readCheckpoint(const std::string & path);

// Why `saved` cannot continue a run whose keys and shape are `current`'s (empty when it can).
std::string
checkpointMismatch(const ReconCheckpoint & saved, const ReconCheckpoint & current);

} // namespace mbir
