#pragma once
// Multi-granular vectorised coordinate descent (spec/solver.md §3), written once for every forward
// model: the reconstructor's projector and the denoiser's identity plug in as a DataTerm.

#include "mbir/Backend.h"
#include "mbir/ReconParams.h"

#include <array>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace mbir::detail {

// The forward-model side of one subset update; all buffers live on the backend's device.
class DataTerm
{
public:
  virtual ~DataTerm() = default;
  // gradient = A_J^T W e (unscaled), and the data Hessian diagonal at J into `hessian` (set
  // `hessianIsOne` when it is identically 1 and leave `hessian` alone).
  virtual void
  gradient(const CylinderBatch & subset, float * gradient, float * hessian, bool & hessianIsOne) = 0;
  // Computes d = A_J delta and returns sum(W e d) and sum(W d^2).
  virtual Backend::WeightedProducts
  predict(const CylinderBatch & subset, const float * delta) = 0;
  // e -= alpha * d for the last prediction.
  virtual void
  update(const CylinderBatch & subset, float alpha) = 0;
  // sum(W e^2)
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
  kernels::QGGMRFParams qggmrf{};
  const float *         proxInput = nullptr; // device volume; non-null selects the proximal prior
  float                 sigmaProx = 1.0f;
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
  int                                      verbose = 1;
  std::function<void(const std::string &)> log;
  ProgressCallback                         progress; // after every subset; false throws mbir::Aborted
};

struct VcdOutcome
{
  std::vector<IterationLog> log;
  bool                      stoppedOnThreshold = false;
};

// Runs the iterations on `volume` (all pixels x slices, on the device) in place. When the progress
// callback asks to stop, throws mbir::Aborted between two subsets. `partitions[i]` holds
// the subsets of partition i as device pixel arrays; `schedule` names the partition of each iteration.
VcdOutcome
runVcd(Backend &                                          backend,
       const ReconShape &                                 shape,
       float *                                            volume,
       DataTerm &                                         data,
       const PriorTerm &                                  prior,
       const std::vector<std::vector<DeviceArray<int>>> & partitions,
       const std::vector<int> &                           schedule,
       const VcdSettings &                                settings,
       std::mt19937_64 &                                  random);

// The prior's cost at `volume`.
double
priorCost(Backend & backend, const ReconShape & shape, const float * volume, const PriorTerm & prior);

} // namespace mbir::detail
