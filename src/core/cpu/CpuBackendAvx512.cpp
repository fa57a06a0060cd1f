// CpuBackend.cpp compiled for the AVX-512 (F, VL, BW, DQ) path of the CPU backend (CpuDispatch.cpp).
#define MBIR_CPU_PATH 2
#include "CpuBackend.cpp"
