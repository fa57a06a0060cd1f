#pragma once
// Direct (non-iterative) reconstruction, the default MBIR initial image: FBP for parallel beam
// (spec/projectors.md §2.4), FDK for cone beam with the helical slice correction (§3.5), a directional
// FBP for multi-axis parallel beam (§5.4), and a normalised back projection for translation and any other
// geometry without a filter of its own. Each device filters its own views; the back projection gathers
// the slices onto their owners.

#include "mbir/Projector.h"

#include <vector>

namespace mbir {

// Whether the geometry's direct recon is a filtered back projection (a filteredDirect() overload in
// DirectRecon.cpp); otherwise it is the normalised back projection, which needs no filter of its own.
bool
directReconFilters(const Geometry & geometry);

// Overwrites the ROR cylinders of `volume` (on the projector's devices) with the direct recon of
// `sinogram`; the other cylinders are left alone.
void
directReconInto(const Projector & projector, const DeviceSinogram & sinogram, DeviceVolume & volume);

// Zero outside the ROR.
DeviceVolume
directRecon(const Projector & projector, const DeviceSinogram & sinogram);
// A sinogram (views, rows, channels) on the host, or in a GPU's memory when the projector's devices are GPUs.
std::vector<float>
directRecon(const Projector & projector, ArrayView3 sinogram);
std::vector<float>
directRecon(const Projector & projector, const std::vector<float> & sinogram);

} // namespace mbir
