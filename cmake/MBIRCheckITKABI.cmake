# Which libstdc++ ABI ITK's libraries were built with. ITK's config files do not say, and a mismatch shows only at
# link time (undefined references to std::string functions). The manylinux wheels of the Slicer SDK (slicer-core-sdk,
# ITK 5.4) are built with the pre-C++11 ABI (_GLIBCXX_USE_CXX11_ABI=0, GCC 14 of manylinux_2_28), Debian's ITK with
# the C++11 one. A program that passes a std::string to ITKCommon links only with the right one; when only the old
# one links, everything here is compiled with it (MBIR_GLIBCXX_OLD_ABI), the exported MBIR target asks its users for
# it too, and C++ libraries with std::string in their interface must come in the same ABI (GoogleTest is then
# built from its sources: test/CMakeLists.txt).
#
# Sets MBIR_GLIBCXX_OLD_ABI. Needs find_package(ITK) first.

include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

set(_mbir_abi_probe
    "#include \"itkMetaDataDictionary.h\"
#include <string>
int main() { itk::MetaDataDictionary d; return d.HasKey(std::string(\"probe\")) ? 1 : 0; }")
cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_INCLUDES ${ITK_INCLUDE_DIRS})
set(CMAKE_REQUIRED_LIBRARIES ${ITKCommon_LIBRARIES})
set(CMAKE_REQUIRED_FLAGS "${ITK_REQUIRED_CXX_FLAGS}")
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_compiles("${_mbir_abi_probe}" MBIR_ITK_LINKS_WITH_DEFAULT_ABI)
set(MBIR_GLIBCXX_OLD_ABI OFF)
if(NOT MBIR_ITK_LINKS_WITH_DEFAULT_ABI)
  set(CMAKE_REQUIRED_DEFINITIONS -D_GLIBCXX_USE_CXX11_ABI=0)
  check_cxx_source_compiles("${_mbir_abi_probe}" MBIR_ITK_LINKS_WITH_OLD_ABI)
  if(MBIR_ITK_LINKS_WITH_OLD_ABI)
    set(MBIR_GLIBCXX_OLD_ABI ON)
  else()
    message(WARNING "MBIR: a program using ITKCommon (${ITK_DIR}) links with neither libstdc++ ABI; see "
                    "${CMAKE_BINARY_DIR}/CMakeFiles/CMakeError.log")
  endif()
endif()
cmake_pop_check_state()
unset(_mbir_abi_probe)

if(MBIR_GLIBCXX_OLD_ABI)
  message(STATUS "MBIR: ITK (${ITK_DIR}) uses libstdc++'s pre-C++11 ABI: compiling with _GLIBCXX_USE_CXX11_ABI=0")
  add_compile_definitions(_GLIBCXX_USE_CXX11_ABI=0)
endif()
