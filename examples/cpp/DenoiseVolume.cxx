// Denoises a volume with QGGMRFDenoiseFilter: a phantom with Gaussian noise of a known level goes in.
// Prints the NRMSE before and after; writes the result to argv[1] if given.
//
//   mbir-example-denoise [denoised.nrrd]

#include "MBIRExampleSupport.h"
#include "itkImageFileWriter.h"
#include "itkImageRegionIterator.h"
#include "itkQGGMRFDenoiseFilter.h"

#include <cstdlib>
#include <iostream>
#include <random>

int
main(int argc, char * argv[])
{
  using ImageType = itk::Image<float, 3>;
  try
  {
    const ImageType::SizeType size = { { 64, 64, 32 } };
    ImageType::SpacingType    spacing;
    spacing.Fill(0.5);
    const ImageType::Pointer phantom = mbirexample::MakePhantom(size, spacing);

    // The phantom (values up to about 1) with noise of standard deviation 0.05.
    auto noisy = ImageType::New();
    noisy->CopyInformation(phantom);
    noisy->SetRegions(phantom->GetLargestPossibleRegion());
    noisy->Allocate();
    std::mt19937                             random(1);
    std::normal_distribution<float>          noise(0.0f, 0.05f);
    itk::ImageRegionConstIterator<ImageType> in(phantom, phantom->GetLargestPossibleRegion());
    itk::ImageRegionIterator<ImageType>      out(noisy, noisy->GetLargestPossibleRegion());
    for (; !in.IsAtEnd(); ++in, ++out)
    {
      out.Set(in.Get() + noise(random));
    }

    auto denoise = itk::QGGMRFDenoiseFilter<ImageType>::New();
    denoise->SetInput(noisy);
    denoise->SetSigmaNoise(0.05); // known here; 0 (the default) estimates it from the volume
    denoise->SetSharpness(0.0);   // larger keeps more detail, and more noise
    denoise->Update();

    if (argc > 1)
    {
      itk::WriteImage(denoise->GetOutput(), argv[1]);
    }
    std::cout << "Prior scale sigma_x " << denoise->GetDenoiseReport().sigmaX << ", "
              << denoise->GetDenoiseReport().log.size() << " iterations\n"
              << "Noisy NRMSE " << mbirexample::NRMSE(noisy, phantom) << "\n"
              << "Denoised NRMSE " << mbirexample::NRMSE(denoise->GetOutput(), phantom) << std::endl;
    return EXIT_SUCCESS;
  }
  catch (const itk::ExceptionObject & e)
  {
    std::cerr << e.GetDescription() << std::endl;
    return EXIT_FAILURE;
  }
}
