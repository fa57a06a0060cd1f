#pragma once
// qGGMRF denoising (spec/solver.md §5): MAP estimation with an identity forward model and white noise,
// on the VCD machinery of the reconstructor. Volume (d0, d1, d2) in, volume out; cylinders run along d2.

#include "mbir/ArrayView.h"
#include "mbir/Backend.h"
#include "mbir/DeviceData.h"
#include "mbir/MemoryPlan.h"
#include "mbir/ReconParams.h"

#include <memory>
#include <vector>

namespace mbir {

struct DenoiseParams
{
  float                sigmaNoise = 0.0f; // noise standard deviation; <= 0 estimates it from the image
  float                sharpness = 0.0f;  // sigmaX = 0.2 * 2^sharpness * local standard deviation
  float                p = 2.0f;
  float                q = 1.2f;
  float                T = 1.0f;
  std::array<float, 3> qggmrfNeighbourWeights{ 1.0f, 1.0f, 1.0f };
  int                  numSubsets = 16;
  int                  maxIterations = 15;
  float                stopThresholdChangePct = 0.2f;
  float                maxOverrelaxation = 1.5f;
  int                  verbose = 1;
  std::uint64_t        seed = 0;
  std::function<void(const std::string &)> logSink;
  ProgressCallback                         progress; // after every subset; false throws mbir::Aborted
  IterationCallback                        iterationDone; // after every iteration, with its log entry
};

struct DenoiseReport
{
  std::vector<IterationLog> log;
  float                     sigmaNoise = 0.0f;
  float                     sigmaX = 0.0f;
  std::string               logText;
};

struct DenoiseResult : DenoiseReport
{
  std::vector<float> image;
};

struct DeviceDenoiseResult : DenoiseReport
{
  DeviceVolume image;
};

// Every call checks the memory it needs (planned from the shape) against what the devices have free and
// throws OutOfDeviceMemory before allocating when it does not fit.
DenoiseResult
qggmrfDenoise(ArrayView3 image, const DenoiseParams & params, const std::shared_ptr<Backend> & backend);
// Across the devices of a group (the volume split by slice).
DenoiseResult
qggmrfDenoise(ArrayView3 image, const DenoiseParams & params, const std::shared_ptr<const DeviceGroup> & devices);
// The same on a volume already on the devices (its statistics are read back once); the result stays there.
DeviceDenoiseResult
qggmrfDenoise(const DeviceVolume & image, const DenoiseParams & params);

// The memory a denoising of this shape needs on each of numDevices devices; inputOnHost: the call uploads
// the image.
MemoryNeed
denoiseMemoryNeed(const ReconShape & shape, const DenoiseParams & params, int numDevices, bool inputOnHost);

} // namespace mbir
