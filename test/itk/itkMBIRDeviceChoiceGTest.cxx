// Device choice on the filters (README "The ITK layer"): with four CPU devices, the automatic choice uses
// them all, a count, indices or handles use exactly those and stay pinned across parameter changes,
// ResetDevices() goes back to all, impossible choices fail at Update() with the engine's message, and the
// result does not depend on the number of devices. A device-resident output stays split over the devices.

#include "MBIRITKTestSupport.h"
#include "itkMBIRReconstructionFilter.h"
#include "itkQGGMRFDenoiseFilter.h"
#include "mbir/Devices.h"
#include "mbir/Metrics.h"
#include "mbir/Projector.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace mbir::itktest;

namespace {

using BackendPointer = std::shared_ptr<mbir::Backend>;
using HostToDeviceRecon = itk::MBIRReconstructionFilter<ImageType, DeviceImageType>;
using HostToDeviceDenoise = itk::QGGMRFDenoiseFilter<ImageType, DeviceImageType>;

// MBIR_NUM_CPU_DEVICES=4 for one test, set before the engine first looks and removed afterwards so that
// other tests in the process see the default again.
class FourCpuDevices : public ::testing::Test
{
protected:
  void
  SetUp() override
  {
    ASSERT_EQ(setenv("MBIR_NUM_CPU_DEVICES", "4", 1), 0);
    m_All = mbir::availableDevices(mbir::UseGpu::None);
    ASSERT_EQ(m_All.size(), 4u);
  }
  void
  TearDown() override
  {
    unsetenv("MBIR_NUM_CPU_DEVICES");
  }

  // "N x CPU (sharded, T threads)" with the padding notes, as DeviceGroup::summary() writes it.
  std::string
  Summary(int n, const std::string & notes = "") const
  {
    if (n == 1)
    {
      return "1 x CPU" + notes;
    }
    const int threads = m_All.front()->threadCount();
    return std::to_string(n) + " x CPU (sharded, " + std::to_string(threads) +
           (threads == 1 ? " thread)" : " threads)") + notes;
  }

  std::vector<BackendPointer> m_All;
};

// 22 views and 7 slices: four devices pad both (22->24, 7->8), two pad the slices only.
itk::MBIRParallelBeamGeometry::Pointer
smallScan()
{
  auto geometry = itk::MBIRParallelBeamGeometry::New();
  geometry->SetDetectorSize(24, 7);
  geometry->SetDetectorSpacing(pair(0.5, 0.5));
  geometry->SetAngles(evenAngles(22, M_PI));
  geometry->AutoSetVolumeGeometry();
  return geometry;
}

ImageType::Pointer
projectionsOf(const itk::MBIRGeometry & geometry)
{
  const mbir::Projector projector(geometry.GetEngineGeometry(), mbir::makeCpuBackend());
  return projectionsImage(projector.forwardProject(engineVolume(phantomImage(geometry)).data()), geometry);
}

HostToDeviceRecon::Pointer
reconstruction(itk::MBIRGeometry * geometry, const ImageType * projections)
{
  auto filter = HostToDeviceRecon::New();
  filter->SetInput(projections);
  filter->SetGeometry(geometry);
  filter->SetMaxIterations(2);
  filter->SetUseGpu("none"); // the CPU devices that MBIR_NUM_CPU_DEVICES makes, even where GPUs are present
  return filter;
}

const std::vector<BackendPointer> &
devicesOf(const DeviceImageType * output)
{
  return output->GetVolume()->group().devices();
}

} // namespace

