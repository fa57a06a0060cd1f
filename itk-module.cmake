# The ITK module description; its text comes from the README.
get_filename_component(MY_CURRENT_DIR "${CMAKE_CURRENT_LIST_FILE}" PATH)
file(READ "${MY_CURRENT_DIR}/README.md" DOCUMENTATION)

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
