// The program of the consumer project (test/consumer/CMakeLists.txt): a forward projection through the installed
// module. A uniform cylinder (radius 10 mm, value 1 per mm) is projected over half a turn of parallel-beam views;
// every view must carry the cylinder's mass (sum of projections x detector cell area = sum of voxels x voxel
// volume) and the central ray its diameter. Prints the checks and exits non-zero when one fails.

#include "itkImageRegionIteratorWithIndex.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "mbir/Config.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>

int
main()
{
  using ImageType = itk::Image<float, 3>;
  constexpr double radius = 10.0; // mm
  try
  {
    auto geometry = itk::MBIRParallelBeamGeometry::New();
    geometry->SetDetectorSize(48, 4); // channels, rows
    itk::MBIRGeometry::DetectorVectorType pitch;
    pitch.Fill(1.0);
    geometry->SetDetectorSpacing(pitch);
    std::vector<double> angles(12);
    for (std::size_t v = 0; v < angles.size(); ++v)
    {
      angles[v] = M_PI * v / angles.size();
    }
    geometry->SetAngles(angles);
    geometry->AutoSetVolumeGeometry();

    auto volume = ImageType::New();
    ImageType::RegionType region;
    region.SetSize(geometry->GetVolumeSize());
    volume->SetRegions(region);
    volume->SetSpacing(geometry->GetVolumeSpacing());
    volume->SetOrigin(geometry->GetVolumeOrigin());
    volume->Allocate();
    double mass = 0.0;
    const ImageType::SpacingType spacing = volume->GetSpacing();
    for (itk::ImageRegionIteratorWithIndex<ImageType> it(volume, region); !it.IsAtEnd(); ++it)
    {
      ImageType::PointType p;
      volume->TransformIndexToPhysicalPoint(it.GetIndex(), p);
      const float value = (p[0] * p[0] + p[1] * p[1] <= radius * radius) ? 1.0f : 0.0f;
      it.Set(value);
      mass += value * spacing[0] * spacing[1] * spacing[2];
    }

    auto project = itk::MBIRForwardProjectionFilter<ImageType>::New();
    project->SetInput(volume);
    project->SetGeometry(geometry);
    project->Update();
    const ImageType * projections = project->GetOutput();
    const ImageType::SizeType size = projections->GetLargestPossibleRegion().GetSize();

    double worstMass = 0.0;
    double worstChord = 0.0;
    for (itk::IndexValueType v = 0; v < static_cast<itk::IndexValueType>(size[2]); ++v)
    {
      double sum = 0.0;
      double central = 0.0;
      for (itk::IndexValueType r = 0; r < static_cast<itk::IndexValueType>(size[1]); ++r)
      {
        for (itk::IndexValueType c = 0; c < static_cast<itk::IndexValueType>(size[0]); ++c)
        {
          const double value = projections->GetPixel({ { c, r, v } });
          sum += value * pitch[0] * pitch[1];
          if (c == static_cast<itk::IndexValueType>(size[0] / 2) && r == 0)
          {
            central = value; // the ray half a channel beside the axis: 2 sqrt(R^2 - 0.25)
          }
        }
      }
      worstMass = std::max(worstMass, std::abs(sum - mass) / mass);
      worstChord = std::max(worstChord, std::abs(central - 2.0 * std::sqrt(radius * radius - 0.25)) / (2.0 * radius));
    }
    std::cout << "mbir-consumer: MBIR " << MBIR_VERSION << " (CUDA " << MBIR_USE_CUDA << ", OpenMP " << MBIR_USE_OPENMP
              << "), ITK " << ITK_VERSION_STRING << "; projections " << size << ", cylinder mass " << mass
              << " mm^3, worst view mass error " << worstMass << ", worst central chord error " << worstChord
              << std::endl;
    if (!(worstMass < 0.01) || !(worstChord < 0.05))
    {
      std::cerr << "mbir-consumer: the projections do not carry the cylinder" << std::endl;
      return EXIT_FAILURE;
    }
    std::cout << "mbir-consumer: OK" << std::endl;
    return EXIT_SUCCESS;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << "mbir-consumer: " << e.GetDescription() << std::endl;
    return EXIT_FAILURE;
  }
}
