// Pipeline behaviour of the denoiser and the direct recon (the reconstruction filter's own is in
// itkMBIRReconstructionFilterGTest.cxx): progress, abort, re-execution only on change; and bad input to
// every filter, including inputs of the wrong kind set through ProcessObject's generic SetInput(name, ...).

#include "MBIRITKTestSupport.h"
#include "itkCommand.h"
#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRReconstructionFilter.h"
#include "itkQGGMRFDenoiseFilter.h"

#include <gtest/gtest.h>

using namespace mbir::itktest;

namespace {

// Counts events of one kind on a filter while it lives; with `abortAt`, sets AbortGenerateData at that event.
class EventCounter
{
public:
  EventCounter(itk::ProcessObject * filter, const itk::EventObject & event, int abortAt = 0)
    : m_Filter(filter)
    , m_AbortAt(abortAt)
  {
    m_Command->SetCallback([](itk::Object * caller, const itk::EventObject &, void * self) {
      auto * counter = static_cast<EventCounter *>(self);
      auto * filter = static_cast<itk::ProcessObject *>(caller);
      counter->m_Progress.push_back(filter->GetProgress());
      if (static_cast<int>(counter->m_Progress.size()) == counter->m_AbortAt)
      {
        filter->AbortGenerateDataOn();
      }
    });
    m_Command->SetClientData(this);
    m_Tag = filter->AddObserver(event, m_Command);
  }
  ~EventCounter() { m_Filter->RemoveObserver(m_Tag); }
  EventCounter(const EventCounter &) = delete;
  EventCounter &
  operator=(const EventCounter &) = delete;

  int
  Count() const
  {
    return static_cast<int>(m_Progress.size());
  }
  // The filter's progress at each event.
  const std::vector<float> &
  Progress() const
  {
    return m_Progress;
  }

private:
  itk::ProcessObject::Pointer m_Filter;
  unsigned long               m_Tag{ 0 };
  itk::CStyleCommand::Pointer m_Command{ itk::CStyleCommand::New() };
  std::vector<float>          m_Progress;
  int                         m_AbortAt;
};

void
expectRisingToOne(const std::vector<float> & progress)
{
  ASSERT_FALSE(progress.empty());
  for (std::size_t i = 1; i < progress.size(); ++i)
  {
    EXPECT_LE(progress[i - 1], progress[i]) << "event " << i;
  }
  EXPECT_FLOAT_EQ(progress.back(), 1.0f);
}

// A filter whose protected ProcessObject::SetInput(name, DataObject *) is public: the untyped path that
// generic code (wrappers, command-line front ends) uses, where any DataObject can arrive.
template<typename TFilter>
class Untyped : public TFilter
{
public:
  ITK_DISALLOW_COPY_AND_MOVE(Untyped);
  using Self = Untyped;
  using Pointer = itk::SmartPointer<Self>;
  itkNewMacro(Self);
  using itk::ProcessObject::SetInput;
  using TFilter::SetInput;

protected:
  Untyped() = default;
  ~Untyped() override = default;
};

} // namespace

TEST(QGGMRFDenoiseFilter, ReportsProgressAndStopsOnAbortWithoutOutput)
{
  const auto volume = noisy(phantomImage(*coneScan()), 0.05f, 1);
  auto       filter = itk::QGGMRFDenoiseFilter<ImageType>::New();
  filter->SetInput(volume);
  filter->SetMaxIterations(2);
  {
    const EventCounter progress(filter, itk::ProgressEvent());
    filter->Update();
    EXPECT_GT(progress.Count(), 3); // one per subset, at least
    expectRisingToOne(progress.Progress());
  }
  const std::vector<float> earlier = engineVolume(filter->GetOutput());

  // Run again with another parameter and abort at the third subset: the engine stops there, and the
  // output is left as it was, holding the earlier result whole and nothing of the new one.
  filter->SetSharpness(1.0);
  const EventCounter progress(filter, itk::ProgressEvent(), 3);
  EXPECT_THROW(filter->Update(), itk::ProcessAborted);
  EXPECT_EQ(progress.Count(), 3);
  EXPECT_EQ(engineVolume(filter->GetOutput()), earlier);

  // Aborted on its first run, a filter has no output at all.
  auto               fresh = itk::QGGMRFDenoiseFilter<ImageType>::New();
  const EventCounter freshProgress(fresh, itk::ProgressEvent(), 2);
  fresh->SetInput(volume);
  EXPECT_THROW(fresh->Update(), itk::ProcessAborted);
  EXPECT_EQ(freshProgress.Count(), 2);
  EXPECT_EQ(fresh->GetOutput()->GetBufferPointer(), nullptr);
}

