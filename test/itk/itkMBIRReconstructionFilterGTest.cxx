// MBIRReconstructionFilter in a pipeline: the engine's result at the geometry's physical place, on host
// and device images, progress and abort, re-execution only on change, and clear errors on bad input.

#include "MBIRTestSupport.h"
#include "itkCommand.h"
#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRImageConversion.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRReconstructionFilter.h"
#include "mbir/Metrics.h"
#include "mbir/Phantom.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace {

using ImageType = itk::Image<float, 3>;
using DeviceImageType = itk::MBIRDeviceImage<float, 3>;

// A small parallel-beam scan with a 0.5 mm detector, and its noise-free projections.
struct Scan
{
  itk::MBIRParallelBeamGeometry::Pointer geometry;
  std::vector<float>                     sinogram;
  ImageType::Pointer                     projections;
};

Scan
makeScan()
{
  Scan                scan;
  std::vector<double> angles(24);
  for (int v = 0; v < 24; ++v)
  {
    angles[v] = M_PI * v / 24;
  }
  scan.geometry = itk::MBIRParallelBeamGeometry::New();
  scan.geometry->SetDetectorSize(40, 5);
  scan.geometry->SetAngles(angles);
  itk::MBIRGeometry::DetectorVectorType pitch;
  pitch.Fill(0.5);
  scan.geometry->SetDetectorSpacing(pitch);
  scan.geometry->AutoSetVolumeGeometry();
  const mbir::Geometry      g = scan.geometry->GetEngineGeometry();
  const mbir::Reconstructor engine(g, mbir::makeCpuBackend());
  scan.sinogram = engine.forwardProject(mbir::sheppLoganLowDynamicRange(mbir::reconShapeOf(g)));
  scan.projections = itk::MBIRImageConversion::SinogramToImage(scan.sinogram, mbir::sinogramShapeOf(g), 0.5, 0.5);
  return scan;
}

mbir::ReconParams
engineParams(int iterations)
{
  mbir::ReconParams params;
  params.verbose = 0;
  params.maxIterations = iterations;
  return params;
}

std::vector<float>
engineVolume(const ImageType * image)
{
  mbir::ReconShape shape;
  return itk::MBIRImageConversion::ImageToRecon(image, shape);
}

} // namespace

TEST(MBIRReconstructionFilter, EqualsEngineAndLandsAtGeometryPlace)
{
  const Scan scan = makeScan();
  auto       filter = itk::MBIRReconstructionFilter<ImageType>::New();
  filter->SetInput(scan.projections);
  filter->SetGeometry(scan.geometry);
  filter->SetMaxIterations(4);
  filter->Update();
  const ImageType * out = filter->GetOutput();

  const mbir::Geometry      g = scan.geometry->GetEngineGeometry();
  const mbir::Reconstructor engine(g, mbir::makeCpuBackend(), engineParams(4));
  EXPECT_EQ(engineVolume(out), engine.recon(scan.sinogram).recon);
  EXPECT_EQ(out->GetLargestPossibleRegion().GetSize(), scan.geometry->GetVolumeSize());
  EXPECT_DOUBLE_EQ(out->GetSpacing()[0], 0.5);
  EXPECT_DOUBLE_EQ(out->GetOrigin()[0], scan.geometry->GetVolumeOrigin()[0]);
  EXPECT_NE(filter->GetReconstructionLog().find("Iteration 4/4"), std::string::npos) << filter->GetReconstructionLog();
  EXPECT_EQ(filter->GetReconstructionLog().find("prior loss"), std::string::npos);

  filter->ComputePriorLossOn(); // reported in the log, the same volume
  filter->Update();
  EXPECT_NE(filter->GetReconstructionLog().find("prior loss"), std::string::npos) << filter->GetReconstructionLog();
  EXPECT_EQ(engineVolume(filter->GetOutput()), engine.recon(scan.sinogram).recon);
}

