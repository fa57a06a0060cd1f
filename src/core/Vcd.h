#pragma once
// Multi-granular vectorised coordinate descent (spec/solver.md §3), written once for every forward
// model and every number of devices: the reconstructor's projector and the denoiser's identity plug in
// as a DataTerm; the volume is split by slice over the devices of a group (N = 1 is one device).

#include "mbir/Checkpoint.h"
#include "mbir/Devices.h"
#include "mbir/ReconParams.h"

#include <array>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace mbir::detail {

// One array per device (pixel lists, scratch).
template<typename T>
using PerDevice = std::vector<T>;

// The volume being solved for: every pixel, slices split by `slices` over the group's devices.
struct VcdVolume
{
  const DeviceGroup *      group = nullptr;
  ShardLayout              slices;
  ReconShape               shape;  // the real volume
  PerDevice<float *>       shards; // all pixels x slices.perDevice on each device
  PerDevice<CylinderBatch> all;    // every pixel on each device, in order

  ReconShape
  shardShape() const
  {
    return ReconShape{ shape.rows, shape.cols, slices.perDevice };
  }
  int
  size() const
  {
    return group->size();
  }
};

// The forward-model side of one subset update; every array lives on its device.
class DataTerm
{
public:
  virtual ~DataTerm() = default;
  // gradient[d] = A_J^T W e (unscaled) at device d's slices, and the data Hessian diagonal there (set
  // `hessianIsOne` when it is identically 1 and leave `hessian` alone).
  virtual void
  gradient(const PerDevice<CylinderBatch> & subset,
           const PerDevice<float *> &       gradient,
           const PerDevice<float *> &       hessian,
           bool &                           hessianIsOne) = 0;
  // d = A_J delta, kept for update(). The line search's linear term sum(W e d) is not needed here: it
  // equals delta . A_J^T W e, which vcdDirection sums from the gradient.
  virtual void
  predict(const PerDevice<CylinderBatch> & subset, const PerDevice<const float *> & delta) = 0;
  // sum(W d^2) over every device for the last prediction.
  virtual double
  predictedNorm() = 0;
  // e -= alpha * d for the last prediction. A data term may defer it to the next gradient(), which then applies it as
  // it reads e; weightedErrorSquared() and settle() apply a deferred update.
  virtual void
  update(const PerDevice<CylinderBatch> & subset, float alpha) = 0;
  virtual void
  settle()
  {}
  // sum(W e^2) over the real data
  virtual double
  weightedErrorSquared() = 0;
  // mean(W) over the real entries, and their count, for the normalised forward loss.
  virtual double
  meanWeight() const = 0;
  virtual double
  numData() const = 0;
};

// The prior side: qGGMRF, or the proximal term ||x - v||^2 / (2 sigma^2).
struct PriorTerm
{
  kernels::QGGMRFParams    qggmrf{};
  PerDevice<const float *> proxInput; // one shard per device; non-empty selects the proximal prior
  float                    sigmaProx = 1.0f;
};

// The qGGMRF parameters from the user's scale, exponents, threshold and per-axis neighbour weights.
kernels::QGGMRFParams
makeQGGMRFParams(float sigmaX, float p, float q, float T, const std::array<float, 3> & neighbourWeights);

// A log that keeps every line in `text` and passes it to `sink`, or to standard output when empty.
std::function<void(const std::string &)>
makeLog(const std::function<void(const std::string &)> & sink, std::string & text);

struct VcdSettings
{
  float                                    dataScale = 1.0f; // 1 / sigmaY^2
  float                                    maxOverrelaxation = 1.5f;
  bool                                     positivity = false;
  float                                    stopThresholdChangePct = 0.2f;
  bool                                     shuffleSubsets = true;
  bool                                     computePriorLoss = true; // else priorLoss and totalCost are NaN
  int                                      verbose = 1;
  std::function<void(const std::string &)> log;
  ProgressCallback                         progress; // after every subset; false throws mbir::Aborted
  IterationCallback                        iterationDone; // after every iteration, with its log entry
  // Called once, after iteration fitTestIteration (0-based) or at an earlier stop, with that iteration's log;
  // returns a factor on sigmaY (1 keeps it), and the iterations go on with it.
  std::function<double(const IterationLog &)> fitTest;
  int                                         fitTestIteration = 4;
  // Resumes from this state (the default starts at the beginning) on the volume it was saved with.
  SolverState start; // where a resumed run starts (a checkpoint's state)
  // Called with the state after every checkpointEvery-th iteration that the run goes on from, and before a stop
  // the progress callback asks for (the volume is the caller's, as it stands).
  std::function<void(const SolverState &)> checkpoint;
  int                                      checkpointEvery = 1;
};

struct VcdOutcome
{
  std::vector<IterationLog> log; // of every iteration, those before a resume included
  bool                      stoppedOnThreshold = false;
  double                    sigmaYFactor = 1.0; // what the fit test applied
};

// Pixel subsets on every device: partitions[g][s][d].
using Partitions = std::vector<std::vector<PerDevice<DeviceArray<int>>>>;

// Runs the iterations on `volume` in place. `partitions[i]` holds the subsets of partition i; `schedule`
// names the partition of each iteration. When the progress callback asks to stop, throws mbir::Aborted
// between two subsets (after the checkpoint callback, when there is one).
VcdOutcome
runVcd(VcdVolume &              volume,
       DataTerm &               data,
       const PriorTerm &        prior,
       const Partitions &       partitions,
       const std::vector<int> & schedule,
       const VcdSettings &      settings,
       std::mt19937_64 &        random);

// The prior's cost at `volume`.
double
priorCost(const VcdVolume & volume, const PriorTerm & prior);

} // namespace mbir::detail
