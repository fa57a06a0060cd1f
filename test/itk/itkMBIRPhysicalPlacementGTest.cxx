// Physical placement end to end: a small ball at a known position (mm), off-centre in x, y and z, whose
// projections are computed here from the README's scanner model (not by the engine), is reconstructed at
// that position by the direct recon and by MBIR, with non-square detector cells, a channel offset and
// (cone beam) a volume slice offset.

#include "MBIRITKTestSupport.h"
#include "itkImageRegionConstIteratorWithIndex.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRReconstructionFilter.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>

using namespace mbir::itktest;

namespace {

using PointType = itk::Point<double, 3>;

// A ray in the scanner frame of one view: a point on it and its unit direction.
struct Ray
{
  std::array<double, 3> start;
  std::array<double, 3> direction;
};
// The ray through detector coordinates (u, w) in mm.
using RayThrough = std::function<Ray(double u, double w)>;

// Length of the ray's chord through a ball of radius r centred at c (scanner frame).
double
chord(const Ray & ray, const std::array<double, 3> & c, double r)
{
  std::array<double, 3> d;
  double                along = 0.0;
  for (int i = 0; i < 3; ++i)
  {
    d[i] = c[i] - ray.start[i];
    along += d[i] * ray.direction[i];
  }
  const double distance2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - along * along;
  return distance2 < r * r ? 2.0 * std::sqrt(r * r - distance2) : 0.0;
}

// Projections [channel, row, view] of a ball of density 1/mm at `centre` (object frame, mm): each detector
// cell averages 4 x 4 rays over its area. `rayThrough(v)` gives the rays of view v.
ImageType::Pointer
ballProjections(const itk::MBIRGeometry &              geometry,
                const std::vector<double> &            angles,
                const PointType &                      centre,
                double                                 radius,
                const std::function<RayThrough(int)> & rayThrough)
{
  const auto                pitch = geometry.GetDetectorSpacing();
  const auto                offset = geometry.GetDetectorOffset();
  const auto                channels = geometry.GetNumberOfChannels(), rows = geometry.GetNumberOfRows();
  auto                      image = ImageType::New();
  const ImageType::SizeType size = { { channels, rows, angles.size() } };
  image->SetRegions(ImageType::RegionType(size));
  ImageType::SpacingType spacing;
  spacing[0] = pitch[0];
  spacing[1] = pitch[1];
  spacing[2] = 1.0;
  image->SetSpacing(spacing);
  image->Allocate();
  constexpr int sub = 4;
  for (unsigned int v = 0; v < angles.size(); ++v)
  {
    // The ball centre in the scanner frame of view v: x along the channels, y toward the source.
    const double                c = std::cos(angles[v]), s = std::sin(angles[v]);
    const std::array<double, 3> ball = { centre[0] * c - centre[1] * s, centre[0] * s + centre[1] * c, centre[2] };
    const RayThrough            ray = rayThrough(static_cast<int>(v));
    for (itk::IndexValueType m = 0; m < static_cast<itk::IndexValueType>(rows); ++m)
    {
      for (itk::IndexValueType n = 0; n < static_cast<itk::IndexValueType>(channels); ++n)
      {
        double sum = 0.0;
        for (int a = 0; a < sub; ++a)
        {
          for (int b = 0; b < sub; ++b)
          {
            const double u = (n + (a + 0.5) / sub - 0.5 - 0.5 * (channels - 1.0)) * pitch[0] - offset[0];
            const double w = (m + (b + 0.5) / sub - 0.5 - 0.5 * (rows - 1.0)) * pitch[1] - offset[1];
            sum += chord(ray(u, w), ball, radius);
          }
        }
        image->SetPixel({ { n, m, static_cast<itk::IndexValueType>(v) } }, static_cast<float>(sum / (sub * sub)));
      }
    }
  }
  return image;
}

// Centre of mass (mm) of the voxels above a quarter of the maximum, which leaves out the low streaks of a
// direct recon from few views.
PointType
brightCentre(const ImageType * image)
{
  float                                             top = 0.0f;
  itk::ImageRegionConstIteratorWithIndex<ImageType> it(image, image->GetLargestPossibleRegion());
  for (it.GoToBegin(); !it.IsAtEnd(); ++it)
  {
    top = std::max(top, it.Get());
  }
  double                mass = 0.0;
  std::array<double, 3> moment{};
  for (it.GoToBegin(); !it.IsAtEnd(); ++it)
  {
    if (it.Get() > 0.25f * top)
    {
      PointType p;
      image->TransformIndexToPhysicalPoint(it.GetIndex(), p);
      mass += it.Get();
      for (int d = 0; d < 3; ++d)
      {
        moment[d] += it.Get() * p[d];
      }
    }
  }
  PointType centre;
  for (int d = 0; d < 3; ++d)
  {
    centre[d] = moment[d] / mass;
  }
  return centre;
}

// Direct recon and MBIR of the projections put the ball's centre within half a voxel of `centre`.
void
expectReconstructedAt(const ImageType * projections, const itk::MBIRGeometry * geometry, const PointType & centre)
{
  auto direct = itk::MBIRDirectReconstructionFilter<ImageType>::New();
  direct->SetInput(projections);
  direct->SetGeometry(geometry);
  auto mbir = itk::MBIRReconstructionFilter<ImageType>::New();
  mbir->SetInput(projections);
  mbir->SetGeometry(geometry);
  mbir->SetMaxIterations(5);
  for (itk::ImageSource<ImageType> * filter : { static_cast<itk::ImageSource<ImageType> *>(direct.GetPointer()),
                                                static_cast<itk::ImageSource<ImageType> *>(mbir.GetPointer()) })
  {
    SCOPED_TRACE(filter->GetNameOfClass());
    filter->Update();
    const ImageType * volume = filter->GetOutput();
    const PointType   found = brightCentre(volume);
    for (unsigned int d = 0; d < 3; ++d)
    {
      EXPECT_NEAR(found[d], centre[d], 0.5 * volume->GetSpacing()[d]) << "axis " << d << ", found " << found;
    }
  }
}

} // namespace

