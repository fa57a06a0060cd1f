// Device faults in every MBIR filter: the k-th allocation, transfer or kernel of an Update fails, for every k the
// clean Update makes (test/support/FaultInjection.h). The filter must throw an itk::ExceptionObject naming it
// (never a bare std::exception, which ITK pipelines and Python do not expect), free every byte and leave its input
// image unchanged.

#include "FaultInjection.h"
#include "MBIRITKTestSupport.h"
#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRReconstructionFilter.h"
#include "itkQGGMRFDenoiseFilter.h"

#include <gtest/gtest.h>

using namespace mbir::itktest;

namespace {

// Runs `update` (a new filter on `device`, updated) once clean and then failing at each call in turn.
template<typename TMakeFilter>
void
expectEveryFaultReported(const char * name, const ImageType * input, TMakeFilter makeFilter)
{
  SCOPED_TRACE(name);
  const std::vector<float> before(input->GetBufferPointer(),
                                  input->GetBufferPointer() + input->GetPixelContainer()->Size());
  const auto               plan = std::make_shared<mbir::test::FaultPlan>();
  const auto               inner = mbir::makeCpuBackend();
  auto                     update = [&] {
    auto filter = makeFilter();
    filter->SetInput(input);
    filter->SetDevices({ std::make_shared<mbir::test::FaultyBackend>(inner, plan) });
    filter->Update();
  };
  update();
  const long total = plan->calls.load();
  ASSERT_GT(total, 3);
  for (long k = 1; k <= total; ++k)
  {
    plan->calls = 0;
    plan->failAt = k;
    try
    {
      update();
      ADD_FAILURE() << "the fault at call " << k << " of " << total << " went unreported";
    }
    catch (const itk::ExceptionObject & e)
    {
      EXPECT_NE(std::string(e.GetDescription()).find("injected fault at call " + std::to_string(k)), std::string::npos)
        << e.GetDescription();
    }
    ASSERT_EQ(inner->bytesInUse(), 0u) << "leaked after the fault at call " << k;
  }
  EXPECT_EQ(std::vector<float>(input->GetBufferPointer(), input->GetBufferPointer() + before.size()), before);
  std::cout << name << ": " << total << " faults, each an itk::ExceptionObject\n";
}

} // namespace

TEST(MBIRFilterFaults, EveryFilterReportsEveryDeviceFaultAsAnExceptionObject)
{
  const auto               geometry = parallelScan();
  const ImageType::Pointer volume = phantomImage(*geometry);
  auto                     project = itk::MBIRForwardProjectionFilter<ImageType>::New();
  project->SetInput(volume);
  project->SetGeometry(geometry);
  project->Update();
  const ImageType::Pointer projections = project->GetOutput();

  expectEveryFaultReported("forward projection", volume, [&] {
    auto filter = itk::MBIRForwardProjectionFilter<ImageType>::New();
    filter->SetGeometry(geometry);
    return filter;
  });
  expectEveryFaultReported("back projection", projections, [&] {
    auto filter = itk::MBIRBackProjectionFilter<ImageType>::New();
    filter->SetGeometry(geometry);
    return filter;
  });
  expectEveryFaultReported("direct recon", projections, [&] {
    auto filter = itk::MBIRDirectReconstructionFilter<ImageType>::New();
    filter->SetGeometry(geometry);
    return filter;
  });
  expectEveryFaultReported("MBIR", projections, [&] {
    auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
    filter->SetGeometry(geometry);
    filter->SetMaxIterations(2);
    return filter;
  });
  expectEveryFaultReported("qGGMRF denoising", volume, [&] {
    auto filter = itk::QGGMRFDenoiseFilter<ImageType>::New();
    filter->SetMaxIterations(2);
    return filter;
  });
}
