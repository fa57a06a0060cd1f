// Every MBIR filter between an ImageFileReader and an ImageFileWriter, on NRRD and MetaImage files: the
// file written equals the engine's result on the same data, bit for bit, and keeps its physical place.

#include "MBIRITKTestSupport.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"
#include "itkImageIOFactory.h"
#include "itkMBIRBackProjectionFilter.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRDownloadImageFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRReconstructionFilter.h"
#include "itkMBIRUploadImageFilter.h"
#include "itkMetaImageIOFactory.h"
#include "itkNrrdImageIOFactory.h"
#include "itkQGGMRFDenoiseFilter.h"
#include "mbir/Denoiser.h"
#include "mbir/DirectRecon.h"
#include "mbir/Reconstructor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

using namespace mbir::itktest;

namespace {

using ReaderType = itk::ImageFileReader<ImageType>;
using WriterType = itk::ImageFileWriter<ImageType>;

// The parameter is the file extension, which selects the ImageIO.
class MBIRFilterFilePipeline : public ::testing::TestWithParam<std::string>
{
public:
  // The NRRD and MetaImage IOs, unless ITK's factory registration (UseITK) has registered them already.
  static void
  SetUpTestSuite()
  {
    if (!itk::ImageIOFactory::CreateImageIO("probe.nrrd", itk::IOFileModeEnum::WriteMode))
    {
      itk::NrrdImageIOFactory::RegisterOneFactory();
    }
    if (!itk::ImageIOFactory::CreateImageIO("probe.mha", itk::IOFileModeEnum::WriteMode))
    {
      itk::MetaImageIOFactory::RegisterOneFactory();
    }
  }

protected:
  // A file name private to this test, extension and process (ctest runs tests side by side).
  std::string
  Path(const std::string & stem)
  {
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '-'); // "Denoise/nrrd"
    const std::string path =
      ::testing::TempDir() + "mbir-" + test + "-" + stem + "-" + std::to_string(getpid()) + GetParam();
    m_Files.push_back(path);
    return path;
  }

  std::string
  Write(const ImageType * image, const std::string & stem)
  {
    const std::string path = Path(stem);
    itk::WriteImage(image, path);
    return path;
  }

  ReaderType::Pointer
  Reader(const std::string & path)
  {
    auto reader = ReaderType::New();
    reader->SetFileName(path);
    return reader;
  }

  // Runs the pipeline that ends in `output` into a file, and reads that file back on its own.
  ImageType::Pointer
  WriteAndReadBack(ImageType * output, const std::string & stem)
  {
    auto writer = WriterType::New();
    writer->SetInput(output);
    writer->SetFileName(Path(stem));
    writer->Update();
    return itk::ReadImage<ImageType>(writer->GetFileName());
  }

  void
  TearDown() override
  {
    for (const std::string & path : m_Files)
    {
      std::remove(path.c_str());
    }
  }

private:
  std::vector<std::string> m_Files;
};

void
expectPlace(const ImageType * image, const itk::MBIRGeometry & geometry)
{
  EXPECT_EQ(image->GetLargestPossibleRegion().GetSize(), geometry.GetVolumeSize());
  for (unsigned int d = 0; d < 3; ++d)
  {
    EXPECT_NEAR(image->GetSpacing()[d], geometry.GetVolumeSpacing()[d], 1e-6) << "axis " << d;
    EXPECT_NEAR(image->GetOrigin()[d], geometry.GetVolumeOrigin()[d], 1e-6) << "axis " << d;
  }
}

} // namespace

TEST_P(MBIRFilterFilePipeline, ForwardProjection)
{
  const auto geometry = coneScan();
  const auto volume = phantomImage(*geometry);
  auto       reader = Reader(Write(volume, "volume"));
  auto       filter = itk::MBIRForwardProjectionFilter<ImageType>::New();
  filter->SetInput(reader->GetOutput());
  filter->SetGeometry(geometry);
  const ImageType::Pointer result = WriteAndReadBack(filter->GetOutput(), "projections");

  const mbir::Projector projector(geometry->GetEngineGeometry(), mbir::makeCpuBackend());
  EXPECT_EQ(engineSinogram(result), projector.forwardProject(engineVolume(volume).data()));
  EXPECT_NEAR(result->GetSpacing()[0], 0.4, 1e-6);
  EXPECT_NEAR(result->GetSpacing()[1], 0.6, 1e-6);
  EXPECT_NEAR(result->GetOrigin()[0], -0.4 * 31 / 2, 1e-6); // the detector centred
}