TEST(QGGMRFDenoiseFilter, AbortLeavesADeviceOutputAsItWas)
{
  const auto volume = noisy(phantomImage(*coneScan()), 0.05f, 1);
  auto       filter = itk::QGGMRFDenoiseFilter<DeviceImageType>::New();
  filter->SetInput(upload(volume, DeviceImageType::ContentEnum::Volume, mbir::makeCpuBackend()));
  filter->SetMaxIterations(2);
  filter->Update();
  const auto earlier = filter->GetOutput()->GetVolume();
  ASSERT_NE(earlier, nullptr);
  const std::vector<float> values = earlier->download();
  filter->SetSharpness(1.0);
  const EventCounter progress(filter, itk::ProgressEvent(), 2);
  EXPECT_THROW(filter->Update(), itk::ProcessAborted);
  EXPECT_EQ(progress.Count(), 2);
  EXPECT_EQ(filter->GetOutput()->GetVolume(), earlier);
  EXPECT_EQ(earlier->download(), values);
}

TEST(QGGMRFDenoiseFilter, RunsAgainOnlyWhenSomethingChanged)
{
  const auto         volume = noisy(phantomImage(*coneScan()), 0.05f, 1);
  auto               filter = itk::QGGMRFDenoiseFilter<ImageType>::New();
  const EventCounter starts(filter, itk::StartEvent());
  filter->SetInput(volume);
  filter->SetMaxIterations(1);
  filter->Update();
  filter->Update();
  filter->SetMaxIterations(1); // the same value
  filter->Update();
  EXPECT_EQ(starts.Count(), 1);
  filter->SetSharpness(1.0);
  filter->Update();
  EXPECT_EQ(starts.Count(), 2);
  volume->Modified(); // new data in the input
  filter->Update();
  EXPECT_EQ(starts.Count(), 3);
  filter->SetBackend(mbir::makeCpuBackend());
  filter->Update();
  EXPECT_EQ(starts.Count(), 4);
}

TEST(MBIRDirectReconstructionFilter, ReportsProgressAndRunsAgainOnlyWhenSomethingChanged)
{
  const auto geometry = parallelScan();
  const auto projections = projectionsImage(mbir::Projector(geometry->GetEngineGeometry(), mbir::makeCpuBackend())
                                              .forwardProject(engineVolume(phantomImage(*geometry)).data()),
                                            *geometry);
  auto       filter = itk::MBIRDirectReconstructionFilter<ImageType>::New();
  const EventCounter starts(filter, itk::StartEvent());
  const EventCounter progress(filter, itk::ProgressEvent());
  filter->SetInput(projections);
  filter->SetGeometry(geometry);
  filter->Update();
  expectRisingToOne(progress.Progress());
  filter->Update();
  filter->SetBackend(nullptr); // the same (the CPU engine)
  filter->Update();
  EXPECT_EQ(starts.Count(), 1);
  const std::vector<float> before = engineVolume(filter->GetOutput());
  geometry->SetDetectorOffset(pair(0.3, 0.0)); // the geometry is a pipeline input
  filter->Update();
  EXPECT_EQ(starts.Count(), 2);
  EXPECT_NE(engineVolume(filter->GetOutput()), before);
  projections->Modified();
  filter->Update();
  EXPECT_EQ(starts.Count(), 3);
}

