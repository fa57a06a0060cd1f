// Device-resident images: every filter gives on MBIRDeviceImage what it gives on itk::Image, computes on
// the backend its device input lives on, and data uploaded once are not transferred again, however many
// filters (or re-runs) use them.

#include "MBIRITKTestSupport.h"
#include "itkCommand.h"
#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRDownloadImageFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRReconstructionFilter.h"
#include "itkQGGMRFDenoiseFilter.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

using namespace mbir::itktest;

namespace {

using Content = DeviceImageType::ContentEnum;

// Runs `hostFilter` (itk::Image in and out) and `deviceFilter` (MBIRDeviceImage in and out, its inputs
// uploaded to `backend`), and expects the same values at the same place.
template<typename THostFilter, typename TDeviceFilter>
void
expectSameOnDevice(THostFilter *                          hostFilter,
                   TDeviceFilter *                        deviceFilter,
                   const std::shared_ptr<mbir::Backend> & backend)
{
  hostFilter->Update();
  deviceFilter->Update();
  const DeviceImageType * device = deviceFilter->GetOutput();
  ASSERT_NE(device->GetContent(), Content::Empty);
  EXPECT_EQ(device->GetContent() == Content::Volume ? &device->GetVolume()->group().device(0)
                                                    : &device->GetProjections()->group().device(0),
            backend.get());
  const ImageType::Pointer gathered = device->ToImage();
  const ImageType *        host = hostFilter->GetOutput();
  if (device->GetContent() == Content::Volume)
  {
    EXPECT_EQ(engineVolume(gathered), engineVolume(host));
  }
  else
  {
    EXPECT_EQ(engineSinogram(gathered), engineSinogram(host));
  }
  EXPECT_EQ(gathered->GetLargestPossibleRegion(), host->GetLargestPossibleRegion());
  EXPECT_EQ(gathered->GetSpacing(), host->GetSpacing());
  EXPECT_EQ(gathered->GetOrigin(), host->GetOrigin());
  EXPECT_EQ(gathered->GetDirection(), host->GetDirection());
}

} // namespace

TEST(MBIRDeviceImage, EveryFilterGivesTheHostResult)
{
  const auto backend = mbir::makeCpuBackend();
  const auto cone = coneScan();
  const auto volume = phantomImage(*cone);
  const auto deviceVolume = upload(volume, Content::Volume, backend);
  {
    SCOPED_TRACE("forward projection");
    auto host = itk::MBIRForwardProjectionFilter<ImageType>::New();
    host->SetInput(volume);
    host->SetGeometry(cone);
    auto device = itk::MBIRForwardProjectionFilter<DeviceImageType>::New();
    device->SetInput(deviceVolume);
    device->SetGeometry(cone);
    expectSameOnDevice(host.GetPointer(), device.GetPointer(), backend);
  }
  auto project = itk::MBIRForwardProjectionFilter<ImageType>::New();
  project->SetInput(volume);
  project->SetGeometry(cone);
  project->Update();
  const ImageType::Pointer projections = project->GetOutput();
  const auto               deviceProjections = upload(projections, Content::Projections, backend);
  {
    SCOPED_TRACE("back projection");
    auto host = itk::MBIRBackProjectionFilter<ImageType>::New();
    host->SetInput(projections);
    host->SetGeometry(cone);
    auto device = itk::MBIRBackProjectionFilter<DeviceImageType>::New();
    device->SetInput(deviceProjections);
    device->SetGeometry(cone);
    expectSameOnDevice(host.GetPointer(), device.GetPointer(), backend);
  }
  {
    SCOPED_TRACE("direct reconstruction");
    auto host = itk::MBIRDirectReconstructionFilter<ImageType>::New();
    host->SetInput(projections);
    host->SetGeometry(cone);
    auto device = itk::MBIRDirectReconstructionFilter<DeviceImageType>::New();
    device->SetInput(deviceProjections);
    device->SetGeometry(cone);
    expectSameOnDevice(host.GetPointer(), device.GetPointer(), backend);
  }
  {
    SCOPED_TRACE("reconstruction with weights, an initial image and a prox image");
    // Transmission-like weights: fewer counts through more material.
    const ImageType::Pointer weights = mapped(projections, [](float y) { return 1.0f / (1.0f + 0.1f * y); });
    const ImageType::Pointer initial = noisy(volume, 0.02f, 1);
    auto                     host = itk::MBIRReconstructionFilter<ImageType>::New();
    host->SetInput(projections);
    host->SetWeights(weights);
    host->SetInitialImage(initial);
    host->SetProxImage(volume);
    host->SetGeometry(cone);
    host->SetMaxIterations(2);
    auto device = itk::MBIRReconstructionFilter<DeviceImageType>::New();
    device->SetInput(deviceProjections);
    device->SetWeights(upload(weights, Content::Projections, backend));
    device->SetInitialImage(upload(initial, Content::Volume, backend));
    device->SetProxImage(deviceVolume);
    device->SetGeometry(cone);
    device->SetMaxIterations(2);
    expectSameOnDevice(host.GetPointer(), device.GetPointer(), backend);
    const std::string log = host->GetReconstructionLog();
    EXPECT_EQ(device->GetReconstructionLog().substr(0, log.find('\n')), log.substr(0, log.find('\n')));
  }
  {
    SCOPED_TRACE("denoising");
    const ImageType::Pointer noisyVolume = noisy(volume, 0.05f, 2);
    auto                     host = itk::QGGMRFDenoiseFilter<ImageType>::New();
    host->SetInput(noisyVolume);
    host->SetMaxIterations(2);
    auto device = itk::QGGMRFDenoiseFilter<DeviceImageType>::New();
    device->SetInput(upload(noisyVolume, Content::Volume, backend));
    device->SetMaxIterations(2);
    expectSameOnDevice(host.GetPointer(), device.GetPointer(), backend);
  }
}

