#pragma once
// Parallel-beam scan and recon grid (spec/projectors.md §2). A plain set of parameters: change fields,
// then call autoSetReconGeometry() if the detector or voxel aspects changed, as MBIRJAX does.

#include "mbir/RorMask.h"
#include "mbir/Shapes.h"
#include "mbir/kernels/ParallelBeam.h"

#include <vector>

namespace mbir {

struct ParallelBeamGeometry
{
  SinogramShape      sinogramShape;           // (views, rows, channels)
  std::vector<float> angles;                  // view angles [rad], one per view
  float              deltaDetChannel = 1.0f;  // detector channel pitch [ALU]
  float              deltaDetRow = 1.0f;      // detector row pitch [ALU]; sets the slice count only
  float              detChannelOffset = 0.0f; // [ALU]; the rotation axis hits channel (C-1)/2 + offset/pitch
  float              deltaVoxel = 0.0f;       // voxel pitch along columns [ALU]; set by autoSetReconGeometry
  float              voxelRowAspect = 1.0f;   // row pitch / column pitch
  float              voxelSliceAspect = 1.0f; // must be 1: slice pitch is the row pitch
  ReconShape         reconShape;              // (rows, cols, slices); set by autoSetReconGeometry
  RorMask            rorMask = RorMask::ellipse();

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
};

} // namespace mbir
