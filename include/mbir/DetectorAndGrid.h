#pragma once
// The parameters every scan geometry shares (spec/projectors.md §1.1): the detector, the recon grid and
// the region of reconstruction. Lengths are in ALU: one unit of your choice (mm, or one channel pitch),
// the same for every length of a geometry; the recon is then in 1/ALU.

#include "mbir/RorMask.h"
#include "mbir/Shapes.h"
#include "mbir/kernels/RowMap.h"

#include <string>

namespace mbir {

// Each geometry struct describes its parameters with a static description() (GeometryDescription.h).
template<typename G>
struct GeometryDescription;

struct DetectorAndGrid
{
  SinogramShape sinogramShape;           // (views, rows, channels)
  float         deltaDetChannel = 1.0f;  // detector channel pitch
  float         deltaDetRow = 1.0f;      // detector row pitch
  float         detChannelOffset = 0.0f; // the central ray hits channel (C-1)/2 + offset / pitch
  float         detRowOffset = 0.0f;     // the central ray hits row (R-1)/2 + offset / pitch
  float         deltaVoxel = 0.0f;       // voxel pitch along columns (x); set by autoSetReconGeometry
  float         voxelRowAspect = 1.0f;   // row (y) pitch / column pitch
  float         voxelSliceAspect = 1.0f; // slice (z) pitch / column pitch
  ReconShape    reconShape;              // (rows, cols, slices); set by autoSetReconGeometry
  RorMask       rorMask = RorMask::ellipse();

  float
  deltaY() const
  {
    return voxelRowAspect * deltaVoxel;
  }
  float
  deltaZ() const
  {
    return voxelSliceAspect * deltaVoxel;
  }

  // The fields as the row-map kernels read them.
  kernels::GridParams
  gridParams() const;

  // Keeps the grid's centre and pitch and scales its rows and columns (truncating), e.g. 0.5 for a
  // cropped centre recon or 1.5 for an object wider than the field of view.
  void
  scaleReconShape(float rowScale, float colScale);

protected:
  // Throws std::invalid_argument naming `geometry`, the field and the fix for unusable shared fields.
  void
  validateDetectorAndGrid(const std::string & geometry) const;
};

} // namespace mbir