TEST_F(FourCpuDevices, ReconstructionUsesTheChosenDevices)
{
  const auto geometry = smallScan();
  ASSERT_EQ(geometry->GetVolumeSize()[2], 7u);
  const auto projections = projectionsOf(*geometry);
  auto       filter = reconstruction(geometry, projections);

  filter->Update();
  EXPECT_FALSE(filter->GetDeviceSelection().pinned());
  EXPECT_EQ(filter->GetDeviceSummary(), Summary(4, " (views padded 22->24) (slices padded 7->8)"));
  EXPECT_EQ(devicesOf(filter->GetOutput()), m_All);

  filter->ConfigureDevices(2);
  filter->Update();
  EXPECT_EQ(filter->GetDeviceSummary(), Summary(2, " (slices padded 7->8)"));
  EXPECT_EQ(devicesOf(filter->GetOutput()), std::vector<BackendPointer>({ m_All[0], m_All[1] }));

  filter->ConfigureDevices(1);
  filter->Update();
  EXPECT_EQ(filter->GetDeviceSummary(), "1 x CPU");
  EXPECT_EQ(devicesOf(filter->GetOutput()), std::vector<BackendPointer>({ m_All[0] }));

  filter->ConfigureDevices(mbir::DeviceSelection::atIndices({ 3, 1 }));
  filter->Update();
  EXPECT_EQ(devicesOf(filter->GetOutput()), std::vector<BackendPointer>({ m_All[3], m_All[1] }));

  filter->SetDevices({ m_All[2], m_All[0], m_All[3] });
  filter->Update();
  EXPECT_EQ(filter->GetDeviceSummary(), Summary(3, " (views padded 22->24) (slices padded 7->9)"));
  EXPECT_EQ(devicesOf(filter->GetOutput()), std::vector<BackendPointer>({ m_All[2], m_All[0], m_All[3] }));

  // Pinned: a parameter change re-runs the filter on the same devices, not on the automatic choice.
  EXPECT_TRUE(filter->GetDeviceSelection().pinned());
  filter->SetSharpness(1.5);
  filter->Update();
  EXPECT_EQ(devicesOf(filter->GetOutput()), std::vector<BackendPointer>({ m_All[2], m_All[0], m_All[3] }));

  filter->ResetDevices();
  EXPECT_FALSE(filter->GetDeviceSelection().pinned());
  EXPECT_EQ(filter->GetDeviceSelection().useGpu(), mbir::UseGpu::None); // the policy outlives the choice
  filter->Update();
  EXPECT_EQ(devicesOf(filter->GetOutput()), m_All);
}

TEST_F(FourCpuDevices, UseGpuKeepsItsPolicyAndRejectsUnknownWords)
{
  auto filter = HostToDeviceDenoise::New();
  filter->SetUseGpu("none");
  filter->ConfigureDevices(mbir::DeviceSelection::atIndices({ 0, 2 }));
  EXPECT_EQ(filter->GetDeviceSelection().useGpu(), mbir::UseGpu::None);
  filter->ConfigureDevices(2);
  EXPECT_EQ(filter->GetDeviceSelection().useGpu(), mbir::UseGpu::None);
  filter->SetUseGpu("full");
  EXPECT_EQ(filter->GetDeviceSelection().useGpu(), mbir::UseGpu::Full);
  filter->SetUseGpu("automatic");
  EXPECT_EQ(filter->GetDeviceSelection().useGpu(), mbir::UseGpu::Automatic);
  EXPECT_TRUE(filter->GetDeviceSelection().pinned()); // the count chosen above is kept

  try
  {
    filter->SetUseGpu("bogus");
    ADD_FAILURE() << "SetUseGpu(\"bogus\") did not throw";
  }
  catch (const itk::ExceptionObject & e)
  {
    const std::string message = e.GetDescription();
    for (const char * word : { "automatic", "full", "none", "bogus" })
    {
      EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' not in: " << message;
    }
  }
  EXPECT_EQ(filter->GetDeviceSelection().useGpu(), mbir::UseGpu::Automatic); // unchanged by the bad word
}

TEST_F(FourCpuDevices, ImpossibleChoicesFailAtUpdate)
{
  const auto geometry = smallScan();
  const auto projections = projectionsOf(*geometry);
  auto       filter = reconstruction(geometry, projections);
  filter->SetMaxIterations(1);
  {
    SCOPED_TRACE("index out of range");
    filter->ConfigureDevices(mbir::DeviceSelection::atIndices({ 1, 4 }));
    expectUpdateFails(filter, { "index 4 is out of range", "4 available", "indices 0..3" });
  }
  {
    SCOPED_TRACE("an index twice");
    filter->ConfigureDevices(mbir::DeviceSelection::atIndices({ 2, 0, 2 }));
    expectUpdateFails(filter, { "index 2 is listed twice" });
  }
  {
    SCOPED_TRACE("no index");
    filter->ConfigureDevices(mbir::DeviceSelection::atIndices({}));
    expectUpdateFails(filter, { "list of device indices is empty" });
  }
  {
    SCOPED_TRACE("zero devices");
    filter->ConfigureDevices(0);
    expectUpdateFails(filter, { "device count must be >= 1, got 0" });
  }
  {
    SCOPED_TRACE("more devices than there are");
    filter->ConfigureDevices(5);
    expectUpdateFails(filter, { "5 devices asked for", "MBIR_NUM_CPU_DEVICES" });
  }
  {
    SCOPED_TRACE("no handles");
    filter->SetDevices({});
    expectUpdateFails(filter, { "list of devices is empty" });
  }
  {
    SCOPED_TRACE("a handle twice");
    filter->SetDevices({ m_All[1], m_All[1] });
    expectUpdateFails(filter, { "is listed twice" });
  }
  // A good choice afterwards runs.
  filter->ConfigureDevices(2);
  EXPECT_NO_THROW(filter->Update());
  EXPECT_EQ(filter->GetOutput()->GetVolume()->group().size(), 2);
}

