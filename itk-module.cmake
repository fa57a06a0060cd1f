# The ITK module description; its text comes from the README.
get_filename_component(MY_CURRENT_DIR "${CMAKE_CURRENT_LIST_FILE}" PATH)
file(READ "${MY_CURRENT_DIR}/README.md" DOCUMENTATION)

itk_module(
  MBIR
  DEPENDS
  ITKCommon
  ITKIOImageBase
  TEST_DEPENDS
  ITKTestKernel
  ITKGoogleTest
  ITKIONRRD
  ITKIOMeta
  ITKIOPNG
  DESCRIPTION
  "${DOCUMENTATION}"
  EXCLUDE_FROM_DEFAULT
  ENABLE_SHARED)
