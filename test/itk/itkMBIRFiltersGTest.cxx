// The direct recon, projection, denoising and transfer filters: each equals the engine on the same data,
// on host and device images.

#include "MBIRTestSupport.h"
#include "itkCommand.h"
#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRDownloadImageFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRImageConversion.h"
#include "itkMBIRUploadImageFilter.h"
#include "itkQGGMRFDenoiseFilter.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/Phantom.h"

#include <gtest/gtest.h>

namespace {

using ImageType = itk::Image<float, 3>;
using DeviceImageType = itk::MBIRDeviceImage<float, 3>;

itk::MBIRConeBeamGeometry::Pointer
coneGeometry()
{
  std::vector<double> angles(20);
  for (int v = 0; v < 20; ++v)
  {
    angles[v] = 2 * M_PI * v / 20;
  }
  auto geometry = itk::MBIRConeBeamGeometry::New();
  geometry->SetDetectorSize(32, 8);
  geometry->SetAngles(angles);
  itk::MBIRGeometry::DetectorVectorType pitch;
  pitch[0] = 0.4;
  pitch[1] = 0.6;
  geometry->SetDetectorSpacing(pitch);
  geometry->SetSourceToDetectorDistance(60.0);
  geometry->SetSourceToIsocenterDistance(30.0);
  geometry->AutoSetVolumeGeometry();
  return geometry;
}

std::vector<float>
engineVolume(const ImageType * image)
{
  mbir::ReconShape shape;
  return itk::MBIRImageConversion::ImageToRecon(image, shape);
}

ImageType::Pointer
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

} // namespace

TEST(MBIRFilters, ProjectionsAndDirectReconEqualTheEngine)
{
  const auto               geometry = coneGeometry();
  const mbir::Projector    projector(geometry->GetEngineGeometry(), mbir::makeCpuBackend());
  const ImageType::Pointer volume = phantomImage(*geometry);

  auto forward = itk::MBIRForwardProjectionFilter<ImageType>::New();
  forward->SetInput(volume);
  forward->SetGeometry(geometry);
  forward->Update();
  const std::vector<float> sino = projector.forwardProject(engineVolume(volume).data());
  mbir::SinogramShape      shape;
  EXPECT_EQ(itk::MBIRImageConversion::ImageToSinogram(forward->GetOutput(), shape), sino);
  EXPECT_NEAR(forward->GetOutput()->GetSpacing()[1], 0.6, 1e-6);

  auto back = itk::MBIRBackProjectionFilter<ImageType>::New();
  back->SetInput(forward->GetOutput());
  back->SetGeometry(geometry);
  back->Update();
  EXPECT_EQ(engineVolume(back->GetOutput()), projector.backProject(sino.data()));

  auto direct = itk::MBIRDirectReconstructionFilter<ImageType>::New();
  direct->SetInput(forward->GetOutput());
  direct->SetGeometry(geometry);
  direct->Update();
  EXPECT_EQ(engineVolume(direct->GetOutput()), mbir::directRecon(projector, sino));
  EXPECT_EQ(direct->GetOutput()->GetOrigin(), geometry->GetVolumeOrigin());

  // The same chain on the device: upload once, project, back-project and reconstruct there.
  auto upload = itk::MBIRUploadImageFilter<>::New();
  upload->SetInput(volume);
  upload->SetContent(DeviceImageType::ContentEnum::Volume);
  auto deviceForward = itk::MBIRForwardProjectionFilter<DeviceImageType>::New();
  deviceForward->SetInput(upload->GetOutput());
  deviceForward->SetGeometry(geometry);
  auto deviceDirect = itk::MBIRDirectReconstructionFilter<DeviceImageType>::New();
  deviceDirect->SetInput(deviceForward->GetOutput());
  deviceDirect->SetGeometry(geometry);
  auto download = itk::MBIRDownloadImageFilter<>::New();
  download->SetInput(deviceDirect->GetOutput());
  download->Update();
  EXPECT_EQ(engineVolume(download->GetOutput()), engineVolume(direct->GetOutput()));
  EXPECT_EQ(download->GetOutput()->GetOrigin(), direct->GetOutput()->GetOrigin());
}

TEST(MBIRFilters, DenoiserEqualsTheEngineAndKeepsThePlace)
{
  ImageType::Pointer              noisy = phantomImage(*coneGeometry());
  std::mt19937                    engine(5);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  for (float * p = noisy->GetBufferPointer(); p != noisy->GetBufferPointer() + noisy->GetPixelContainer()->Size(); ++p)
  {
    *p += noise(engine);
  }
  auto denoise = itk::QGGMRFDenoiseFilter<ImageType>::New();
  denoise->SetInput(noisy);
  denoise->SetMaxIterations(3);
  int  iterationEvents = 0;
  auto counter = itk::CStyleCommand::New();
  counter->SetCallback([](itk::Object *, const itk::EventObject &, void * data) { ++*static_cast<int *>(data); });
  counter->SetClientData(&iterationEvents);
  denoise->AddObserver(itk::IterationEvent(), counter);
  denoise->Update();
  EXPECT_EQ(iterationEvents, static_cast<int>(denoise->GetDenoiseReport().log.size()));
  EXPECT_EQ(denoise->GetIterationsDone(), iterationEvents);

  mbir::ReconShape         shape;
  const std::vector<float> values = itk::MBIRImageConversion::ImageToRecon(noisy, shape);
  mbir::DenoiseParams      params;
  params.verbose = 0;
  params.maxIterations = 3;
  EXPECT_EQ(engineVolume(denoise->GetOutput()),
            mbir::qggmrfDenoise(mbir::ArrayView3(values, shape), params, mbir::makeCpuBackend()).image);
  EXPECT_EQ(denoise->GetOutput()->GetOrigin(), noisy->GetOrigin());
  EXPECT_EQ(denoise->GetOutput()->GetSpacing(), noisy->GetSpacing());
  EXPECT_NE(denoise->GetDenoiseLog().find("Iteration 3/3"), std::string::npos);
}
