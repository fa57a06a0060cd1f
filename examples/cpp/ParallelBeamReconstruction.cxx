// Reconstructs a parallel-beam scan in an ITK pipeline: a phantom is projected by
// MBIRForwardProjectionFilter (the simulated scan) and reconstructed by MBIRReconstructionFilter.
// Prints the MBIR log and the NRMSE against the phantom; writes the volume to argv[1] if given.
//
//   mbir-example-parallel-beam [volume.nrrd]

#include "MBIRExampleSupport.h"
#include "itkImageFileWriter.h"
#include "itkMBIRForwardProjectionFilter.h"
#include "itkMBIRParallelBeamGeometry.h"
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
    // 72 views over half a turn; 64 channels of 0.4 mm and 8 rows of 0.5 mm. Lengths are in mm.
    auto geometry = itk::MBIRParallelBeamGeometry::New();
    geometry->SetDetectorSize(64, 8);
    itk::MBIRGeometry::DetectorVectorType pitch;
    pitch[0] = 0.4;
    pitch[1] = 0.5;
    geometry->SetDetectorSpacing(pitch);
    std::vector<double> angles(72);
    for (std::size_t v = 0; v < angles.size(); ++v)
    {
      angles[v] = M_PI * v / angles.size();
    }
    geometry->SetAngles(angles);
    // The default grid: 64 x 64 x 8 voxels of 0.4 x 0.4 x 0.5 mm, centred on the rotation axis.
    geometry->AutoSetVolumeGeometry();

    const ImageType::Pointer phantom = mbirexample::MakePhantom(*geometry);

    // Projections indexed [channel, row, view], spacing the detector pitch.
    auto project = itk::MBIRForwardProjectionFilter<ImageType>::New();
    project->SetInput(phantom);
    project->SetGeometry(geometry);

    auto reconstruct = itk::MBIRReconstructionFilter<ImageType>::New();
    reconstruct->SetInput(project->GetOutput());
    reconstruct->SetGeometry(geometry);
    reconstruct->SetSharpness(1.0); // larger is sharper; MBIRJAX's defaults otherwise
    reconstruct->SetVerbose(1);     // print the log, one line per iteration
    reconstruct->Update();

    const ImageType * volume = reconstruct->GetOutput();
    if (argc > 1)
    {
      itk::WriteImage(volume, argv[1]);
    }
    std::cout << "Volume " << volume->GetLargestPossibleRegion().GetSize() << ", spacing " << volume->GetSpacing()
              << " mm, origin " << volume->GetOrigin() << " mm\n"
              << "MBIR NRMSE " << mbirexample::NRMSE(volume, phantom) << std::endl;
    return EXIT_SUCCESS;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << e.GetDescription() << std::endl;
    return EXIT_FAILURE;
  }
}
