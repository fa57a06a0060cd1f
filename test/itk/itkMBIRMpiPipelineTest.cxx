// The MBIR filters behind an ImageFileReader under MPI (ctest runs this under mpirun with 1 and 3 ranks): each rank's
// filter asks the reader for the views of its own device only, MetaImage reads just those, and the result is the one
// one process computes. main() is test/support/MpiTestMain.cpp.

#include "MBIRITKTestSupport.h"
#include "MBIRTestSupport.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageIOFactory.h"
#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRFilterSupport.h"
#include "itkMetaImageIOFactory.h"
#include "mbir/ProcessGroup.h"
#include "mbir/Projector.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>

using namespace mbir::itktest;

TEST(MpiPipeline, EachRankReadsOnlyItsViewsAndGetsOneProcesssResult)
{
  if (!itk::ImageIOFactory::CreateImageIO("probe.mha", itk::IOFileModeEnum::WriteMode))
  {
    itk::MetaImageIOFactory::RegisterOneFactory();
  }
  const mbir::ProcessGroup & world = mbir::processGroup();
  const auto                 geometry = coneScan(); // 20 views: 7, 7 and 6 on 3 ranks
  const mbir::Projector      one(geometry->GetEngineGeometry(), mbir::makeCpuBackend());
  const std::vector<float>   y = one.forwardProject(engineVolume(phantomImage(*geometry)).data());
  // Each rank its own copy of the file: no rank waits for another to write it.
  const std::string path =
    ::testing::TempDir() + "mbir-mpi-pipeline-" + std::to_string(world.rank) + "-" + std::to_string(getpid()) + ".mha";
  itk::WriteImage(projectionsImage(y, *geometry), path);

  auto reader = itk::ImageFileReader<ImageType>::New();
  reader->SetFileName(path);
  auto back = itk::MBIRBackProjectionFilter<ImageType>::New();
  back->SetInput(reader->GetOutput());
  back->SetGeometry(geometry);
  back->Update();
  const ImageType::RegionType held = reader->GetOutput()->GetBufferedRegion();
  EXPECT_EQ(held, itk::MBIRFilterSupport::ProcessViews(reader->GetOutput()->GetLargestPossibleRegion()));
  const mbir::ShardLayout layout(20, world.size);
  EXPECT_EQ(held.GetIndex(2), layout.first(world.rank));
  EXPECT_EQ(held.GetSize(2), static_cast<itk::SizeValueType>(layout.valid(world.rank)));
  EXPECT_LT(mbir::test::relativeError(engineVolume(back->GetOutput()), one.backProject(y.data())), 1e-5);
  std::remove(path.c_str());
}
