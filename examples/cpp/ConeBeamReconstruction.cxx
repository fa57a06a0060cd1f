// Reconstructs a cone-beam scan in an ITK pipeline, with FDK (MBIRDirectReconstructionFilter) and with
// MBIR (MBIRReconstructionFilter) from the same projections, which MBIRForwardProjectionFilter simulates
// from a phantom. Prints both NRMSEs against the phantom; writes the MBIR volume to argv[1] if given.
//
//   mbir-example-cone-beam [volume.nrrd]

#include "MBIRExampleSupport.h"
#include "itkImageFileWriter.h"
#include "itkMBIRConeBeamGeometry.h"
#include "itkMBIRDirectReconstructionFilter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRReconstructionFilter.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

int
main(int argc, char * argv[])
{
  using ImageType = itk::Image<float, 3>;
  try
  {
    // A full turn of 48 views; a flat detector of 48 x 12 cells of 0.5 mm, 200 mm from the source, which
    // turns 100 mm from the rotation axis (magnification 2).
    auto geometry = itk::MBIRConeBeamGeometry::New();
    geometry->SetDetectorSize(48, 12);
    itk::MBIRGeometry::DetectorVectorType pitch;
    pitch.Fill(0.5);
    geometry->SetDetectorSpacing(pitch);
    std::vector<double> angles(48);
    for (std::size_t v = 0; v < angles.size(); ++v)
    {
      angles[v] = 2 * M_PI * v / angles.size();
    }
    geometry->SetAngles(angles);
    geometry->SetSourceToDetectorDistance(200.0);
    geometry->SetSourceToIsocenterDistance(100.0);
    // The default grid covers the detector's view at the axis: voxels of 0.5 / 2 = 0.25 mm.
    geometry->AutoSetVolumeGeometry();

    const ImageType::Pointer phantom = mbirexample::MakePhantom(*geometry);

    auto project = itk::MBIRForwardProjectionFilter<ImageType>::New();
    project->SetInput(phantom);
    project->SetGeometry(geometry);

    // Two reconstructions of one projection stack: the pipeline projects once.
    auto fdk = itk::MBIRDirectReconstructionFilter<ImageType>::New();
    fdk->SetInput(project->GetOutput());
    fdk->SetGeometry(geometry);
    fdk->Update();

    auto mbir = itk::MBIRReconstructionFilter<ImageType>::New();
    mbir->SetInput(project->GetOutput());
    mbir->SetGeometry(geometry);
    mbir->Update();

    if (argc > 1)
    {
      itk::WriteImage(mbir->GetOutput(), argv[1]);
    }
    std::cout << "Volume " << mbir->GetOutput()->GetLargestPossibleRegion().GetSize() << " of "
              << mbir->GetOutput()->GetSpacing() << " mm; " << mbir->GetReconstructionReport().log.size()
              << " MBIR iterations\n"
              << "FDK NRMSE " << mbirexample::NRMSE(fdk->GetOutput(), phantom) << "\n"
              << "MBIR NRMSE " << mbirexample::NRMSE(mbir->GetOutput(), phantom) << std::endl;
    return EXIT_SUCCESS;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << e.GetDescription() << std::endl;
    return EXIT_FAILURE;
  }
}
