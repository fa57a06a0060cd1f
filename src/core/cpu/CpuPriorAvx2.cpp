// CpuPrior.cpp compiled for the AVX2 + FMA path of the CPU backend (CpuDispatch.cpp).
#define MBIR_CPU_PATH 1
#include "CpuPrior.cpp"
