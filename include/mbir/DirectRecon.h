#pragma once
// Direct (filtered back-projection) reconstruction; for parallel beam the FBP of spec/projectors.md §2.4.

#include "mbir/Projector.h"

#include <vector>

namespace mbir {

// Scale of the ramp kernel that makes a uniform object reconstruct to its value.
float
directReconFilterScale(const Geometry & geometry);

// On the projector's device: `sinogram` in the device layout, `volume` all pixels x slices; the ROR
// cylinders of `volume` are overwritten, the others are left alone.
void
directReconOnDevice(const Projector & projector, const float * sinogram, float * volume);

// Host arrays in the public layouts; zero outside the ROR.
std::vector<float>
directRecon(const Projector & projector, const std::vector<float> & sinogram);

} // namespace mbir
