# Builds the module as a plain CMake project against an ITK install tree that lacks ITK's module
# machinery (Debian 12's ITK 5.2, the Slicer SDK's ITK 5.4): the same sources, a library with the same export
# header, the same tests, and an install laid out as ITK's machinery lays out an external module's
# (cmake/MBIRInstall.cmake).

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

# What ITK's module machinery takes from itk-module.cmake and ITKConfig.cmake, done here by hand: the modules the
# library DEPENDS on (what the installed MBIR links), ITK's required compiler flags, and the installed layout
# (headers in include/ITK-x.y, the module file in lib/cmake/ITK-x.y/Modules, as ITKModuleExternal installs them).
macro(itk_module _name)
  cmake_parse_arguments(_mbir_module "EXCLUDE_FROM_DEFAULT;ENABLE_SHARED" "DESCRIPTION"
                        "DEPENDS;PUBLIC_DEPENDS;PRIVATE_DEPENDS;COMPILE_DEPENDS;TEST_DEPENDS;FACTORY_NAMES" ${ARGN})
  set(MBIR_ITK_DEPENDS ${_mbir_module_DEPENDS} ${_mbir_module_PUBLIC_DEPENDS})
endmacro()
include(${PROJECT_SOURCE_DIR}/itk-module.cmake)
set(MBIR_ITK_DEPENDS_LIBRARIES)
foreach(_dep IN LISTS MBIR_ITK_DEPENDS)
  list(APPEND MBIR_ITK_DEPENDS_LIBRARIES ${${_dep}_LIBRARIES})
endforeach()
string(APPEND CMAKE_C_FLAGS " ${ITK_REQUIRED_C_FLAGS}")
string(APPEND CMAKE_CXX_FLAGS " ${ITK_REQUIRED_CXX_FLAGS}")
string(APPEND CMAKE_EXE_LINKER_FLAGS " ${ITK_REQUIRED_LINK_FLAGS}")
string(APPEND CMAKE_SHARED_LINKER_FLAGS " ${ITK_REQUIRED_LINK_FLAGS}")
set(MBIR_INSTALL_INCLUDE_DIR include/ITK-${ITK_VERSION_MAJOR}.${ITK_VERSION_MINOR})
set(MBIR_INSTALL_PACKAGE_DIR lib/cmake/ITK-${ITK_VERSION_MAJOR}.${ITK_VERSION_MINOR})

# ITK built with libstdc++'s pre-C++11 ABI (the Slicer SDK's manylinux wheels) needs the same ABI here.
include(MBIRCheckITKABI)

set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)

add_subdirectory(src)
include(MBIRInstall)
if(BUILD_TESTING)
  add_subdirectory(test)
endif()
add_subdirectory(examples)
