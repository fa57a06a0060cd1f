#pragma once
// Multi-axis parallel-beam scan and recon grid (spec/projectors.md §5): parallel rays with a per-view
// azimuth (the parallel-beam angle, rotation about the slice axis) and elevation (tilt of the rays out of
// the slice plane toward +z); laminography is a constant elevation. Unlike MBIRJAX it honours the voxel
// aspects and uses the channel offset with the sign of the other geometries (spec §9.1, §9.2).

#include "mbir/DetectorAndGrid.h"
#include "mbir/kernels/MultiAxisParallel.h"

#include <vector>

namespace mbir {

struct MultiAxisParallelGeometry : DetectorAndGrid
{
  std::vector<float> angles;                  // azimuth per view [rad]
  std::vector<float> elevations;              // elevation per view [rad], |elevation| < pi/2
  float              reconSliceOffset = 0.0f; // object height of the centre of the slice range

  MultiAxisParallelGeometry() = default;
  // Sets the default recon grid from the detector.
  MultiAxisParallelGeometry(SinogramShape shape, std::vector<float> azimuths, std::vector<float> viewElevations);

  // The default grid: voxel pitch = channel pitch, rows and columns cover the detector width, slices
  // cover the detector height over the smallest cos(elevation) (at least 0.1).
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

  kernels::MultiAxisParallelParams
  kernelParams() const;

  std::vector<kernels::MultiAxisParallelView>
  viewTable() const;

  // Its parameters as the registry, the JSON files and the bindings see them (GeometryDescription.h).
  static const GeometryDescription<MultiAxisParallelGeometry> &
  description();
};

} // namespace mbir
