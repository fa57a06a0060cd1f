# The outer build: the ITKMBIR project against Slicer's ITK, then this folder again as the inner build. Slicer's ITK
# is a build tree, with ITK's module machinery; the plain CMake path is asked for, since it alone builds the tools.
# ITKMBIR_CMAKE_ARGS passes more to the ITKMBIR configuration, e.g. -DMBIR_USE_CUDA=OFF (README "3D Slicer").
include(ExternalProject)

set(ITKMBIR_CMAKE_ARGS "" CACHE STRING "More CMake arguments for the ITKMBIR build (a list)")
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
# The compilers and their launchers (ccache) of this build are the ITKMBIR build's too.
set(_itkmbir_forwarded)
foreach(_variable CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER
                  CMAKE_CUDA_COMPILER_LAUNCHER)
  if(${_variable})
    list(APPEND _itkmbir_forwarded "-D${_variable}:STRING=${${_variable}}")
  endif()
endforeach()

set(ITKMBIR_BUILD_DIR ${CMAKE_BINARY_DIR}/ITKMBIR-build)
ExternalProject_Add(ITKMBIR-tools
  SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/..
  BINARY_DIR ${ITKMBIR_BUILD_DIR}
  CMAKE_ARGS ${ITKMBIR_CMAKE_ARGS}
  CMAKE_CACHE_ARGS
    -DCMAKE_BUILD_TYPE:STRING=${CMAKE_BUILD_TYPE}
    ${_itkmbir_forwarded}
    -DITK_DIR:PATH=${ITK_DIR}
    -DBUILD_TESTING:BOOL=OFF
    -DMBIR_BUILD_PYTHON:BOOL=OFF
    -DMBIR_USE_ITK_MODULE_MACHINERY:BOOL=OFF
  BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --config ${CMAKE_BUILD_TYPE} --target mbir-tools
  INSTALL_COMMAND "")

ExternalProject_Add(inner
  SOURCE_DIR ${CMAKE_CURRENT_SOURCE_DIR}
  BINARY_DIR ${CMAKE_BINARY_DIR}/${EXTENSION_BUILD_SUBDIRECTORY}
  CMAKE_CACHE_ARGS
    -DCMAKE_BUILD_TYPE:STRING=${CMAKE_BUILD_TYPE}
    -DSlicer_DIR:PATH=${Slicer_DIR}
    -D${EXTENSION_NAME}_SUPERBUILD:BOOL=OFF
    -DITKMBIR_TOOLS_DIR:PATH=${ITKMBIR_BUILD_DIR}/bin
    -DEXTENSION_SUPERBUILD_BINARY_DIR:PATH=${CMAKE_BINARY_DIR}
  INSTALL_COMMAND ""
  DEPENDS ITKMBIR-tools)
