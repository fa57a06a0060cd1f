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
set(MBIR_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures to compile for (e.g. 90 for H100/H200)")

set(MBIR_NCCL_FOUND OFF)
if(MBIR_USE_CUDA)
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${MBIR_CUDA_ARCHITECTURES})
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/include)
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/lib)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(MBIR_NCCL_FOUND ON)
  endif()
endif()
option(MBIR_USE_NCCL "Use NCCL between GPUs (needs MBIR_USE_CUDA and NCCL)" ${MBIR_NCCL_FOUND})
if(MBIR_USE_NCCL AND NOT (MBIR_USE_CUDA AND MBIR_NCCL_FOUND))
  message(FATAL_ERROR "MBIR_USE_NCCL=ON needs MBIR_USE_CUDA=ON and NCCL (nccl.h and libnccl) to be found")
endif()

find_package(OpenMP COMPONENTS CXX)
if(OpenMP_CXX_FOUND)
  set(MBIR_USE_OPENMP ON)
else()
  set(MBIR_USE_OPENMP OFF)
  message(WARNING "OpenMP not found: the CPU engine will use a single core")
endif()
message(STATUS "MBIR: CUDA ${MBIR_USE_CUDA} (architectures ${CMAKE_CUDA_ARCHITECTURES}), NCCL ${MBIR_USE_NCCL}, "
               "OpenMP ${MBIR_USE_OPENMP}")

# ctest runs tests side by side: idle OpenMP threads must sleep rather than spin, or they starve the
# other test processes (a 0.5 s test took 35 s on two cores).
set(MBIR_TEST_ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