TEST_F(FourCpuDevices, ResultsDoNotDependOnTheNumberOfDevices)
{
  const auto geometry = smallScan();
  const auto projections = projectionsOf(*geometry);
  auto       filter = reconstruction(geometry, projections);
  auto       denoise = HostToDeviceDenoise::New();
  denoise->SetInput(phantomImage(*geometry));
  denoise->SetMaxIterations(2);
  denoise->SetSigmaNoise(0.02);
  denoise->SetUseGpu("none");

  std::vector<float> recon[3], denoised[3];
  const int          counts[3] = { 1, 2, 4 };
  for (int i = 0; i < 3; ++i)
  {
    filter->ConfigureDevices(counts[i]);
    filter->Update();
    denoise->ConfigureDevices(counts[i]);
    denoise->Update();
    // A device-resident output stays split over the devices; ToImage() gathers it whole.
    const DeviceImageType * output = filter->GetOutput();
    ASSERT_EQ(output->GetVolume()->group().size(), counts[i]);
    ASSERT_EQ(denoise->GetOutput()->GetVolume()->group().size(), counts[i]);
    const ImageType::Pointer gathered = output->ToImage();
    EXPECT_EQ(gathered->GetLargestPossibleRegion(), output->GetLargestPossibleRegion());
    EXPECT_EQ(gathered->GetOrigin(), output->GetOrigin());
    EXPECT_EQ(gathered->GetSpacing(), output->GetSpacing());
    recon[i] = engineVolume(gathered);
    denoised[i] = engineVolume(denoise->GetOutput()->ToImage());
    EXPECT_EQ(recon[i], output->GetVolume()->download());
  }
  EXPECT_EQ(denoise->GetDeviceSummary().rfind(Summary(4), 0), 0u) << denoise->GetDeviceSummary();
  EXPECT_NE(denoise->GetDeviceSummary().find("(slices padded 7->8)"), std::string::npos);
  for (int i = 1; i < 3; ++i)
  {
    SCOPED_TRACE(std::to_string(counts[i]) + " devices against 1");
    EXPECT_LT(mbir::nrmse(recon[i], recon[0]), 1e-4);
    EXPECT_LT(mbir::nrmse(denoised[i], denoised[0]), 1e-4);
  }
}

TEST_F(FourCpuDevices, ShardsShowWhereTheValuesLive)
{
  const auto geometry = smallScan();
  auto       filter = reconstruction(geometry, projectionsOf(*geometry));
  filter->SetDevices({ m_All[2], m_All[0], m_All[3] });
  filter->Update();
  const DeviceImageType *                   output = filter->GetOutput();
  const std::vector<DeviceImageType::Shard> shards = output->GetShards();
  const std::vector<float>                  whole = engineVolume(output->ToImage());
  const mbir::ReconShape &                  shape = output->GetVolume()->shape();
  const int                                 pixels = shape.rows * shape.cols;

  // 7 slices over 3 devices: 3 + 3 + 1, the last device's two padding slices zero.
  ASSERT_EQ(shards.size(), 3u);
  const int firsts[3] = { 0, 3, 6 }, valids[3] = { 3, 3, 1 };
  for (int d = 0; d < 3; ++d)
  {
    SCOPED_TRACE("device " + std::to_string(d));
    const DeviceImageType::Shard & shard = shards[d];
    EXPECT_EQ(shard.device, m_All[d == 0 ? 2 : d == 1 ? 0 : 3].get());
    EXPECT_EQ(shard.count, static_cast<std::size_t>(pixels) * 3);
    EXPECT_EQ(shard.first, firsts[d]);
    EXPECT_EQ(shard.valid, valids[d]);
    for (int p = 0; p < pixels; ++p)
    {
      for (int s = 0; s < 3; ++s)
      {
        const float expected = s < shard.valid ? whole[p * shape.slices + shard.first + s] : 0.0f;
        ASSERT_EQ(shard.values[p * 3 + s], expected) << "pixel " << p << " slice " << s;
      }
    }
  }
  EXPECT_TRUE(DeviceImageType::New()->GetShards().empty());
}
