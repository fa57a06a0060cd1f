#include "mbir/ProcessGroup.h"

#include "mbir/Communicator.h"
#include "mbir/Config.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#if MBIR_USE_MPI
#  define OMPI_SKIP_MPICXX 1 // the C API only: no C++ bindings to link
#  define MPICH_SKIP_MPICXX 1
#  include <mpi.h>
#endif

namespace mbir {
namespace {

// The address every allocation of a remote device gets: never read or written (the device's operations do
// nothing), but not null, so that code testing a pointer (weights given or not) decides alike on every rank.
alignas(64) unsigned char remoteStandIn[64];

class RemoteDevice final : public Backend
{
public:
  RemoteDevice(Kind kind, int rank)
    : m_Kind(kind)
    , m_Rank(rank)
  {}

  std::string
  description() const override
  {
    return std::string(m_Kind == Kind::Gpu ? "GPU" : "CPU") + " of rank " + std::to_string(m_Rank);
  }
  Kind
  kind() const override
  {
    return m_Kind;
  }
  bool
  remote() const override
  {
    return true;
  }
  std::size_t
  freeBytes() const override
  {
    return std::numeric_limits<std::size_t>::max() / 4; // its own rank plans and checks its memory
  }
  int
  memoryPool() const override
  {
    return -2 - m_Rank; // not this host's
  }
  void
  fillZero(void *, std::size_t) override
  {}
  void
  forwardProject(const DeviceModel &, const CylinderBatch &, const float *, const ViewRange &, float *) override
  {}
  void
  backProject(const DeviceModel &, const CylinderBatch &, const float *, const float *, const ViewRange &, int, float *)
    override
  {}
  void
  rampFilter(const float *, const SinogramShape &, const std::vector<RampDirection> &, float *) override
  {}
  void
  multiplyPeriodic(const float *, std::size_t, float *, std::size_t) override
  {}
  void
  divideWherePositive(const float *, const float *, float *, std::size_t) override
  {}
  void
  copy(const float *, float *, std::size_t) override
  {}
  void
  copyRows(const float *, std::size_t, float *, std::size_t, std::size_t, std::size_t) override
  {}
  void
  fill(float, float *, std::size_t) override
  {}
  void
  axpby(float, const float *, float, float *, std::size_t) override
  {}
  double
  sumAbs(const float *, std::size_t) override
  {
    return 0.0;
  }
  WeightedProducts
  weightedProducts(const float *, const float *, const float *, std::size_t) override
  {
    return {};
  }
  void
  fillSlices(float, float *, std::size_t, int, int, int) override
  {}
  void
  gatherCylinders(const float *, const CylinderBatch &, float *) override
  {}
  void
  gatherSlice(const float *, const CylinderBatch &, int, float *) override
  {}
  double
  scatterAddCylinders(float, const float *, const CylinderBatch &, float *) override
  {
    return 0.0;
  }
  void
  qggmrfGradientHessian(const kernels::QGGMRFParams &,
                        const float *,
                        const ReconShape &,
                        const kernels::SliceShard &,
                        const CylinderBatch &,
                        const float *,
                        const float *,
                        float *,
                        float *) override
  {}
  double
  qggmrfCost(const kernels::QGGMRFParams &,
             const float *,
             const ReconShape &,
             const kernels::SliceShard &,
             const float *) override
  {
    return 0.0;
  }
  WeightedProducts
  localDeviationSums(const float *, const ReconShape &, int, const float *, double) override
  {
    return {};
  }
  DirectionSums
  vcdDirection(float, const float *, const float *, const float *, const float *, std::size_t, float *) override
  {
    return {};
  }
  void
  clipForPositivity(const float *, float, std::size_t, float *) override
  {}

protected:
  DeviceAllocation
  allocateOnDevice(std::size_t bytes) override
  {
    return DeviceAllocation(bytes ? remoteStandIn : nullptr, bytes, [](void *, std::size_t) {});
  }
  void
  writeDevice(const void *, void *, std::size_t) override
  {}
  // Zeros: a host array assembled from every device's download holds each owner's part and zeros elsewhere,
  // which Communicator::completeOnHost sums across the processes.
  void
  readDevice(const void *, void * host, std::size_t bytes) override
  {
    std::memset(host, 0, bytes);
  }
  void
  writeSinogram(const float *, const SinogramShape &, float *) override
  {}
  void
  readSinogram(const float *, const SinogramShape & shape, float * host) override
  {
    std::fill_n(host, shape.size(), 0.0f);
  }
  void
  writeDeviceRows(const void *, std::size_t, void *, std::size_t, std::size_t, std::size_t) override
  {}

private:
  Kind m_Kind;
  int  m_Rank;
};

#if MBIR_USE_MPI

// Launched by an MPI launcher with more than one process: Open MPI's mpirun, MPICH / Hydra (PMI) and Slurm's srun
// set these. MPI itself then says how many processes there are (one, when started outside a launcher's job step).
int
launcherSize()
{
  for (const char * name : { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS" })
  {
    if (const char * text = std::getenv(name))
    {
      return std::atoi(text);
    }
  }
  return 1;
}

void
checkMpi(int status, const char * what)
{
  if (status != MPI_SUCCESS)
  {
    char text[MPI_MAX_ERROR_STRING];
    int  length = 0;
    MPI_Error_string(status, text, &length);
    throw std::runtime_error(std::string("MPI error in ") + what + ": " + std::string(text, length));
  }
}

// MPI counts are ints: larger transfers go in chunks.
constexpr std::size_t kMaxMpiCount = std::size_t(1) << 30;

// Calls `call(first, length)` over [0, count) in chunks of at most `most` elements.
template<typename TCall>
void
forEachMpiChunk(std::size_t count, std::size_t most, TCall call)
{
  for (std::size_t first = 0; first < count; first += most)
  {
    call(first, static_cast<int>(std::min(count - first, most)));
  }
}

// One device per rank, device d on rank d; the others' devices are RemoteDevice. Each collective is the MPI one:
// every rank calls it at the same point of the same sequence (the engine's code is the same on every rank).
// Device memory that the host cannot address (a GPU without CUDA-aware MPI) goes through a host buffer.
class MpiCommunicator final : public Communicator
{
public:
  explicit MpiCommunicator(std::vector<Backend *> devices)
    : m_Devices(std::move(devices))
    , m_Rank(processGroup().rank)
  {
    if (static_cast<int>(m_Devices.size()) != processGroup().size || m_Devices[m_Rank]->remote())
    {
      throw std::invalid_argument("an MPI device group has one device per rank, device r on rank r: got " +
                                  std::to_string(m_Devices.size()) + " devices for " +
                                  std::to_string(processGroup().size) + " ranks");
    }
  }

  CommunicatorKind
  kind() const override
  {
    return CommunicatorKind::Mpi;
  }

  void
  reduceScatter(const std::vector<const float *> & send,
                const std::vector<float *> &       receive,
                std::size_t                        count) override
  {
    const std::size_t  n = m_Devices.size();
    const float *      in = send[m_Rank];
    float *            out = receive[m_Rank];
    std::vector<float> hostIn, hostOut;
    if (!onHost())
    {
      hostIn.resize(n * count);
      hostOut.resize(count);
      mine().copyToHost(in, hostIn.data(), hostIn.size() * sizeof(float));
      in = hostIn.data();
      out = hostOut.data();
    }
    // Chunks of the blocks: chunk c of every block goes to its owner in one call.
    std::vector<float> chunkIn;
    forEachMpiChunk(count, kMaxMpiCount / n, [&](std::size_t first, int length) {
      const float * source = in;
      if (std::size_t(length) != count)
      {
        chunkIn.resize(n * length);
        for (std::size_t o = 0; o < n; ++o)
        {
          std::copy_n(in + o * count + first, length, chunkIn.data() + o * length);
        }
        source = chunkIn.data();
      }
      checkMpi(MPI_Reduce_scatter_block(source, out + first, length, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
               "MPI_Reduce_scatter_block");
    });
    if (!onHost())
    {
      mine().copyToDevice(hostOut.data(), receive[m_Rank], count * sizeof(float));
    }
  }

  void
  allGather(const std::vector<const float *> & send, const std::vector<float *> & receive, std::size_t count) override
  {
    const std::size_t  n = m_Devices.size();
    const float *      in = send[m_Rank];
    float *            out = receive[m_Rank];
    std::vector<float> hostIn, hostOut;
    if (!onHost())
    {
      hostIn.resize(count);
      hostOut.resize(n * count);
      mine().copyToHost(in, hostIn.data(), count * sizeof(float));
      in = hostIn.data();
      out = hostOut.data();
    }
    if (n * count <= kMaxMpiCount)
    {
      checkMpi(
        MPI_Allgather(in, static_cast<int>(count), MPI_FLOAT, out, static_cast<int>(count), MPI_FLOAT, MPI_COMM_WORLD),
        "MPI_Allgather");
    }
    else
    {
      for (std::size_t o = 0; o < n; ++o) // each owner's block from its owner, in chunks
      {
        if (o == std::size_t(m_Rank))
          std::copy_n(in, count, out + o * count);
        broadcastFloats(static_cast<int>(o), out + o * count, count);
      }
    }
    if (!onHost())
    {
      mine().copyToDevice(hostOut.data(), receive[m_Rank], n * count * sizeof(float));
    }
  }

  void
  copy(int from, const float * src, int to, float * dst, std::size_t count) override
  {
    if (count == 0 || (from != m_Rank && to != m_Rank))
    {
      return;
    }
    if (from == to)
    {
      mine().copy(src, dst, count);
      return;
    }
    std::vector<float> staging(count);
    if (from == m_Rank)
    {
      mine().copyToHost(src, staging.data(), count * sizeof(float));
      forEachMpiChunk(count, kMaxMpiCount, [&](std::size_t first, int length) {
        checkMpi(MPI_Send(staging.data() + first, length, MPI_FLOAT, to, 0, MPI_COMM_WORLD), "MPI_Send");
      });
    }
    else
    {
      forEachMpiChunk(count, kMaxMpiCount, [&](std::size_t first, int length) {
        checkMpi(MPI_Recv(staging.data() + first, length, MPI_FLOAT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 "MPI_Recv");
      });
      mine().copyToDevice(staging.data(), dst, count * sizeof(float));
    }
  }

  void
  broadcast(int root, const std::vector<float *> & buffers, std::size_t count) override
  {
    std::vector<float> staging(count);
    if (root == m_Rank)
      mine().copyToHost(buffers[m_Rank], staging.data(), count * sizeof(float));
    broadcastFloats(root, staging.data(), count);
    if (root != m_Rank)
      mine().copyToDevice(staging.data(), buffers[m_Rank], count * sizeof(float));
  }

  double
  allReduceSum(const std::vector<double> & values) override
  {
    double mineValue = values[m_Rank], sum = 0.0;
    checkMpi(MPI_Allreduce(&mineValue, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return sum;
  }

  void
  barrier() override
  {
    checkMpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  }

  void
  completeOnHost(float * host, std::size_t count) override
  {
    forEachMpiChunk(count, kMaxMpiCount, [&](std::size_t first, int length) {
      checkMpi(MPI_Allreduce(MPI_IN_PLACE, host + first, length, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    });
  }

  void
  gatherOnHost(const float * mine, std::size_t count, float * whole) override
  {
    constexpr int                   kGatherTag = 1; // apart from the halo copies' messages
    unsigned long long              mineCount = count;
    std::vector<unsigned long long> counts(m_Devices.size());
    checkMpi(
      MPI_Gather(&mineCount, 1, MPI_UNSIGNED_LONG_LONG, counts.data(), 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD),
      "MPI_Gather");
    if (m_Rank != 0)
    {
      forEachMpiChunk(count, kMaxMpiCount, [&](std::size_t first, int length) {
        checkMpi(MPI_Send(mine + first, length, MPI_FLOAT, 0, kGatherTag, MPI_COMM_WORLD), "MPI_Send");
      });
      return;
    }
    if (mine != whole)
      std::copy(mine, mine + count, whole);
    std::size_t offset = count;
    for (std::size_t rank = 1; rank < counts.size(); offset += counts[rank++])
    {
      forEachMpiChunk(counts[rank], kMaxMpiCount, [&](std::size_t first, int length) {
        checkMpi(MPI_Recv(whole + offset + first,
                          length,
                          MPI_FLOAT,
                          static_cast<int>(rank),
                          kGatherTag,
                          MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE),
                 "MPI_Recv");
      });
    }
  }

private:
  Backend &
  mine() const
  {
    return *m_Devices[m_Rank];
  }
  bool
  onHost() const
  {
    return mine().kind() == Backend::Kind::Cpu;
  }
  void
  broadcastFloats(int root, float * data, std::size_t count)
  {
    forEachMpiChunk(count, kMaxMpiCount, [&](std::size_t first, int length) {
      checkMpi(MPI_Bcast(data + first, length, MPI_FLOAT, root, MPI_COMM_WORLD), "MPI_Bcast");
    });
  }

  std::vector<Backend *> m_Devices;
  int                    m_Rank;
};

ProcessGroup
startMpi()
{
  ProcessGroup group;
  if (launcherSize() <= 1)
  {
    return group;
  }
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised)
  {
    int provided = 0;
    checkMpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    std::atexit([] {
      int finalised = 0;
      MPI_Finalized(&finalised);
      if (!finalised)
        MPI_Finalize();
    });
  }
  // Errors come back as codes, which checkMpi turns into exceptions that name the call.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &group.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &group.size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, group.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &group.localRank);
  MPI_Comm_size(node, &group.localSize);
  MPI_Comm_free(&node);
  const int first = group.localRank == 0 ? 1 : 0;
  MPI_Allreduce(&first, &group.nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return group;
}

#endif

} // namespace

const ProcessGroup &
processGroup()
{
#if MBIR_USE_MPI
  static const ProcessGroup group = startMpi();
#else
  static const ProcessGroup group;
#endif
  return group;
}

bool
mpiBuilt()
{
  return MBIR_USE_MPI;
}

void
abortProcessGroup(int code)
{
#if MBIR_USE_MPI
  if (processGroup().size > 1)
  {
    std::cout.flush();
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, code);
  }
#else
  (void)code;
#endif
}

std::shared_ptr<Backend>
makeRemoteDevice(Backend::Kind kind, int rank)
{
  return std::make_shared<RemoteDevice>(kind, rank);
}

namespace detail {
std::unique_ptr<Communicator>
makeMpiCommunicator(std::vector<Backend *> devices)
{
#if MBIR_USE_MPI
  return std::make_unique<MpiCommunicator>(std::move(devices));
#else
  (void)devices;
  throw std::runtime_error("this build of the engine has no MPI; rebuild with Open MPI found (MBIR_USE_MPI=ON)");
#endif
}
} // namespace detail

} // namespace mbir
