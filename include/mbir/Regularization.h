#pragma once
// Automatic regularisation from sinogram or image statistics (spec/solver.md §2.3, §5.4).

#include "mbir/ReconParams.h"
#include "mbir/Shapes.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mbir {

class DeviceVolume;

// 1 where the sinogram carries object signal, from a histogram estimate of the background level.
std::vector<std::uint8_t>
sinogramSupport(const std::vector<float> & values);

struct RegularizationInputs
{
  SinogramShape sinogramShape;
  ReconShape    reconShape;
  float         deltaVoxel = 1.0f;
  float         deltaDetChannel = 1.0f;
  float         magnification = 1.0f;
  float         snrDb = 30.0f;
  bool          estimateNoise = true;
  float         sharpness = 1.0f;
};

// sigmaY from snrDb and the signal level (MBIRJAX's rule); with estimateNoise, mismatchFactor > 1 when the
// sinogram's channel-to-channel variation shows more model mismatch than a voxel model's own data do (a
// heuristic, Regularization.cpp). sigmaX = sigmaProx = 0.2 * 2^sharpness * typical recon value.
// Uses the views statisticsSamples() names. weights == nullptr means unweighted.
RegularizationParams
autoRegularization(const float * sinogram, const float * weights, const RegularizationInputs & inputs);

// The fit test: the factor on sigmaY that a recon applies after its first iterations, from the raise the
// mismatch asks for and that iteration's forward loss (the residual in units of sigmaY). 1 when the data are
// fit well below the assumed noise; the whole mismatchFactor when they cannot be.
double
fitTestFactor(double mismatchFactor, double forwardLoss);

// About 20 evenly spaced indices along an axis of `length` (step length / min(20, length)): the views the
// sinogram statistics read and the rows of the denoiser's, so that device data need only these brought back.
std::vector<int>
statisticsSamples(int length);

// The same from those views alone, in their order (each rows x channels); empty weights: unweighted.
RegularizationParams
autoRegularizationFromViews(const std::vector<float> &   sampledViews,
                            const std::vector<float> &   sampledWeights,
                            const RegularizationInputs & inputs);

// Mean local standard deviation over the voxels at or above a noise floor (denoiser statistics).
double
localStandardDeviation(const float * image, const std::array<int, 3> & shape, double noiseFloor);

// Noise level of an image from its local standard deviations.
double
estimateImageNoise(const float * image, const std::array<int, 3> & shape);

// The same of a volume on its devices: sums on each device, and only scalars and one plane per device move
// (the volume comes back to the host only when no voxel reaches the noise floor, e.g. a negative image).
double
localStandardDeviation(const DeviceVolume & image, double noiseFloor);
double
estimateImageNoise(const DeviceVolume & image);

} // namespace mbir
