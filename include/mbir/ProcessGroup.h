#pragma once
// The processes of one reconstruction. Under an MPI launcher (mpirun, srun) with more than one process, each
// process (rank) holds one device, the others' devices stand in as RemoteDevice, and an MPI communicator
// joins them (README "Across nodes"); otherwise there is one process.

#include "mbir/Backend.h"

#include <memory>
#include <string>

namespace mbir {

struct ProcessGroup
{
  int rank = 0;      // this process among all
  int size = 1;      // processes in the reconstruction
  int localRank = 0; // this process among those on its node
  int localSize = 1; // processes on its node
  int nodes = 1;
};

// This process's place; MPI is initialised at the first call when the process was launched by an MPI launcher
// with more than one process (and finalised at exit), and never otherwise. Built without MPI: one process.
const ProcessGroup &
processGroup();

// Whether this engine was built with MPI (MBIR_USE_MPI).
bool
mpiBuilt();

// Ends every process of the group with `code` after an error in one of them, so that none waits forever in a
// collective; returns normally in a single process.
void
abortProcessGroup(int code);

// A device owned by process `rank`: it holds no memory here, its operations do nothing, its scalars are 0 and its
// downloads zeros, so that every process runs the same sequence of calls and collectives while each computes only
// on its own device.
std::shared_ptr<Backend>
makeRemoteDevice(Backend::Kind kind, int rank);

} // namespace mbir
