# The outer build: the ITKMBIR project against Slicer's ITK, then this folder again as the inner build. Slicer's ITK
# is a build tree, with ITK's module machinery; the plain CMake path is asked for, since it alone builds the tools.
include(ExternalProject)

set(ITKMBIR_BUILD_DIR ${CMAKE_BINARY_DIR}/ITKMBIR-build)
ExternalProject_Add(ITKMBIR-tools
  SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/..
  BINARY_DIR ${ITKMBIR_BUILD_DIR}
  CMAKE_CACHE_ARGS
    -DCMAKE_BUILD_TYPE:STRING=Release
    -DITK_DIR:PATH=${ITK_DIR}
    -DBUILD_TESTING:BOOL=OFF
    -DMBIR_BUILD_PYTHON:BOOL=OFF
    -DMBIR_USE_ITK_MODULE_MACHINERY:BOOL=OFF
  BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --config Release --target mbir-tools
  INSTALL_COMMAND "")

ExternalProject_Add(inner
  SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}
  BINARY_DIR ${CMAKE_BINARY_DIR}/${EXTENSION_BUILD_SUBDIRECTORY}
  CMAKE_CACHE_ARGS
    -DSlicer_DIR:PATH=${Slicer_DIR}
    -D${EXTENSION_NAME}_SUPERBUILD:BOOL=OFF
    -DITKMBIR_TOOLS_DIR:PATH=${ITKMBIR_BUILD_DIR}/bin
    -DEXTENSION_SUPERBUILD_BINARY_DIR:PATH=${CMAKE_BINARY_DIR}
  INSTALL_COMMAND ""
  DEPENDS ITKMBIR-tools)