TEST(MBIRReconstructionFilter, DeviceImagesGiveTheHostResult)
{
  const Scan scan = makeScan();
  auto       host = itk::MBIRReconstructionFilter<ImageType>::New();
  host->SetInput(scan.projections);
  host->SetGeometry(scan.geometry);
  host->SetMaxIterations(3);
  host->Update();

  const auto backend = mbir::makeCpuBackend();
  auto       projections = DeviceImageType::New();
  projections->SetProjections(std::make_shared<const mbir::DeviceSinogram>(mbir::DeviceSinogram::upload(
    backend, mbir::ArrayView3(scan.sinogram, mbir::sinogramShapeOf(scan.geometry->GetEngineGeometry())))));
  projections->SetSpacing(scan.projections->GetSpacing());
  auto device = itk::MBIRReconstructionFilter<DeviceImageType>::New();
  device->SetInput(projections);
  device->SetGeometry(scan.geometry);
  device->SetMaxIterations(3);
  device->Update();
  ASSERT_EQ(device->GetOutput()->GetContent(), DeviceImageType::ContentEnum::Volume);
  EXPECT_EQ(&device->GetOutput()->GetVolume()->group().device(0), backend.get());
  const ImageType::Pointer gathered = device->GetOutput()->ToImage();
  EXPECT_EQ(engineVolume(gathered), engineVolume(host->GetOutput()));
  EXPECT_EQ(gathered->GetOrigin(), host->GetOutput()->GetOrigin());
}

TEST(MBIRReconstructionFilter, ReportsProgressAndStopsOnAbort)
{
  const Scan          scan = makeScan();
  auto                filter = itk::MBIRReconstructionFilter<ImageType>::New();
  std::vector<double> progress;
  auto                observer = itk::CStyleCommand::New();
  observer->SetCallback([](itk::Object * caller, const itk::EventObject &, void * data) {
    static_cast<std::vector<double> *>(data)->push_back(static_cast<itk::ProcessObject *>(caller)->GetProgress());
  });
  observer->SetClientData(&progress);
  filter->AddObserver(itk::ProgressEvent(), observer);
  // IterationEvent after each iteration, with GetIterationsDone() counting them.
  std::vector<int> iterations;
  auto             counter = itk::CStyleCommand::New();
  counter->SetCallback([](itk::Object * caller, const itk::EventObject &, void * data) {
    static_cast<std::vector<int> *>(data)->push_back(
      static_cast<itk::MBIRReconstructionFilter<ImageType> *>(caller)->GetIterationsDone());
  });
  counter->SetClientData(&iterations);
  filter->AddObserver(itk::IterationEvent(), counter);
  filter->SetInput(scan.projections);
  filter->SetGeometry(scan.geometry);
  filter->SetMaxIterations(3);
  filter->SetStopThresholdChangePercent(0.0);
  filter->Update();
  ASSERT_GT(progress.size(), 3u);
  EXPECT_FLOAT_EQ(progress.back(), 1.0f);
  EXPECT_EQ(iterations, std::vector<int>({ 1, 2, 3 }));
  EXPECT_EQ(filter->GetIterationsDone(), 3);

  // Abort after the third progress event: the filter throws and produces nothing.
  auto aborting = itk::MBIRReconstructionFilter<ImageType>::New();
  int  events = 0;
  auto stopper = itk::CStyleCommand::New();
  stopper->SetCallback([](itk::Object * caller, const itk::EventObject &, void * data) {
    if (++*static_cast<int *>(data) == 3)
    {
      static_cast<itk::ProcessObject *>(caller)->AbortGenerateDataOn();
    }
  });
  stopper->SetClientData(&events);
  aborting->AddObserver(itk::ProgressEvent(), stopper);
  aborting->SetInput(scan.projections);
  aborting->SetGeometry(scan.geometry);
  EXPECT_THROW(aborting->Update(), itk::ProcessAborted);
  EXPECT_EQ(events, 3);
  EXPECT_EQ(aborting->GetOutput()->GetBufferPointer(), nullptr);
}

TEST(MBIRReconstructionFilter, AbortedWithACheckpointThenResumed)
{
  const Scan        scan = makeScan();
  const std::string checkpoint =
    (std::filesystem::temp_directory_path() / ("mbir-filter-" + std::to_string(::getpid()) + ".ckpt")).string();
  auto make = [&] {
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(scan.projections);
    filter->SetGeometry(scan.geometry);
    filter->SetMaxIterations(4);
    filter->SetStopThresholdChangePercent(0.0);
    return filter;
  };
  auto uninterrupted = make();
  uninterrupted->Update();

  auto aborting = make();
  aborting->SetCheckpointFileName(checkpoint);
  auto stopper = itk::CStyleCommand::New();
  stopper->SetCallback([](itk::Object * caller, const itk::EventObject &, void *) {
    auto * filter = static_cast<itk::ProcessObject *>(caller);
    if (filter->GetProgress() > 0.5f)
      filter->AbortGenerateDataOn();
  });
  aborting->AddObserver(itk::ProgressEvent(), stopper);
  EXPECT_THROW(aborting->Update(), itk::ProcessAborted);
  ASSERT_TRUE(std::filesystem::exists(checkpoint));

  auto resumed = make();
  resumed->SetResumeFileName(checkpoint);
  resumed->Update();
  EXPECT_LT(mbir::nrmse(engineVolume(resumed->GetOutput()), engineVolume(uninterrupted->GetOutput())), 1e-4);
  EXPECT_EQ(resumed->GetReconstructionReport().log.size(), 4u);
  EXPECT_NE(resumed->GetReconstructionLog().find("Resuming from checkpoint"), std::string::npos);

  auto other = make();
  other->SetResumeFileName(checkpoint);
  other->SetSharpness(2.0);
  try
  {
    other->Update();
    ADD_FAILURE() << "resumed from a checkpoint made with other parameters";
  }
  catch (const itk::ExceptionObject & e)
  {
    EXPECT_NE(std::string(e.GetDescription()).find("other parameters"), std::string::npos) << e.GetDescription();
  }
  std::filesystem::remove(checkpoint);
}

