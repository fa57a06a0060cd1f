# What a project that uses the installed module must find before it imports the module's targets: MBIREngine, a
# static library exported with MBIR, links OpenMP, KissFFT, the CUDA runtime and cuFFT, NCCL and MPI. ITK's module
# machinery writes MBIR_EXPORT_CODE_INSTALL (and _BUILD) into the module file (lib/cmake/ITK-x.y/Modules/MBIR.cmake);
# the plain-CMake install (cmake/MBIRInstall.cmake) writes the same code into its module file. Needs the results of
# itk-module-init.cmake (MBIR_USE_OPENMP, MBIR_USE_CUDA, MBIR_USE_NCCL, MBIR_USE_MPI).

set(_code "# MBIREngine (a static library among this module's targets) links these; the settings it was built with:\n")
foreach(_option MBIR_USE_CUDA MBIR_USE_NCCL MBIR_USE_MPI MBIR_USE_OPENMP MBIR_USE_FFTW)
  if(${_option})
    string(APPEND _code "set(${_option} ON)\n")
  else()
    string(APPEND _code "set(${_option} OFF)\n")
  endif()
endforeach()
if(MBIR_USE_OPENMP)
  string(APPEND _code "if(NOT TARGET OpenMP::OpenMP_CXX)\n  find_package(OpenMP REQUIRED COMPONENTS CXX)\nendif()\n")
endif()
if(MBIR_USE_MPI)
  string(APPEND _code "if(NOT TARGET MPI::MPI_C)\n  find_package(MPI REQUIRED COMPONENTS C)\nendif()\n")
endif()
if(NOT MBIR_USE_FFTW)
  # As src/core/CMakeLists.txt finds it: the shared library first.
  string(APPEND _code
         "if(NOT TARGET kissfft::kissfft-float)\n"
         "  find_package(kissfft CONFIG QUIET COMPONENTS SHARED)\n"
         "  if(NOT TARGET kissfft::kissfft-float)\n"
         "    find_package(kissfft CONFIG REQUIRED COMPONENTS STATIC)\n"
         "  endif()\n"
         "endif()\n")
endif()
if(MBIR_USE_CUDA)
  string(APPEND _code "if(NOT TARGET CUDA::cudart)\n  find_package(CUDAToolkit REQUIRED)\nendif()\n")
endif()
if(MBIR_USE_NCCL AND NCCL_LIBRARY)
  # The NCCL the engine was linked with, as the imported target cmake/FindNCCL.cmake defines (no find module needed).
  string(APPEND _code
         "if(NOT TARGET NCCL::NCCL)\n"
         "  add_library(NCCL::NCCL UNKNOWN IMPORTED)\n"
         "  set_target_properties(NCCL::NCCL PROPERTIES IMPORTED_LOCATION \"${NCCL_LIBRARY}\"\n"
         "                        INTERFACE_INCLUDE_DIRECTORIES \"${NCCL_INCLUDE_DIR}\")\n"
         "endif()\n")
endif()
set(MBIR_EXPORT_CODE_INSTALL "${_code}")
set(MBIR_EXPORT_CODE_BUILD "${_code}")
unset(_code)
unset(_option)
