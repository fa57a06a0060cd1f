# Decides the optional accelerator support before the module is configured (ITK runs this file first
# inside an ITK tree; the top-level CMakeLists.txt includes it otherwise).

include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(_mbir_cuda_default ON)
else()
  set(_mbir_cuda_default OFF)
endif()
option(MBIR_USE_CUDA "Build the CUDA backend (needs nvcc)" ${_mbir_cuda_default})

# GPU architectures: CMAKE_CUDA_ARCHITECTURES when given, else the CUDAARCHS environment variable (CMake
# reads it itself when enabling CUDA), else Volta to Hopper (cmake/MBIRCudaArchitectures.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/cmake/MBIRCudaArchitectures.cmake)

set(MBIR_NCCL_FOUND OFF)
if(MBIR_USE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND "$ENV{CUDAARCHS}" STREQUAL "")
    if(MBIR_CUDA_ARCHITECTURES) # the former option, still honoured
      set(_mbir_cuda_architectures "${MBIR_CUDA_ARCHITECTURES}")
      message(STATUS "MBIR: MBIR_CUDA_ARCHITECTURES is deprecated: use CMAKE_CUDA_ARCHITECTURES or CUDAARCHS")
    else()
      mbir_default_cuda_architectures(_mbir_cuda_architectures)
    endif()
    set(CMAKE_CUDA_ARCHITECTURES "${_mbir_cuda_architectures}" CACHE STRING "CUDA architectures to compile for")
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  # cmake/FindNCCL.cmake (NCCL::NCCL); ITK runs this file before the module's CMakeLists.txt sets the path.
  list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR}/cmake)
  list(REMOVE_DUPLICATES CMAKE_MODULE_PATH)
  find_package(NCCL)
  set(MBIR_NCCL_FOUND ${NCCL_FOUND})
endif()
option(MBIR_USE_NCCL "Use NCCL between GPUs (needs MBIR_USE_CUDA and NCCL)" ${MBIR_NCCL_FOUND})
if(MBIR_USE_NCCL AND NOT (MBIR_USE_CUDA AND MBIR_NCCL_FOUND))
  message(FATAL_ERROR "MBIR_USE_NCCL=ON needs MBIR_USE_CUDA=ON and NCCL (nccl.h and libnccl) to be found: "
                      "set NCCL_ROOT to its install prefix")
endif()

# MPI (Open MPI from Debian: libopenmpi-dev): one reconstruction across processes and nodes (README "Across nodes").
find_package(MPI QUIET COMPONENTS C)
option(MBIR_USE_MPI "Reconstruct across MPI processes (needs MPI)" ${MPI_C_FOUND})
if(MBIR_USE_MPI AND NOT MPI_C_FOUND)
  message(FATAL_ERROR "MBIR_USE_MPI=ON needs MPI (Debian: apt-get install libopenmpi-dev openmpi-bin)")
endif()

find_package(OpenMP COMPONENTS CXX)
if(OpenMP_CXX_FOUND)
  set(MBIR_USE_OPENMP ON)
else()
  set(MBIR_USE_OPENMP OFF)
  message(WARNING "OpenMP not found: the CPU engine will use a single core")
endif()
message(STATUS "MBIR: CUDA ${MBIR_USE_CUDA} (architectures ${CMAKE_CUDA_ARCHITECTURES}), NCCL ${MBIR_USE_NCCL}, "
               "OpenMP ${MBIR_USE_OPENMP}, MPI ${MBIR_USE_MPI}")

# ctest runs tests side by side: idle OpenMP threads must sleep rather than spin, or they starve the
# other test processes (a 0.5 s test took 35 s on two cores).
set(MBIR_TEST_ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