TEST(MBIRPhysicalPlacement, ParallelBeam)
{
  const std::vector<double> angles = evenAngles(60, M_PI);
  auto                      geometry = itk::MBIRParallelBeamGeometry::New();
  geometry->SetDetectorSize(64, 16);
  geometry->SetDetectorSpacing(pair(0.3, 0.5));
  geometry->SetDetectorOffset(pair(0.45, 0.0)); // parallel beam has no row offset
  geometry->SetAngles(angles);
  geometry->AutoSetVolumeGeometry();
  ASSERT_NEAR(geometry->GetVolumeSpacing()[2], 0.5, 1e-6); // slice k is detector row k

  PointType centre;
  centre[0] = 2.4;
  centre[1] = -1.5;
  centre[2] = 1.1;
  // Parallel rays along -y through (u, w): u along x, w along z.
  const auto projections = ballProjections(*geometry, angles, centre, 1.0, [](int) {
    return [](double u, double w) { return Ray{ { u, 0.0, w }, { 0.0, -1.0, 0.0 } }; };
  });
  expectReconstructedAt(projections, geometry, centre);
}

TEST(MBIRPhysicalPlacement, ConeBeamWithSliceOffset)
{
  const std::vector<double> angles = evenAngles(60, 2 * M_PI);
  const double              S = 60.0, D = 120.0;
  auto                      geometry = itk::MBIRConeBeamGeometry::New();
  geometry->SetDetectorSize(64, 24);
  geometry->SetDetectorSpacing(pair(0.3, 0.5));
  geometry->SetDetectorOffset(pair(0.45, -0.25));
  geometry->SetAngles(angles);
  geometry->SetSourceToDetectorDistance(D);
  geometry->SetSourceToIsocenterDistance(S);
  geometry->AutoSetVolumeGeometry();
  geometry->SetVolumeSliceOffset(0.6);

  PointType centre;
  centre[0] = 1.2;
  centre[1] = -0.9;
  centre[2] = 1.0;
  // From the source at (0, S, 0) to the flat detector cell at (u, S - D, w).
  const auto projections = ballProjections(*geometry, angles, centre, 0.6, [=](int) {
    return [=](double u, double w) {
      const double length = std::sqrt(u * u + D * D + w * w);
      return Ray{ { 0.0, S, 0.0 }, { u / length, -D / length, w / length } };
    };
  });
  expectReconstructedAt(projections, geometry, centre);
}
