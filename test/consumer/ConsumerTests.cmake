# The module installed and used as a user would (test/consumer/external-module-test.sh): the sources configured
# again as a module of their own, its library built and installed, and the consumer project in this folder
# configured, built and run against the install. Included by test/CMakeLists.txt.
#   mbir-install-consumer          against this build's ITK, the way it allows (the plain-CMake build against an ITK
#                                  install tree; ITKModuleExternal against an ITK build tree), with this build's
#                                  CUDA and FFT choices; installed to a prefix of its own, found with find_package(MBIR)
#   mbir-external-module-consumer  ITK's standard external-module path (include(ITKModuleExternal), itk_module_impl)
#                                  against an ITK install tree that lacks the machinery, with ITK's CMake folder of the
#                                  same version (MBIR_ITK_MODULE_MACHINERY_DIR, from scripts/itk-module-machinery.sh);
#                                  installed into that ITK's prefix and found with find_package(ITK COMPONENTS MBIR).
#                                  Skipped without the folder, and when this build already took that path. CPU only:
#                                  the CUDA usage requirements are the other test's.
#   slicer-extension-package       the Slicer extension (slicer/) built and packaged against a stand-in Slicer
#                                  (test/slicer/extension-test.sh).
# Each builds the module's library from scratch the first time (about 2 minutes on 2 cores, ccache helps later).
set(MBIR_ITK_MODULE_MACHINERY_DIR "" CACHE PATH "ITK's CMake folder of this ITK's version (default: the environment variable)")
set(_machinery "${MBIR_ITK_MODULE_MACHINERY_DIR}")
if(NOT _machinery)
  set(_machinery "$ENV{MBIR_ITK_MODULE_MACHINERY_DIR}")
endif()
set(MBIR_CONSUMER_TEST_CMAKE_ARGS "" CACHE STRING "More CMake arguments for the configurations of the install tests")

# A list inside one add_test() argument needs $<SEMICOLON>.
function(_mbir_consumer_arg out value)
  string(REPLACE ";" "$<SEMICOLON>" value "${value}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()
set(_common_args)
foreach(_launcher CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER CMAKE_CUDA_COMPILER_LAUNCHER)
  if(${_launcher})
    list(APPEND _common_args -D${_launcher}=${${_launcher}})
  endif()
endforeach()
list(APPEND _common_args -DMBIR_USE_FFTW=${MBIR_USE_FFTW} -DMBIR_NATIVE_CPU=${MBIR_NATIVE_CPU})
foreach(_arg IN LISTS MBIR_CONSUMER_TEST_CMAKE_ARGS)
  list(APPEND _common_args "${_arg}")
endforeach()
set(_cuda_args -DMBIR_USE_CUDA=${MBIR_USE_CUDA})
if(MBIR_USE_CUDA)
  _mbir_consumer_arg(_architectures "${CMAKE_CUDA_ARCHITECTURES}")
  list(APPEND _cuda_args "-DCMAKE_CUDA_ARCHITECTURES=${_architectures}" -DMBIR_USE_NCCL=${MBIR_USE_NCCL})
endif()
_mbir_consumer_arg(_prefix_path "${CMAKE_PREFIX_PATH}")
set(_script ${CMAKE_CURRENT_LIST_DIR}/external-module-test.sh)
set(_work ${CMAKE_CURRENT_BINARY_DIR}/consumer)

add_test(NAME mbir-install-consumer
         COMMAND bash ${_script} --source ${PROJECT_SOURCE_DIR} --work ${_work}/install --itk-dir ${ITK_DIR}
                 --prefix-path "${_prefix_path}" --generator ${CMAKE_GENERATOR} -- ${_common_args} ${_cuda_args})
if(MBIR_ITK_MODULE_MACHINERY)
  add_test(NAME mbir-external-module-consumer COMMAND ${CMAKE_COMMAND} -E echo
                                                      "SKIPPED: mbir-install-consumer already took ITK's module path")
  set_tests_properties(mbir-external-module-consumer PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
else()
  add_test(NAME mbir-external-module-consumer
           COMMAND bash ${_script} --source ${PROJECT_SOURCE_DIR} --work ${_work}/external --itk-dir ${ITK_DIR}
                   --machinery "${_machinery}" --prefix-path "${_prefix_path}"
                   --generator ${CMAKE_GENERATOR} -- ${_common_args} -DMBIR_USE_CUDA=OFF)
endif()
# The Slicer extension (slicer/) configured, built and packaged against a stand-in for a Slicer build tree whose ITK
# is this build's (test/slicer/extension-test.sh). CPU only: it builds the tools again.
set(_extension_args ${_common_args} -DMBIR_USE_CUDA=OFF)
list(LENGTH CMAKE_PREFIX_PATH _prefix_count)
if(_prefix_count EQUAL 1)
  list(APPEND _extension_args -DCMAKE_PREFIX_PATH=${CMAKE_PREFIX_PATH})
endif()
add_test(NAME slicer-extension-package
         COMMAND bash ${PROJECT_SOURCE_DIR}/test/slicer/extension-test.sh --source ${PROJECT_SOURCE_DIR}
                 --work ${_work}/slicer-extension --itk-dir ${ITK_DIR} --generator ${CMAKE_GENERATOR} -- ${_extension_args})
# Each build takes both cores: ctest runs them alone.
set_tests_properties(mbir-install-consumer mbir-external-module-consumer slicer-extension-package
                     PROPERTIES SKIP_RETURN_CODE 77 PROCESSORS 2 LABELS install ENVIRONMENT "${MBIR_TEST_ENVIRONMENT}")
unset(_common_args)
unset(_cuda_args)
unset(_extension_args)
