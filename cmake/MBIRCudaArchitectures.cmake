# The default GPU architectures, when neither CMAKE_CUDA_ARCHITECTURES nor CUDAARCHS is given: Volta to
# Hopper, 70;80;86;89;90 (V100, A100, RTX 30, RTX 40 / L40, H100 / H200), less what CMAKE_CUDA_COMPILER
# cannot compile for: an architecture it dropped is replaced by the oldest it has above it (CUDA 13 dropped
# Volta: 75 stands in). nvcc --list-gpu-arch says what it has; without an answer the list is kept as is.
#   mbir_default_cuda_architectures(OUT_VARIABLE)
function(mbir_default_cuda_architectures out)
  set(wanted 70 80 86 89 90)
  execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch OUTPUT_VARIABLE listed RESULT_VARIABLE failed
                  ERROR_QUIET)
  string(REGEX MATCHALL "compute_[0-9]+" supported "${listed}")
  string(REPLACE "compute_" "" supported "${supported}")
  if(failed OR NOT supported)
    set(${out} "${wanted}" PARENT_SCOPE)
    return()
  endif()
  set(architectures)
  foreach(arch IN LISTS wanted)
    if(arch IN_LIST supported)
      list(APPEND architectures ${arch})
    else()
      set(oldest "") # the oldest the compiler has above a dropped one
      foreach(candidate IN LISTS supported)
        if(candidate GREATER arch AND (oldest STREQUAL "" OR candidate LESS oldest))
          set(oldest ${candidate})
        endif()
      endforeach()
      list(APPEND architectures ${oldest})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES architectures)
  set(${out} "${architectures}" PARENT_SCOPE)
endfunction()
