// Reconstruction followed by denoising with the data kept on the devices: the projections are uploaded
// once (MBIRUploadImageFilter), split by view over the devices it chooses; MBIRReconstructionFilter and
// QGGMRFDenoiseFilter pass an MBIRDeviceImage, split by slice, between them; MBIRDownloadImageFilter
// brings only the result back. A second, sharper reconstruction reuses the uploaded projections. The
// devices' counters show what crossed between host and device memory.
//
// The devices are chosen automatically (every GPU when the engine was built with CUDA and any is present,
// else MBIR_NUM_CPU_DEVICES CPU devices, default 1) unless a count is given; "none" keeps it on the CPU.
//
//   mbir-example-device-pipeline [volume.nrrd [NUMBER_OF_DEVICES [automatic|full|none]]]

#include "MBIRExampleSupport.h"
#include "itkImageFileWriter.h"
#include "itkMBIRDeviceImage.h"
#include "itkMBIRDownloadImageFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRParallelBeamGeometry.h"
#include "itkMBIRReconstructionFilter.h"
#include "itkMBIRUploadImageFilter.h"
#include "itkQGGMRFDenoiseFilter.h"
#include "mbir/Devices.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

int
main(int argc, char * argv[])
{
  using ImageType = itk::Image<float, 3>;
  using DeviceImageType = itk::MBIRDeviceImage<float, 3>;
  try
  {
    const std::string useGpu = argc > 3 ? argv[3] : "automatic";

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

    // Upload once; the filters downstream compute on the devices their device input lives on, so the
    // upload's choice holds for the whole pipeline. An explicit choice is kept across later changes.
    auto upload = itk::MBIRUploadImageFilter<ImageType, DeviceImageType>::New();
    upload->SetInput(scan->GetOutput());
    upload->SetUseGpu(useGpu);
    if (argc > 2)
    {
      upload->ConfigureDevices(std::stoi(argv[2])); // the first N devices; 1 forces a single one
    }

    auto reconstruct = itk::MBIRReconstructionFilter<DeviceImageType>::New();
    reconstruct->SetInput(upload->GetOutput());
    reconstruct->SetGeometry(geometry);

    auto denoise = itk::QGGMRFDenoiseFilter<DeviceImageType>::New();
    denoise->SetInput(reconstruct->GetOutput());
    denoise->SetMaxIterations(5);
    denoise->SetSharpness(2.0); // light: MBIR has regularised already

    auto download = itk::MBIRDownloadImageFilter<DeviceImageType, ImageType>::New();
    download->SetInput(denoise->GetOutput());

    // What crossed between host and device memory in one Update() of the pipeline, over every device the
    // pipeline can use, and the result.
    const auto transfers = [&] {
      mbir::Backend::TransferCounts total;
      for (const auto & device : mbir::availableDevices(mbir::parseUseGpu(useGpu)))
      {
        total.uploadedBytes += device->transfers().uploadedBytes;
        total.downloadedBytes += device->transfers().downloadedBytes;
      }
      return total;
    };
    const auto update = [&](const char * what) {
      const mbir::Backend::TransferCounts before = transfers();
      download->Update();
      const mbir::Backend::TransferCounts after = transfers();
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
    // What each filter ran on, e.g. "2 x CPU (sharded, 8 threads) (slices padded 8->9)"; the denoised
    // volume is still split over those devices until the download gathers it.
    std::cout << "Upload on " << upload->GetDeviceSummary() << "\nReconstruction on " << reconstruct->GetDeviceSummary()
              << "\nDenoising on " << denoise->GetDeviceSummary() << "\nResult split over "
              << denoise->GetOutput()->GetVolume()->group().size() << " device(s) until downloaded\n";

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
  catch (const std::exception & e) // a bad argument, or CUDA present but unusable
  {
    std::cerr << e.what() << std::endl;
    return EXIT_FAILURE;
  }
}
