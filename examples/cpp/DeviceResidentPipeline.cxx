// Reconstruction followed by denoising with the data kept on the device: the projections are uploaded
// once (MBIRUploadImageFilter), MBIRReconstructionFilter and QGGMRFDenoiseFilter pass an MBIRDeviceImage
// between them, and MBIRDownloadImageFilter brings only the result back. A second, sharper
// reconstruction reuses the uploaded projections. The backend's counters show what crossed between host
// and device memory. Runs on the first GPU when the engine was built with CUDA and one is present.
//
//   mbir-example-device-pipeline [volume.nrrd]

#include "MBIRExampleSupport.h"
#include "itkImageFileWriter.h"
#include "itkMBIRDeviceImage.h"
#include "itkMBIRDownloadImageFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRReconstructionFilter.h"
#include "itkMBIRUploadImageFilter.h"
#include "itkQGGMRFDenoiseFilter.h"
#include "mbir/Backend.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

int
main(int argc, char * argv[])
{
  using ImageType = itk::Image<float, 3>;
  using DeviceImageType = itk::MBIRDeviceImage<float, 3>;
  try
  {
    const std::shared_ptr<mbir::Backend> backend =
      mbir::cudaDeviceCount() > 0 ? mbir::makeCudaBackend(0) : mbir::makeCpuBackend();
    std::cout << "Computing on " << backend->description() << "\n";

    auto geometry = itk::MBIRParallelBeamGeometry::New();
    geometry->SetDetectorSize(64, 8);
    itk::MBIRGeometry::DetectorVectorType pitch;
    pitch.Fill(0.5);
    geometry->SetDetectorSpacing(pitch);
    std::vector<double> angles(72);
    for (std::size_t v = 0; v < angles.size(); ++v)
    {
      angles[v] = M_PI * v / angles.size();
    }
    geometry->SetAngles(angles);
    geometry->AutoSetVolumeGeometry();

    // The scan arrives in host memory, as a scanner would deliver it (simulated here on the CPU).
    const ImageType::Pointer phantom = mbirexample::MakePhantom(*geometry);
    auto                     scan = itk::MBIRForwardProjectionFilter<ImageType>::New();
    scan->SetInput(phantom);
    scan->SetGeometry(geometry);

    // Upload once; the filters downstream compute on the backend their device input lives on.
    auto upload = itk::MBIRUploadImageFilter<ImageType, DeviceImageType>::New();
    upload->SetInput(scan->GetOutput());
    upload->SetBackend(backend);

    auto reconstruct = itk::MBIRReconstructionFilter<DeviceImageType>::New();
    reconstruct->SetInput(upload->GetOutput());
    reconstruct->SetGeometry(geometry);

    auto denoise = itk::QGGMRFDenoiseFilter<DeviceImageType>::New();
    denoise->SetInput(reconstruct->GetOutput());
    denoise->SetMaxIterations(5);
    denoise->SetSharpness(2.0); // light: MBIR has regularised already

    auto download = itk::MBIRDownloadImageFilter<DeviceImageType, ImageType>::New();
    download->SetInput(denoise->GetOutput());

    // What crossed between host and device memory in one Update() of the pipeline, and the result.
    const auto update = [&](const char * what) {
      const mbir::Backend::TransferCounts before = backend->transfers();
      download->Update();
      const mbir::Backend::TransferCounts after = backend->transfers();
      std::cout << what << ": uploaded " << after.uploadedBytes - before.uploadedBytes << " bytes, downloaded "
                << after.downloadedBytes - before.downloadedBytes << " bytes; NRMSE "
                << mbirexample::NRMSE(download->GetOutput(), phantom) << "\n";
    };
    scan->Update();
    std::cout << "Projections " << scan->GetOutput()->GetPixelContainer()->Size() * sizeof(float) << " bytes, volume "
              << phantom->GetPixelContainer()->Size() * sizeof(float) << " bytes\n";
    // Uploads: the projections and the engine's pixel subsets. Downloads: the result, and the projections
    // and the reconstruction read back once each for the statistics that set the regularisation.
    update("Reconstructed and denoised");

    // Only the reconstruction and what follows run again; the projections are already on the device.
    reconstruct->SetSharpness(2.0);
    update("Sharper, again");

    if (argc > 1)
    {
      itk::WriteImage(download->GetOutput(), argv[1]);
    }
    return EXIT_SUCCESS;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << e.GetDescription() << std::endl;
    return EXIT_FAILURE;
  }
  catch (const std::exception & e) // from makeCudaBackend, when CUDA is present but unusable
  {
    std::cerr << e.what() << std::endl;
    return EXIT_FAILURE;
  }
}
