#include "mbir/TranslationGeometry.h"

#include "mbir/GeometryDescription.h"

#include "GeometryChecks.h"

#include <algorithm>
#include <cmath>

namespace mbir {
namespace {

const std::string kName = "translation";

} // namespace

TranslationGeometry::TranslationGeometry(SinogramShape                     shape,
                                         std::vector<std::array<float, 3>> viewTranslations,
                                         float                             sourceDetectorDistance,
                                         float                             sourceIsoDistance)
  : translations(std::move(viewTranslations))
  , sourceDetectorDist(sourceDetectorDistance)
  , sourceIsoDist(sourceIsoDistance)
{
  sinogramShape = shape;
  rorMask = RorMask::none();
  autoSetReconGeometry();
}

void
TranslationGeometry::autoSetReconGeometry()
{
  const double M = magnification();
  const double C = sinogramShape.channels, R = sinogramShape.rows, V = sinogramShape.views;
  // Spec §4.1, kept as written (it pairs the row pitch with the width slope) so default shapes match.
  const double slopeWidth = (C * deltaDetChannel / 4.0) / sourceDetectorDist;
  const double slopeHeight = (R * deltaDetRow / 4.0) / sourceDetectorDist;
  const double pitchRow = deltaDetRow / M, pitchChannel = deltaDetChannel / M;
  deltaVoxel = static_cast<float>(std::max(pitchRow, pitchChannel));
  const double nominalDepth = std::max(4.0 * pitchRow / slopeWidth, 4.0 * pitchChannel / slopeHeight);
  const bool   automaticDepth = voxelRowAspect == 1.0f;
  if (automaticDepth)
  {
    voxelRowAspect = static_cast<float>(std::max(nominalDepth, double(deltaVoxel)) / deltaVoxel);
  }
  std::array<double, 3> travel{ 0.0, 0.0, 0.0 };
  if (!translations.empty())
  {
    for (int axis = 0; axis < 3; ++axis)
    {
      const auto [low, high] = std::minmax_element(
        translations.begin(), translations.end(), [axis](const auto & a, const auto & b) { return a[axis] < b[axis]; });
      travel[axis] = double((*high)[axis]) - (*low)[axis];
    }
  }
  // At least one column and slice, also for a scan without travel along that axis.
  reconShape.cols = std::max(1, detail::gridCount(kName, std::ceil(float(travel[0] / deltaVoxel))));
  reconShape.slices = std::max(1, detail::gridCount(kName, std::ceil(float(travel[2] / deltaZ()))));
  const double pixelsPerView = (reconShape.cols + R) * (reconShape.slices + C) / V;
  int          rows = 2 * detail::gridCount(kName, std::ceil(R * C / pixelsPerView));
  rows = std::min(rows, detail::gridCount(kName, std::floor((sourceIsoDist - travel[1]) / deltaY())));
  reconShape.rows = std::max(1, rows);
  // A small detector makes the nominal depth reach past the source; then the automatic depth shrinks so
  // that the grid fills half the room in front of the source.
  double maxTy = translations.empty() ? 0.0 : -INFINITY;
  for (const auto & t : translations)
  {
    maxTy = std::max(maxTy, double(t[1]));
  }
  const double room = sourceIsoDist - maxTy;
  if (automaticDepth && room > 0.0 && 0.5 * reconShape.rows * deltaY() >= room)
  {
    voxelRowAspect = static_cast<float>(room / reconShape.rows / deltaVoxel);
  }
}

void
TranslationGeometry::validate() const
{
  validateDetectorAndGrid(kName);
  detail::requirePerView(kName, translations, sinogramShape.views, "translation_vectors");
  for (std::size_t v = 0; v < translations.size(); ++v)
  {
    for (const float t : translations[v])
    {
      if (!std::isfinite(t))
      {
        detail::invalidGeometry(kName, "translation_vectors entry " + std::to_string(v) + " is not finite");
      }
    }
  }
  detail::requirePositive(kName, sourceIsoDist, "source_iso_dist", "give the source to recon-centre distance");
  detail::requirePositive(
    kName, sourceDetectorDist, "source_detector_dist", "translation needs a finite source to detector distance");
  double maxTy = -INFINITY;
  for (const auto & t : translations)
  {
    maxTy = std::max(maxTy, double(t[1]));
  }
  // The nearest voxel face to the source, over every view.
  const double closest = sourceIsoDist - 0.5 * reconShape.rows * double(deltaY()) - maxTy;
  if (!(closest > 0.0))
  {
    detail::invalidGeometry(kName,
                            "the recon grid reaches the source (nearest voxel face " + detail::number(closest) +
                              " from it); reduce recon rows or voxel_row_aspect, or the translation along y");
  }
}

kernels::TranslationParams
TranslationGeometry::kernelParams() const
{
  kernels::TranslationParams p{};
  static_cast<kernels::GridParams &>(p) = gridParams();
  p.sourceIso = sourceIsoDist;
  p.inverseSdd = 1.0f / sourceDetectorDist;
  return p;
}

std::vector<kernels::TranslationView>
TranslationGeometry::viewTable() const
{
  std::vector<kernels::TranslationView> table;
  table.reserve(translations.size());
  for (const auto & t : translations)
  {
    table.push_back(kernels::TranslationView{ t[0], t[1], t[2] });
  }
  return table;
}

const GeometryDescription<TranslationGeometry> &
TranslationGeometry::description()
{
  using G = TranslationGeometry;
  static const GeometryDescription<G> d = [] {
    GeometryDescription<G> d{ "translation",
                              "TranslationGeometry",
                              "A fixed cone-beam source and flat detector; instead of rotating, the object is "
                              "shifted by a translation vector per view. Recon rows (y) run along the rays.",
                              detectorAndGridFields<G>("none") };
    d.fields.push_back(geometryField<G>(&G::sourceDetectorDist,
                                        "source_detector_dist",
                                        Required | Positive,
                                        "ALU",
                                        "",
                                        "source to the flat detector, finite"));
    d.fields.push_back(geometryField<G>(
      &G::sourceIsoDist, "source_iso_dist", Required | Positive, "ALU", "", "source to the centre of the recon grid"));
    d.fields.push_back(geometryField<G>(&G::translations,
                                        "translation_vectors",
                                        Required,
                                        "ALU",
                                        "",
                                        "[tx, ty, tz] per view: + moves the object to smaller channels, away from "
                                        "the source, to smaller rows"));
    return d;
  }();
  return d;
}

} // namespace mbir
