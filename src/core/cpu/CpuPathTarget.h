// Compiles the rest of the including file for its instruction-set path (MBIR_CPU_PATH, CpuBackend.h).
// It must be the file's last #include: only functions defined after it get the wider instructions, while
// the inline functions and templates of the headers above stay baseline code, so that whichever copy of
// them the linker keeps runs on every x86-64 CPU. GCC also compiles the OpenMP regions of a function for
// its target, which is what makes the paths pay (Clang does not: the paths are built with GCC only).
// No include guard: each translation unit includes it once, at its end.

#if MBIR_CPU_PATH == 2
#  pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")
#elif MBIR_CPU_PATH == 1
#  pragma GCC target("avx2,fma")
#endif

#if MBIR_CPU_PATH > 0 && (!defined(__GNUC__) || defined(__clang__))
#  error "the AVX2 and AVX-512 paths of the CPU backend are built with GCC only"
#endif
