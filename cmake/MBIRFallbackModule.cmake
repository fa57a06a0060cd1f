# Builds the module as a plain CMake project against an ITK install tree that lacks ITK's module
# machinery (Debian 12's ITK 5.2): the same sources, a library with the same export header, the same
# tests.

find_package(
  ITK 5.2 REQUIRED
  COMPONENTS ITKCommon
             ITKIOImageBase
             ITKIONRRD
             ITKIOMeta
             ITKIOPNG
             ITKIOTIFF
             ITKTestKernel
             ITKGoogleTest)
include(${ITK_USE_FILE}) # also registers the IO factories of the components above
include(CTest)
include(GenerateExportHeader)

set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)

add_subdirectory(src)
if(BUILD_TESTING)
  add_subdirectory(test)
endif()
add_subdirectory(examples)
