// The MBIR filters behind an ImageFileReader under MPI (ctest runs this under mpirun with 1 and 3 ranks): each rank's
// filter asks the reader for the views of its own device only, MetaImage reads just those, and the result is the one
// one process computes, gathered whole on rank 0 alone (the other ranks' outputs hold their slices). main() is
// test/support/MpiTestMain.cpp.

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

  // The volume: whole on rank 0 (gathered once, where a tool writes it), each other rank's own slices there.
  const std::vector<float>    expected = one.backProject(y.data()); // (pixels, slices)
  const ImageType *           volume = back->GetOutput();
  const ImageType::RegionType whole = volume->GetLargestPossibleRegion(), buffered = volume->GetBufferedRegion();
  const std::size_t           slices = whole.GetSize(2), pixels = whole.GetSize(0) * whole.GetSize(1);
  const mbir::ShardLayout     share(static_cast<int>(slices), world.size);
  if (world.rank == 0)
  {
    EXPECT_EQ(buffered, whole);
    EXPECT_LT(mbir::test::relativeError(engineVolume(volume), expected), 1e-5);
  }
  else
  {
    ASSERT_EQ(buffered.GetIndex(2), share.first(world.rank));
    ASSERT_EQ(buffered.GetSize(2), static_cast<itk::SizeValueType>(share.valid(world.rank)));
    EXPECT_EQ(buffered.GetSize(0) * buffered.GetSize(1), pixels);
    std::vector<float> held(volume->GetBufferPointer(), volume->GetBufferPointer() + buffered.GetNumberOfPixels()),
      want;
    for (std::size_t k = share.first(world.rank); k < share.first(world.rank) + share.valid(world.rank); ++k)
      for (std::size_t p = 0; p < pixels; ++p)
        want.push_back(expected[p * slices + k]);
    EXPECT_LT(mbir::test::relativeError(held, want), 1e-5);
  }
  std::remove(path.c_str());
}
