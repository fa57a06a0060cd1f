#pragma once
// Real scanner data to line integrals and weights: dark and bright field correction, bad detector cells,
// the background offset, optional ring suppression, transmission weights; and the calibration of the centre
// of rotation (det_channel_offset) and of the detector tilt from the data. Host code; arrays are
// (views, rows, channels) like sinograms. README "Real scanner data: preprocessing" describes each step.

#include "mbir/ArrayView.h"
#include "mbir/Geometry.h"
#include "mbir/Shapes.h"
#include "mbir/Weights.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mbir {

// Why a detector cell is excluded (bits of PreprocessResult::badCells).
enum BadCell : std::uint8_t
{
  BadCellDead = 1,      // far below its neighbours in (nearly) every view, e.g. no counts at all
  BadCellHot = 2,       // far above its neighbours in (nearly) every view
  BadCellNonFinite = 4, // NaN or infinite counts in at least half of the views
  BadCellFlat = 8       // bright - dark <= 0 or not finite: no usable bright field
};

struct PreprocessParams
{
  // Transmission t = (I - D) / (B - D) is clamped to [minTransmission, +inf) before -log, so zero or
  // negative counts (photon starvation, dark noise) give the finite line integral -log(minTransmission).
  float minTransmission = 1e-6f;
  // Counts at or above this level are saturated: weight 0 and the value interpolated (0: no check).
  float saturationLevel = 0.0f;
  // Bad cells: the per-cell median over views of (value - median of its 4 neighbours) is compared with the
  // robust spread (1.4826 MAD) of that statistic over all cells: |deviation| > badPixelThreshold * spread
  // and > minBadPixelDeviation (in line-integral units) marks the cell dead (positive) or hot (negative).
  // Whole rows the same way, against the rows above and below (a readout line that failed).
  bool  detectBadPixels = true;
  float badPixelThreshold = 8.0f;
  float minBadPixelDeviation = 0.05f;
  // Background offset: the air value of the line integrals, from the edge strips of edgeWidth channels.
  bool removeOffset = true;
  bool offsetPerView = false; // one offset per view instead of one for the scan
  int  edgeWidth = 9;
  // Ring suppression: subtract, in every view, the deviation of the view-averaged sinogram from its median
  // along channels over ringWidth channels (odd; a cell whose gain differs from its neighbours' gives a
  // constant deviation that backprojects to a ring).
  bool suppressRings = false;
  int  ringWidth = 9;
  // The weights (mbir::generateWeights of the line integrals); bad cells and entries get 0.
  WeightType weightType = WeightType::Transmission;
};

// One image (1 x rows x channels) or a stack (n x rows x channels), averaged over its finite values. An empty
// view means "not given".
struct FieldImages
{
  ArrayView3 dark;        // dark fields D (default 0)
  ArrayView3 bright;      // bright fields B (default: the counts are already transmissions, B - D = 1)
  ArrayView3 brightAfter; // bright fields taken after the scan: B is interpolated linearly over the views
};

struct PreprocessResult
{
  SinogramShape             shape;
  std::vector<float>        sinogram; // line integrals, finite everywhere
  std::vector<float>        weights;
  std::vector<std::uint8_t> badCells; // (rows, channels) bits of BadCell; 0 = good
  int                       numDead = 0, numHot = 0, numNonFinite = 0, numFlat = 0;
  std::size_t               numBadEntries = 0; // single (view, row, channel) entries: non-finite, saturated
  std::size_t               numSaturated = 0;
  std::size_t               numClamped = 0; // entries with transmission below minTransmission
  float                     offset = 0.0f;  // the background offset removed (the median over views if per view)
  std::vector<float>        viewOffsets;    // per view (all equal to offset unless offsetPerView)
  std::vector<std::string>  notes;          // one line per step, for logs

  int
  numBadCells() const
  {
    int n = 0;
    for (std::uint8_t b : badCells)
      n += b != 0;
    return n;
  }
};

// Raw counts (views, rows, channels) to line integrals and weights. std::invalid_argument on shapes that do
// not match, empty counts or bad parameters.
PreprocessResult
preprocessTransmission(ArrayView3 counts, const FieldImages & fields = {}, const PreprocessParams & params = {});

// The centre of rotation and detector tilt estimated from a sinogram (line integrals).
struct CenterEstimate
{
  double      channels = 0.0;         // det_channel_offset in channels (positive: towards larger channels)
  double      detChannelOffset = 0.0; // the same in ALU (channels * delta_det_channel)
  std::string method;                 // "opposed views", "projection centroids" or "direct-recon sharpness"
  bool        tiltMeasured = false;
  double      tiltDegrees = 0.0; // in-plane detector tilt: the axis image moves towards larger channels at
                                 // larger rows for a positive tilt
  std::vector<std::string> notes;
};

struct CenterParams
{
  double searchRange = 0.0;      // channels either side of the centre to search (0: a quarter of the channels)
  int    reconRows = 4;          // rows reconstructed per candidate by the sharpness search
  bool   forceSharpness = false; // the sharpness search even where opposed views exist
  bool   estimateTilt = true;    // opposed views only: search the tilt in [-2, 2] degrees
};

// Estimates det_channel_offset (and, from opposed views, the tilt), by the first method that applies:
//  - "opposed views" (parallel beam, most views have one at angle + pi, e.g. a full turn): each opposed view
//    mirrored is the view shifted by twice the offset; the shift minimising the mean squared difference,
//    refined by a parabola through the three best integer shifts. The tilt: the in-plane rotation in
//    [-2, 2] degrees (steps of 0.25, then a parabola) that makes the opposed views match best.
//  - "projection centroids" (parallel beam, e.g. a half turn, no truncated view): the centroid of each view
//    is offset + a cos(theta) + b sin(theta); a least-squares fit.
//  - "direct-recon sharpness" (any geometry): direct recons (a few rows for parallel beam) over candidate
//    offsets, a grid then a golden-section search; a full turn maximises the recon's energy, a half turn
//    minimises its total variation (less accurate: a few tenths of a channel).
// The geometry's own det_channel_offset is ignored; weights (optional) mask bad entries for opposed views.
CenterEstimate
estimateRotationCenter(const Geometry &     geometry,
                       ArrayView3           sinogram,
                       ArrayView3           weights = {},
                       const CenterParams & params = {});

// Rotates each projection in-plane by `degrees` about the detector centre (bilinear), to undo a detector
// tilt measured by estimateRotationCenter (positive degrees undo a positive tilt).
std::vector<float>
correctDetectorTilt(ArrayView3 sinogram, double degrees, double channelPitch = 1.0, double rowPitch = 1.0);

} // namespace mbir
