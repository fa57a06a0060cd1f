#pragma once
// Direct (non-iterative) reconstruction, the default MBIR initial image: FBP for parallel beam
// (spec/projectors.md §2.4), FDK for cone beam with the helical slice correction (§3.5), a directional
// FBP for multi-axis parallel beam (§5.4), and a normalised back projection for translation.

#include "mbir/Projector.h"

#include <vector>

namespace mbir {

// On the projector's device: `sinogram` in the device layout, `volume` all pixels x slices; the ROR
// cylinders of `volume` are overwritten, the others are left alone.
void
directReconOnDevice(const Projector & projector, const float * sinogram, float * volume);

// Host arrays in the public layouts; zero outside the ROR.
std::vector<float>
directRecon(const Projector & projector, const std::vector<float> & sinogram);
DeviceVolume
directRecon(const Projector & projector, const DeviceSinogram & sinogram);

} // namespace mbir