TEST_P(MBIRFilterFilePipeline, BackProjection)
{
  const auto               geometry = coneScan();
  const mbir::Projector    projector(geometry->GetEngineGeometry(), mbir::makeCpuBackend());
  const std::vector<float> sinogram = projector.forwardProject(engineVolume(phantomImage(*geometry)).data());
  auto                     reader = Reader(Write(projectionsImage(sinogram, *geometry), "projections"));
  auto                     filter = itk::MBIRBackProjectionFilter<ImageType>::New();
  filter->SetInput(reader->GetOutput());
  filter->SetGeometry(geometry);
  const ImageType::Pointer result = WriteAndReadBack(filter->GetOutput(), "volume");

  EXPECT_EQ(engineVolume(result), projector.backProject(sinogram.data()));
  expectPlace(result, *geometry);
}

TEST_P(MBIRFilterFilePipeline, DirectReconstruction)
{
  const auto               geometry = coneScan();
  const mbir::Projector    projector(geometry->GetEngineGeometry(), mbir::makeCpuBackend());
  const std::vector<float> sinogram = projector.forwardProject(engineVolume(phantomImage(*geometry)).data());
  auto                     reader = Reader(Write(projectionsImage(sinogram, *geometry), "projections"));
  auto                     filter = itk::MBIRDirectReconstructionFilter<ImageType>::New();
  filter->SetInput(reader->GetOutput());
  filter->SetGeometry(geometry);
  const ImageType::Pointer result = WriteAndReadBack(filter->GetOutput(), "volume");

  EXPECT_EQ(engineVolume(result), mbir::directRecon(projector, sinogram));
  expectPlace(result, *geometry);
}

TEST_P(MBIRFilterFilePipeline, ReconstructionWithWeights)
{
  const auto                geometry = parallelScan();
  const mbir::Geometry      engineGeometry = geometry->GetEngineGeometry();
  const mbir::Reconstructor engine(engineGeometry, mbir::makeCpuBackend());
  const std::vector<float>  sinogram = engine.forwardProject(engineVolume(phantomImage(*geometry)));
  std::vector<float>        weights(sinogram.size());
  for (std::size_t i = 0; i < weights.size(); ++i)
  {
    weights[i] = 0.5f + 0.25f * static_cast<float>(i % 5); // uneven, so that they matter
  }
  auto projectionsReader = Reader(Write(projectionsImage(sinogram, *geometry), "projections"));
  auto weightsReader = Reader(Write(projectionsImage(weights, *geometry), "weights"));
  auto filter = itk::MBIRReconstructionFilter<ImageType>::New();
  filter->SetInput(projectionsReader->GetOutput());
  filter->SetWeights(weightsReader->GetOutput());
  filter->SetGeometry(geometry);
  filter->SetMaxIterations(3);
  const ImageType::Pointer result = WriteAndReadBack(filter->GetOutput(), "volume");

  mbir::Reconstructor reference(engineGeometry, mbir::makeCpuBackend());
  reference.params().maxIterations = 3;
  reference.params().verbose = 0;
  const mbir::SinogramShape shape = mbir::sinogramShapeOf(engineGeometry);
  EXPECT_EQ(engineVolume(result),
            reference.recon(mbir::ArrayView3(sinogram, shape), mbir::ArrayView3(weights, shape)).recon);
  expectPlace(result, *geometry);
}

TEST_P(MBIRFilterFilePipeline, Denoise)
{
  const auto geometry = coneScan();
  const auto volume = noisy(phantomImage(*geometry), 0.05f, 3);
  auto       reader = Reader(Write(volume, "noisy"));
  auto       filter = itk::QGGMRFDenoiseFilter<ImageType>::New();
  filter->SetInput(reader->GetOutput());
  filter->SetMaxIterations(3);
  const ImageType::Pointer result = WriteAndReadBack(filter->GetOutput(), "denoised");

  mbir::ReconShape         shape;
  const std::vector<float> values = itk::MBIRImageConversion::ImageToRecon(volume, shape);
  mbir::DenoiseParams      params;
  params.verbose = 0;
  params.maxIterations = 3;
  EXPECT_EQ(engineVolume(result),
            mbir::qggmrfDenoise(mbir::ArrayView3(values, shape), params, mbir::makeCpuBackend()).image);
  expectPlace(result, *geometry);
}

TEST_P(MBIRFilterFilePipeline, UploadAndDownload)
{
  const auto geometry = coneScan();
  const auto volume = phantomImage(*geometry);
  auto       reader = Reader(Write(volume, "volume"));
  auto       upload = itk::MBIRUploadImageFilter<>::New();
  upload->SetInput(reader->GetOutput());
  upload->SetContent(DeviceImageType::ContentEnum::Volume);
  auto download = itk::MBIRDownloadImageFilter<>::New();
  download->SetInput(upload->GetOutput());
  const ImageType::Pointer result = WriteAndReadBack(download->GetOutput(), "copy");

  EXPECT_EQ(engineVolume(result), engineVolume(volume));
  expectPlace(result, *geometry);
}

INSTANTIATE_TEST_SUITE_P(Files,
                         MBIRFilterFilePipeline,
                         ::testing::Values(std::string(".nrrd"), std::string(".mha")),
                         [](const ::testing::TestParamInfo<std::string> & info) { return info.param.substr(1); });