TEST(MBIRDeviceImage, DownloadFilterGivesTheImageBack)
{
  const auto backend = mbir::makeCpuBackend();
  const auto cone = coneScan();
  const auto volume = phantomImage(*cone);
  auto       download = itk::MBIRDownloadImageFilter<>::New();
  download->SetInput(upload(volume, Content::Volume, backend));
  download->Update();
  EXPECT_EQ(engineVolume(download->GetOutput()), engineVolume(volume));
  EXPECT_EQ(download->GetOutput()->GetOrigin(), volume->GetOrigin());
  EXPECT_EQ(download->GetOutput()->GetSpacing(), volume->GetSpacing());
}

TEST(MBIRDeviceImage, ProjectionsUploadedOnceServeSeveralReconstructions)
{
  const auto        backend = mbir::makeCpuBackend();
  const auto        geometry = parallelScan();
  const auto        volume = phantomImage(*geometry);
  const std::size_t sinogramBytes =
    geometry->GetNumberOfViews() * geometry->GetNumberOfRows() * geometry->GetNumberOfChannels() * sizeof(float);
  const std::size_t volumeBytes = volume->GetPixelContainer()->Size() * sizeof(float);
  auto              project = itk::MBIRForwardProjectionFilter<ImageType>::New();
  project->SetInput(volume);
  project->SetGeometry(geometry);
  project->Update();

  auto uploader = itk::MBIRUploadImageFilter<>::New();
  int  uploaderRuns = 0;
  auto counter = itk::CStyleCommand::New();
  counter->SetCallback([](itk::Object *, const itk::EventObject &, void * runs) { ++*static_cast<int *>(runs); });
  counter->SetClientData(&uploaderRuns);
  uploader->AddObserver(itk::StartEvent(), counter);
  uploader->SetInput(project->GetOutput());
  uploader->SetBackend(backend);
  uploader->Update();
  EXPECT_EQ(backend->transfers().uploads, 1u);
  EXPECT_EQ(backend->transfers().uploadedBytes, sinogramBytes);

  // What one reconstruction transfers besides the projections (pixel lists and the like): a host-input
  // reconstruction on the same backend uploads that plus the projections, and downloads the volume.
  auto host = itk::MBIRReconstructionFilter<ImageType>::New();
  host->SetInput(project->GetOutput());
  host->SetGeometry(geometry);
  host->SetMaxIterations(2);
  host->SetBackend(backend);
  auto before = backend->transfers();
  host->Update();
  auto              after = backend->transfers();
  const std::size_t hostUploaded = after.uploadedBytes - before.uploadedBytes;
  const std::size_t hostDownloaded = after.downloadedBytes - before.downloadedBytes;

  // Two reconstructions of the uploaded projections, and one of them again after a parameter change: each
  // uploads what the host one did less the projections, and leaves its volume on the device.
  auto first = itk::MBIRReconstructionFilter<DeviceImageType>::New();
  auto second = itk::MBIRReconstructionFilter<DeviceImageType>::New();
  for (auto * filter : { first.GetPointer(), second.GetPointer() })
  {
    filter->SetInput(uploader->GetOutput());
    filter->SetGeometry(geometry);
    filter->SetMaxIterations(2);
  }
  second->SetSharpness(2.0);
  auto expectOnlyItsOwnTransfers = [&](itk::ProcessObject * filter) {
    before = backend->transfers();
    filter->Update();
    after = backend->transfers();
    EXPECT_EQ(after.uploadedBytes - before.uploadedBytes, hostUploaded - sinogramBytes);
    EXPECT_EQ(after.downloadedBytes - before.downloadedBytes, hostDownloaded - volumeBytes);
  };
  {
    SCOPED_TRACE("first reconstruction");
    expectOnlyItsOwnTransfers(first);
  }
  {
    SCOPED_TRACE("second reconstruction");
    expectOnlyItsOwnTransfers(second);
  }
  first->SetSharpness(2.0);
  {
    SCOPED_TRACE("first reconstruction again, sharper");
    expectOnlyItsOwnTransfers(first);
  }
  EXPECT_EQ(engineVolume(first->GetOutput()->ToImage()), engineVolume(second->GetOutput()->ToImage()));
  EXPECT_EQ(&first->GetOutput()->GetVolume()->group().device(0), backend.get());
  EXPECT_EQ(uploaderRuns, 1); // the upload filter itself did not run again
}