TEST(MBIRFilters, RejectMissingGeometryAndMismatchedSizes)
{
  const auto geometry = coneScan();
  const auto volume = phantomImage(*geometry);
  const auto projections = projectionsImage(
    std::vector<float>(geometry->GetNumberOfViews() * geometry->GetNumberOfRows() * geometry->GetNumberOfChannels(),
                       1.0f),
    *geometry);
  // One view short, and a volume with one slice too many.
  auto shortScan = coneScan();
  shortScan->SetAngles(evenAngles(19, 2 * M_PI));
  auto tallerGrid = coneScan();
  auto size = tallerGrid->GetVolumeSize();
  ++size[2];
  tallerGrid->SetVolumeSize(size);
  {
    SCOPED_TRACE("forward projection");
    auto filter = itk::MBIRForwardProjectionFilter<ImageType>::New();
    filter->SetInput(volume);
    expectUpdateFails(filter, { "Geometry" });
    filter->SetGeometry(tallerGrid);
    expectUpdateFails(filter, { "volume is [", "[x, y, z] but the geometry's volume is [" });
  }
  {
    SCOPED_TRACE("back projection");
    auto filter = itk::MBIRBackProjectionFilter<ImageType>::New();
    filter->SetInput(projections);
    expectUpdateFails(filter, { "Geometry" });
    filter->SetGeometry(shortScan);
    expectUpdateFails(filter,
                      { "projections are [32, 8, 20] [channels, rows, views] but the geometry has [32, 8, 19]" });
  }
  {
    SCOPED_TRACE("direct reconstruction");
    auto filter = itk::MBIRDirectReconstructionFilter<ImageType>::New();
    filter->SetInput(projections);
    expectUpdateFails(filter, { "Geometry" });
    filter->SetGeometry(shortScan);
    expectUpdateFails(filter, { "projections are [32, 8, 20]", "[32, 8, 19]" });
  }
  {
    SCOPED_TRACE("reconstruction: initial and prox images of the wrong size");
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(projections);
    filter->SetGeometry(tallerGrid);
    filter->SetInitialImage(volume);
    expectUpdateFails(filter, { "initial image is [", "but the geometry's volume is [" });
    filter->SetInitialImage(nullptr);
    filter->SetProxImage(volume);
    expectUpdateFails(filter, { "prox image is [" });
  }
  {
    SCOPED_TRACE("reconstruction: device weights of the wrong size");
    const auto backend = mbir::makeCpuBackend();
    auto       filter = itk::MBIRReconstructionFilter<DeviceImageType>::New();
    filter->SetInput(upload(projections, DeviceImageType::ContentEnum::Projections, backend));
    filter->SetWeights(upload(projectionsImage(std::vector<float>(19 * 8 * 32, 1.0f), *shortScan),
                              DeviceImageType::ContentEnum::Projections,
                              backend));
    filter->SetGeometry(geometry);
    expectUpdateFails(filter, { "weights are [32, 8, 19]", "the geometry has [32, 8, 20]" });
  }
  {
    SCOPED_TRACE("a device volume where projections belong");
    auto filter = itk::MBIRDirectReconstructionFilter<DeviceImageType>::New();
    filter->SetInput(upload(projections, DeviceImageType::ContentEnum::Volume, mbir::makeCpuBackend()));
    filter->SetGeometry(geometry);
    // Its size and spacing are those of the projections: only what it holds is wrong.
    expectUpdateFails(filter, { "projections input is an MBIRDeviceImage that holds a volume, not projections" });
  }
}

