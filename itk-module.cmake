# The ITK module description: one short paragraph. (Passing the whole README broke the module: its
# brackets and semicolons split the list of itk_module arguments, so the options after DESCRIPTION were
# lost, MBIRExport.h was never generated and the in-ITK build failed.)
set(DOCUMENTATION
    "Model-based iterative reconstruction (MBIR) of CT data: parallel-beam, cone-beam, translation and
multi-axis parallel-beam geometries, forward and back projectors, direct reconstruction (FBP/FDK),
MBIR with a qGGMRF or proximal-map prior, and the qGGMRF denoiser, on the CPU (OpenMP) or NVIDIA GPUs
(CUDA), on itk::Image or device-resident images.")

# DEPENDS: what the library and its public headers include (images, filters, DataObjects: ITKCommon), and the
# TIFF reading of the scan readers (itkMBIRScanFiles.cxx).
# TEST_DEPENDS: the test kernel, GoogleTest, and the image IO the tests read and write (ImageFileReader and
# ImageFileWriter on NRRD, MetaImage, TIFF and PNG files).
itk_module(
  MBIR
  DEPENDS
  ITKCommon
  ITKIOImageBase
  ITKIOTIFF
  TEST_DEPENDS
  ITKTestKernel
  ITKGoogleTest
  ITKIOImageBase
  ITKIONRRD
  ITKIOMeta
  ITKIOTIFF
  ITKIOPNG
  DESCRIPTION
  "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED)
