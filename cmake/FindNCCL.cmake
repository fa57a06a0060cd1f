#[=======================================================================[.rst:
FindNCCL
--------

Finds NVIDIA's NCCL, the collective communication library between GPUs.

Imported target
^^^^^^^^^^^^^^^

``NCCL::NCCL``
  The library, with its include directory.

Result variables
^^^^^^^^^^^^^^^^

``NCCL_FOUND``, ``NCCL_VERSION`` (``major.minor.patch`` from ``nccl.h``), ``NCCL_INCLUDE_DIRS``,
``NCCL_LIBRARIES``.

Cache variables
^^^^^^^^^^^^^^^

``NCCL_INCLUDE_DIR`` (the folder of ``nccl.h``) and ``NCCL_LIBRARY``; set them to choose a copy.

Hints
^^^^^

Searched first: ``NCCL_ROOT`` (CMake or environment variable; an install prefix or an unpacked NCCL
archive), ``NCCL_HOME`` (environment variable, as NCCL's own build uses it), then the CUDA toolkit
(``CUDAToolkit_INCLUDE_DIRS`` / ``CUDAToolkit_LIBRARY_DIR`` after ``find_package(CUDAToolkit)``, the
``CUDA_HOME`` and ``CUDA_PATH`` environment variables, ``/usr/local/cuda``), then the system's folders
(Debian's ``libnccl-dev``). ``NCCL_USE_STATIC=ON`` links ``libnccl_static.a`` instead of the shared
library.
#]=======================================================================]

set(_nccl_prefixes)
foreach(_nccl_hint IN ITEMS "${NCCL_ROOT}" "$ENV{NCCL_ROOT}" "$ENV{NCCL_HOME}")
  if(_nccl_hint)
    list(APPEND _nccl_prefixes "${_nccl_hint}")
  endif()
endforeach()
set(_nccl_cuda_prefixes)
foreach(_nccl_hint IN ITEMS "${CUDAToolkit_LIBRARY_ROOT}" "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}" /usr/local/cuda)
  if(_nccl_hint)
    list(APPEND _nccl_cuda_prefixes "${_nccl_hint}")
  endif()
endforeach()

find_path(
  NCCL_INCLUDE_DIR nccl.h
  HINTS ${_nccl_prefixes} ${CUDAToolkit_INCLUDE_DIRS} ${_nccl_cuda_prefixes}
  PATH_SUFFIXES include)
if(NCCL_USE_STATIC)
  set(_nccl_names nccl_static)
else()
  set(_nccl_names nccl)
endif()
find_library(
  NCCL_LIBRARY
  NAMES ${_nccl_names}
  HINTS ${_nccl_prefixes} ${CUDAToolkit_LIBRARY_DIR} ${_nccl_cuda_prefixes}
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu targets/x86_64-linux/lib)

set(NCCL_VERSION "")
if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(_nccl_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_nccl_part} +([0-9]+)" _nccl_match "${_nccl_version_lines}")
    set(NCCL_VERSION_${_nccl_part} "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT NCCL_VERSION_MAJOR STREQUAL "")
    set(NCCL_VERSION "${NCCL_VERSION_MAJOR}.${NCCL_VERSION_MINOR}.${NCCL_VERSION_PATCH}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(
  NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
  VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND)
  set(NCCL_INCLUDE_DIRS "${NCCL_INCLUDE_DIR}")
  set(NCCL_LIBRARIES "${NCCL_LIBRARY}")
  if(NOT TARGET NCCL::NCCL)
    add_library(NCCL::NCCL UNKNOWN IMPORTED)
    set_target_properties(NCCL::NCCL PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES
                                                                                     "${NCCL_INCLUDE_DIR}")
    if(NCCL_USE_STATIC)
      # The static library needs the CUDA runtime and the system libraries the shared one brings itself.
      find_package(Threads REQUIRED)
      set_property(TARGET NCCL::NCCL PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads ${CMAKE_DL_LIBS} rt)
    endif()
  endif()
endif()

mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
unset(_nccl_prefixes)
unset(_nccl_cuda_prefixes)
unset(_nccl_names)
