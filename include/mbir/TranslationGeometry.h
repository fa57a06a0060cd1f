#pragma once
// Translation scan and recon grid (spec/projectors.md §4): a fixed cone-beam source and flat detector;
// instead of rotating, the object is shifted by a translation vector per view. Recon rows (y) run along
// the rays, so depth comes only from parallax and the default grid has few, deep rows.

#include "mbir/DetectorAndGrid.h"
#include "mbir/kernels/Translation.h"

#include <array>
#include <vector>

namespace mbir {

struct TranslationGeometry : DetectorAndGrid
{
  // Per view (t_x, t_y, t_z): t_x > 0 moves the object toward smaller channels, t_y away from the source,
  // t_z toward smaller rows ("up").
  std::vector<std::array<float, 3>> translations;
  float                             sourceDetectorDist = 0.0f; // D, finite
  float                             sourceIsoDist = 0.0f;      // S: source to the centre of the recon grid

  TranslationGeometry() { rorMask = RorMask::none(); }
  // Sets the default recon grid; every pixel is reconstructed (no ROR ellipse).
  TranslationGeometry(SinogramShape                     shape,
                      std::vector<std::array<float, 3>> viewTranslations,
                      float                             sourceDetectorDistance,
                      float                             sourceIsoDistance);

  // The default grid of spec §4.1: voxel pitch from the detector pitch at iso, columns and slices
  // covering the translation travel, a few deep rows (the row aspect is set here unless the user changed
  // it from 1).
  void
  autoSetReconGeometry();

  // Throws std::invalid_argument naming the parameter and the fix when the geometry is unusable,
  // including a recon grid that reaches the source in some view.
  void
  validate() const;

  float
  magnification() const
  {
    return sourceDetectorDist / sourceIsoDist;
  }

  kernels::TranslationParams
  kernelParams() const;

  std::vector<kernels::TranslationView>
  viewTable() const;

  // Its parameters as the registry, the JSON files and the bindings see them (GeometryDescription.h).
  static const GeometryDescription<TranslationGeometry> &
  description();
};

} // namespace mbir
