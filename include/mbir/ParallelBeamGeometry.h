#pragma once
// Parallel-beam scan and recon grid (spec/projectors.md §2). A plain set of parameters: change fields,
// then call autoSetReconGeometry() if the detector or voxel aspects changed, as MBIRJAX does.

#include "mbir/DetectorAndGrid.h"
#include "mbir/kernels/ParallelBeam.h"

#include <vector>

namespace mbir {

// Slice k is detector row k, so the slice pitch is the row pitch: voxel_slice_aspect must be 1 and
// det_row_offset 0.
struct ParallelBeamGeometry : DetectorAndGrid
{
  std::vector<float> angles; // view angles [rad], one per view

  ParallelBeamGeometry() = default;
  // Sets the default recon grid from the detector.
  ParallelBeamGeometry(SinogramShape shape, std::vector<float> viewAngles);

  // The default grid: deltaVoxel = channel pitch, recon covers the detector width, one slice per row.
  void
  autoSetReconGeometry();

  // Throws std::invalid_argument naming the parameter and the fix when the geometry is unusable.
  void
  validate() const;

  float
  magnification() const
  {
    return 1.0f;
  }

  kernels::ParallelBeamParams
  kernelParams() const;

  std::vector<kernels::ParallelBeamView>
  viewTable() const;

  // Its parameters as the registry, the JSON files and the bindings see them (GeometryDescription.h).
  static const GeometryDescription<ParallelBeamGeometry> &
  description();
};

} // namespace mbir