TEST(MBIRFilters, RejectImagesOfTheWrongKindThroughTheGenericInputPath)
{
  const auto geometry = parallelScan();
  const auto projections = projectionsImage(
    std::vector<float>(geometry->GetNumberOfViews() * geometry->GetNumberOfRows() * geometry->GetNumberOfChannels(),
                       1.0f),
    *geometry);
  const auto shorts = itk::Image<short, 3>::New();
  shorts->SetRegions(projections->GetLargestPossibleRegion());
  shorts->Allocate(true);
  const auto flat = itk::Image<float, 2>::New();
  flat->SetRegions(itk::Image<float, 2>::RegionType(itk::Image<float, 2>::SizeType{ { 40, 24 } }));
  flat->Allocate(true);
  const auto doubles = itk::Image<double, 3>::New();
  doubles->SetRegions(phantomImage(*geometry)->GetLargestPossibleRegion());
  doubles->Allocate(true);
  {
    SCOPED_TRACE("short weights");
    auto filter = Untyped<itk::MBIRReconstructionFilter<ImageType>>::New();
    filter->SetInput(projections);
    filter->SetGeometry(geometry);
    filter->SetInput("Weights", shorts);
    expectUpdateFails(
      filter,
      { "MBIRReconstructionFilter: the Weights input is a 3-D Image whose pixels are not float", "3-D float images" });
  }
  {
    SCOPED_TRACE("2-D weights");
    auto filter = Untyped<itk::MBIRReconstructionFilter<ImageType>>::New();
    filter->SetInput(projections);
    filter->SetGeometry(geometry);
    filter->SetInput("Weights", flat);
    expectUpdateFails(filter, { "the Weights input is a 2-D Image;" });
  }
  {
    SCOPED_TRACE("double initial image");
    auto filter = Untyped<itk::MBIRReconstructionFilter<ImageType>>::New();
    filter->SetInput(projections);
    filter->SetGeometry(geometry);
    filter->SetInput("InitialImage", doubles);
    expectUpdateFails(filter, { "the InitialImage input is a 3-D Image whose pixels are not float" });
  }
  {
    SCOPED_TRACE("short projections");
    auto filter = Untyped<itk::MBIRDirectReconstructionFilter<ImageType>>::New();
    filter->SetInput("Projections", shorts);
    filter->SetGeometry(geometry);
    expectUpdateFails(filter, { "the Projections input is a 3-D Image whose pixels are not float" });
  }
  {
    SCOPED_TRACE("an image where the geometry belongs");
    auto filter = Untyped<itk::MBIRBackProjectionFilter<ImageType>>::New();
    filter->SetInput(projections);
    filter->SetInput("Geometry", projections);
    expectUpdateFails(filter, { "MBIRBackProjectionFilter: the Geometry input is a 3-D Image, not an MBIRGeometry" });
  }
  {
    SCOPED_TRACE("double volume to denoise");
    auto filter = Untyped<itk::QGGMRFDenoiseFilter<ImageType>>::New();
    filter->SetInput("Primary", doubles);
    expectUpdateFails(filter, { "the Primary input is a 3-D Image whose pixels are not float" });
  }
  {
    SCOPED_TRACE("2-D volume to project");
    auto filter = Untyped<itk::MBIRForwardProjectionFilter<ImageType>>::New();
    filter->SetInput("Volume", flat);
    filter->SetGeometry(geometry);
    expectUpdateFails(filter, { "the Volume input is a 2-D Image;" });
  }
}

TEST(MBIRFilters, SayWhenTheDevicesCannotHoldTheProblem)
{
  auto geometry = itk::MBIRParallelBeamGeometry::New(); // about 6 MiB to reconstruct
  geometry->SetDetectorSize(96, 24);
  geometry->SetDetectorSpacing(pair(0.5, 0.5));
  geometry->SetAngles(evenAngles(64, M_PI));
  geometry->AutoSetVolumeGeometry();
  const auto volume = phantomImage(*geometry);
  auto       project = itk::MBIRForwardProjectionFilter<ImageType>::New();
  project->SetInput(volume);
  project->SetGeometry(geometry);
  project->Update();
  const auto small = mbir::makeCpuBackend();
  small->setMemoryLimit(std::size_t(1) << 20);
  {
    SCOPED_TRACE("reconstruction");
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetInput(project->GetOutput());
    filter->SetGeometry(geometry);
    filter->SetBackend(small);
    expectUpdateFails(filter, { "MBIR of sinogram (64, 24, 96)", "needs 6.2 MiB", "memory limit" });
  }
  {
    SCOPED_TRACE("denoising");
    auto filter = itk::QGGMRFDenoiseFilter<ImageType>::New();
    filter->SetInput(volume);
    filter->SetBackend(small);
    expectUpdateFails(filter, { "qGGMRF denoising of image", "needs", "memory limit" });
  }
}
