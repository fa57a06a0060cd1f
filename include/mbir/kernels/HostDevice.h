#pragma once
// Marks the shared per-voxel math so that one definition serves the CPU and CUDA backends.

#if defined(__CUDACC__)
#  define MBIR_HOST_DEVICE __host__ __device__
#else
#  define MBIR_HOST_DEVICE
#endif
