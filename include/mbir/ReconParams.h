#pragma once
// MBIR parameters with MBIRJAX's defaults (spec/solver.md §2.1), and what a reconstruction reports.

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbir {

// Reports the fraction of a long operation done, in (0, 1]; returns false to stop it.
using ProgressCallback = std::function<bool(double fraction)>;
struct IterationLog;
// Called after every iteration with its log entry: live convergence (progress bars, plots).
using IterationCallback = std::function<void(const IterationLog &)>;

// Thrown when a progress callback asks to stop; nothing partial is returned.
class Aborted : public std::runtime_error
{
public:
  Aborted()
    : std::runtime_error("stopped at the caller's request")
  {}
};

struct ReconParams
{
  // Regularisation. With autoRegularize, sigmaY, sigmaX and sigmaProx are set from the sinogram and
  // sharpness at the start of every recon; set autoRegularize = false to use the values given here.
  // sigmaY: from snrDb (MBIRJAX's rule) and, with estimateNoise, raised above that during the recon when the
  // sinogram shows detail that no voxel model fits and the fit confirms it (README "Automatic
  // regularisation"); an explicit SNR wants estimateNoise off.
  float sigmaY = 1.0f;
  float sigmaX = 1.0f;
  float sigmaProx = 1.0f;
  bool  autoRegularize = true;
  bool  estimateNoise = true;
  float snrDb = 30.0f;    // assumed sinogram signal-to-noise ratio [dB]
  float sharpness = 1.0f; // larger is sharper (sigmaX = 0.2 * 2^sharpness * typical recon value)

  // qGGMRF prior: quadratic (p) near 0, |delta|^q beyond T * sigmaX; neighbour weights [row, col, slice].
  float                p = 2.0f;
  float                q = 1.2f;
  float                T = 1.0f;
  std::array<float, 3> qggmrfNeighbourWeights{ 1.0f, 1.0f, 1.0f };

  bool positivity = false;

  // Multi-granular VCD: numbers of subsets available, and which one each iteration uses (the last entry
  // repeats); stop after maxIterations or when an iteration changes the recon by less than the threshold.
  std::vector<int> granularity{ 1, 2, 4, 8, 16, 32, 64, 128, 256 };
  std::vector<int> partitionSequence{ 0, 2, 4, 6, 7 };
  int              maxIterations = 15;
  float            stopThresholdChangePct = 0.2f;
  float            maxOverrelaxation = 1.5f;

  int           verbose = 1; // 0 quiet, 1 one line per iteration
  std::uint64_t seed = 0;    // partitions and subset order; equal seeds give equal results
  // The prior's cost in the log (IterationLog::priorLoss, totalCost): a pass over the whole volume every
  // iteration (6 % of a CPU recon), so off by default as in MBIRJAX; NaN in the log when off.
  bool computePriorLoss = false;

  // Checkpoint and resume (README "Checkpoint and resume"). With checkpointFile, the recon's state is saved there
  // after every checkpointEvery-th iteration (and when the progress callback stops it), each time through a
  // temporary file renamed into place. resumeFile continues a run from such a file instead of the initial image,
  // to the volume and iteration count of a run never stopped (to float rounding); it must have been made with the
  // same projections, weights, geometry and parameters, else the recon throws std::invalid_argument saying which.
  std::string checkpointFile;
  int         checkpointEvery = 1;
  std::string resumeFile;

  // Where log lines go at verbose >= 1 (standard output when empty).
  std::function<void(const std::string &)> logSink;
  // Called after every subset update with the fraction of the iterations done (0, 1]; returning false
  // stops the recon, which then throws mbir::Aborted.
  ProgressCallback  progress;
  IterationCallback iterationDone;
};

struct RegularizationParams
{
  float       sigmaY = 1.0f;
  float       sigmaX = 1.0f;
  float       sigmaProx = 1.0f;
  float       measuredNoise = 0.0f; // the sinogram noise and mismatch level measured (0: not measured)
  // The raise of sigmaY that the sinogram's model mismatch asks for, applied during the recon only if the
  // fit test confirms it (README "Automatic regularisation"); 1: none asked. The recon's report holds the
  // sigmaY it used in the end.
  float       mismatchFactor = 1.0f;
  std::string note; // how sigmaY was set, for the log
};

// One line of the reconstruction log.
struct IterationLog
{
  int    iteration = 0;
  int    numSubsets = 0;
  double changePct = 0.0;   // 100 * sum |update| / sum |x|
  double forwardLoss = 0.0; // sqrt(mean(W e^2 / mean W)) / sigmaY: about 1 at convergence
  double priorLoss = 0.0;   // prior cost per voxel (NaN unless ReconParams::computePriorLoss)
  double alpha = 0.0;       // mean step size over the subsets
  double seconds = 0.0;     // wall time of this iteration
  double totalCost = 0.0;   // (1 / 2 sigmaY^2) ||y - Ax||_W^2 + prior cost (NaN as priorLoss)
};

// What a reconstruction reports besides the volume.
struct ReconReport
{
  std::vector<IterationLog> log;
  RegularizationParams      regularization;
  std::string               logText;
  bool                      stoppedOnThreshold = false;
};

struct ReconResult : ReconReport
{
  std::vector<float> recon; // (rows, cols, slices)
};

} // namespace mbir
