#pragma once
// Scans, phantoms and checks shared by the ITK-layer pipeline tests: small parallel- and cone-beam
// geometries with non-unit detector pitch, their images, the engine's arrays of an image, and an
// expectation that a pipeline fails with a message naming the problem.

#include "itkImage.h"
#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRDeviceImage.h"
#include "itkMBIRImageConversion.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRUploadImageFilter.h"
#include "mbir/Phantom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace mbir::itktest {

using ImageType = itk::Image<float, 3>;
using DeviceImageType = itk::MBIRDeviceImage<float, 3>;

inline std::vector<double>
evenAngles(int views, double span)
{
  std::vector<double> angles(views);
  for (int v = 0; v < views; ++v)
  {
    angles[v] = span * v / views;
  }
  return angles;
}

inline itk::MBIRGeometry::DetectorVectorType
pair(double channel, double row)
{
  itk::MBIRGeometry::DetectorVectorType value;
  value[0] = channel;
  value[1] = row;
  return value;
}

// 40 channels of 0.3 mm, 6 rows of 0.5 mm, 24 views over [0, pi): a 40 x 40 x 6 volume.
inline itk::MBIRParallelBeamGeometry::Pointer
parallelScan()
{
  auto geometry = itk::MBIRParallelBeamGeometry::New();
  geometry->SetDetectorSize(40, 6);
  geometry->SetDetectorSpacing(pair(0.3, 0.5));
  geometry->SetAngles(evenAngles(24, M_PI));
  geometry->AutoSetVolumeGeometry();
  return geometry;
}

// 32 channels of 0.4 mm, 8 rows of 0.6 mm, 20 views over [0, 2 pi), magnification 2, slices moved up.
inline itk::MBIRConeBeamGeometry::Pointer
coneScan()
{
  auto geometry = itk::MBIRConeBeamGeometry::New();
  geometry->SetDetectorSize(32, 8);
  geometry->SetDetectorSpacing(pair(0.4, 0.6));
  geometry->SetAngles(evenAngles(20, 2 * M_PI));
  geometry->SetSourceToDetectorDistance(60.0);
  geometry->SetSourceToIsocenterDistance(30.0);
  geometry->AutoSetVolumeGeometry();
  geometry->SetVolumeSliceOffset(0.3);
  return geometry;
}

// The engine's (rows, cols, slices) array of a volume image and (views, rows, channels) of projections.
inline std::vector<float>
engineVolume(const ImageType * image)
{
  mbir::ReconShape shape;
  return itk::MBIRImageConversion::ImageToRecon(image, shape);
}

inline std::vector<float>
engineSinogram(const ImageType * image)
{
  mbir::SinogramShape shape;
  return itk::MBIRImageConversion::ImageToSinogram(image, shape);
}

// The low-dynamic-range Shepp-Logan phantom on the geometry's grid, at its physical place.
inline ImageType::Pointer
phantomImage(const itk::MBIRGeometry & geometry)
{
  const mbir::ReconShape shape = mbir::reconShapeOf(geometry.GetEngineGeometry());
  ImageType::SpacingType spacing;
  for (unsigned int d = 0; d < 3; ++d)
  {
    spacing[d] = geometry.GetVolumeSpacing()[d];
  }
  ImageType::Pointer image =
    itk::MBIRImageConversion::ReconToImage(mbir::sheppLoganLowDynamicRange(shape), shape, spacing);
  image->SetOrigin(geometry.GetVolumeOrigin());
  return image;
}

// Projections image of an engine sinogram, with the geometry's detector pitch.
inline ImageType::Pointer
projectionsImage(const std::vector<float> & sinogram, const itk::MBIRGeometry & geometry)
{
  const auto pitch = geometry.GetDetectorSpacing();
  return itk::MBIRImageConversion::SinogramToImage(
    sinogram, mbir::sinogramShapeOf(geometry.GetEngineGeometry()), pitch[0], pitch[1]);
}

// A copy of the image, its values mapped by `f`.
template<typename TFunction>
ImageType::Pointer
mapped(const ImageType * image, TFunction f)
{
  auto copy = ImageType::New();
  copy->CopyInformation(image);
  copy->SetRegions(image->GetLargestPossibleRegion());
  copy->Allocate();
  const std::size_t n = image->GetPixelContainer()->Size();
  for (std::size_t i = 0; i < n; ++i)
  {
    copy->GetBufferPointer()[i] = f(image->GetBufferPointer()[i]);
  }
  return copy;
}

// A copy of the image with Gaussian noise added (reproducible).
inline ImageType::Pointer
noisy(const ImageType * image, float sigma, unsigned seed)
{
  std::mt19937                    engine(seed);
  std::normal_distribution<float> noise(0.0f, sigma);
  return mapped(image, [&](float value) { return value + noise(engine); });
}

// The image moved to `backend` once, as projections or a volume.
inline DeviceImageType::Pointer
upload(const ImageType * image, DeviceImageType::ContentEnum content, const std::shared_ptr<mbir::Backend> & backend)
{
  auto filter = itk::MBIRUploadImageFilter<>::New();
  filter->SetInput(image);
  filter->SetContent(content);
  filter->SetBackend(backend);
  filter->Update();
  DeviceImageType::Pointer result = filter->GetOutput();
  result->DisconnectPipeline();
  return result;
}

// Update() must throw an itk::ExceptionObject whose description contains every one of `needles`.
inline void
expectUpdateFails(itk::ProcessObject * filter, const std::vector<std::string> & needles)
{
  try
  {
    filter->Update();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needles.front() << "'";
  }
  catch (const itk::ExceptionObject & e)
  {
    for (const std::string & needle : needles)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(needle), std::string::npos)
        << "'" << needle << "' not in: " << e.GetDescription();
    }
  }
}

} // namespace mbir::itktest