TEST(MBIRReconstructionFilter, RunsAgainOnlyWhenSomethingChanged)
{
  const Scan scan = makeScan();
  auto       filter = itk::MBIRReconstructionFilter<ImageType>::New();
  int        starts = 0;
  auto       counter = itk::CStyleCommand::New();
  counter->SetCallback([](itk::Object *, const itk::EventObject &, void * data) { ++*static_cast<int *>(data); });
  counter->SetClientData(&starts);
  filter->AddObserver(itk::StartEvent(), counter);
  filter->SetInput(scan.projections);
  filter->SetGeometry(scan.geometry);
  filter->SetMaxIterations(1);
  filter->Update();
  filter->Update();
  filter->SetMaxIterations(1); // the same value
  filter->Update();
  EXPECT_EQ(starts, 1);
  filter->SetSharpness(2.0);
  filter->Update();
  EXPECT_EQ(starts, 2);
  itk::MBIRGeometry::DetectorVectorType offset;
  offset[0] = 0.25; // channels only: parallel beam has no row offset
  offset[1] = 0.0;
  scan.geometry->SetDetectorOffset(offset);
  filter->Update();
  EXPECT_EQ(starts, 3);
}

TEST(MBIRReconstructionFilter, RejectsBadInputClearly)
{
  const Scan scan = makeScan();
  auto       expectError = [](itk::ProcessObject * filter, const std::string & needle) {
    try
    {
      filter->Update();
      ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find(needle), std::string::npos) << e.GetDescription();
    }
  };
  {
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(scan.projections);
    expectError(filter, "Geometry");
  }
  {
    auto wrong = itk::MBIRImageConversion::SinogramToImage(
      std::vector<float>(23 * 5 * 40, 1.0f), mbir::SinogramShape{ 23, 5, 40 }, 0.5, 0.5);
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(wrong);
    filter->SetGeometry(scan.geometry);
    expectError(filter, "projections are [40, 5, 23] [channels, rows, views] but the geometry has [40, 5, 24]");
  }
  {
    // Views 4 to 23 only, as one MPI rank holds its share: in one process the devices need every view.
    auto part = itk::MBIRImageConversion::SinogramToImage(
      std::vector<float>(20 * 5 * 40, 1.0f), mbir::SinogramShape{ 20, 5, 40 }, 0.5, 0.5);
    ImageType::RegionType region = part->GetLargestPossibleRegion();
    region.SetIndex(2, 4);
    part->SetRegions(region);
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(part);
    filter->SetGeometry(scan.geometry);
    expectError(filter, "projections are [40, 5, 20] [channels, rows, views] but the geometry has [40, 5, 24]");
  }
  {
    auto stretched =
      itk::MBIRImageConversion::SinogramToImage(scan.sinogram, mbir::SinogramShape{ 24, 5, 40 }, 1.0, 0.5);
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(stretched);
    filter->SetGeometry(scan.geometry);
    expectError(filter, "detector pitch");
  }
  {
    auto weights = itk::MBIRImageConversion::SinogramToImage(
      std::vector<float>(24 * 4 * 40, 1.0f), mbir::SinogramShape{ 24, 4, 40 }, 0.5, 0.5);
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(scan.projections);
    filter->SetGeometry(scan.geometry);
    filter->SetWeights(weights);
    expectError(filter, "weights are [40, 4, 24]");
  }
  {
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(scan.projections);
    filter->SetGeometry(scan.geometry);
    filter->SetWeightType("poisson");
    expectError(filter, "poisson");
  }
}
