# A stand-in for a Slicer build tree's SlicerConfig.cmake (test/slicer/extension-test.sh): the part of Slicer's
# extension machinery that slicer/ uses, making the checks Slicer makes, so that the extension is configured, built,
# installed and packaged here without building Slicer itself (hours). A real Slicer sets ITK_DIR to its own ITK; the
# test copies the stand-in and writes the ITK it builds against into the copy's SlicerITK.cmake.
set(Slicer_VERSION_MAJOR 5)
set(Slicer_VERSION_MINOR 8)
set(Slicer_REVISION 33216)
set(Slicer_OS linux)
set(Slicer_ARCHITECTURE amd64)
set(Slicer_BUILD_CLI_SUPPORT ON)
set(Slicer_INSTALL_ROOT "./")
set(Slicer_CLIMODULES_SUBDIR cli-modules)
set(Slicer_CLIMODULES_BIN_DIR "lib/Slicer-${Slicer_VERSION_MAJOR}.${Slicer_VERSION_MINOR}/${Slicer_CLIMODULES_SUBDIR}")
set(Slicer_CLIMODULES_LIB_DIR "${Slicer_CLIMODULES_BIN_DIR}")
set(Slicer_SHARE_DIR "share/Slicer-${Slicer_VERSION_MAJOR}.${Slicer_VERSION_MINOR}")
set(Slicer_README_FILE "${CMAKE_CURRENT_LIST_DIR}/SlicerConfig.cmake")
set(Slicer_LICENSE_FILE "${CMAKE_CURRENT_LIST_DIR}/SlicerConfig.cmake")

set(Slicer_USE_FILE "${CMAKE_CURRENT_LIST_DIR}/UseSlicer.cmake")
set(Slicer_EXTENSION_GENERATE_CONFIG "${CMAKE_CURRENT_LIST_DIR}/SlicerExtensionGenerateConfig.cmake")
set(Slicer_EXTENSION_CPACK "${CMAKE_CURRENT_LIST_DIR}/SlicerExtensionCPack.cmake")

include("${CMAKE_CURRENT_LIST_DIR}/SlicerITK.cmake" OPTIONAL)
if(NOT ITK_DIR OR NOT EXISTS "${ITK_DIR}/ITKConfig.cmake")
  message(FATAL_ERROR "Slicer stand-in: no ITK_DIR in ${CMAKE_CURRENT_LIST_DIR}/SlicerITK.cmake (a real Slicer sets its own)")
endif()
