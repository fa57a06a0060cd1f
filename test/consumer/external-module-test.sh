#!/usr/bin/env bash
# The module installed and used as a user would (ctest: mbir-install-consumer, mbir-external-module-consumer):
#   1. configure these sources again, as a module of their own, into WORK/module (tests off);
#   2. build the module's library (MBIR and the engine) and `cmake --install` it;
#   3. configure, build and run the consumer project test/consumer against that install: it finds the module with
#      find_package(ITK COMPONENTS MBIR) (or find_package(MBIR) first) and forward-projects a cylinder.
#
#   external-module-test.sh --source DIR --work DIR --itk-dir DIR [--machinery DIR] [--prefix-path LIST]
#                           [--generator G] [-- CMAKE_ARGS...]
#
# --itk-dir: the ITK to build against (its ITKConfig.cmake folder).
# Without --machinery the module configures the way that ITK allows: ITK's module machinery
# (include(ITKModuleExternal)) when ITK carries it (an ITK build tree), else the plain-CMake build
# (cmake/MBIRFallbackModule.cmake); the install goes to WORK/prefix, a prefix of its own.
# --machinery DIR: ITK's CMake folder (ITKModuleExternal.cmake, ITKModuleMacros.cmake, ...) from the sources of the
# same ITK version, for an ITK install tree that lacks it (Debian's). The script lays out WORK/itk, an ITK prefix
# that is the installed ITK plus that folder (copied config files, links to the installed libraries and headers),
# as distributions that ship the machinery do; the module must then take the ITKModuleExternal path and install
# into that ITK prefix, and the consumer finds it through ITK alone. Exits 77 (skipped) when DIR is not given
# as a folder with ITKModuleExternal.cmake of ITK's version.
# --prefix-path LIST: CMAKE_PREFIX_PATH of both configurations (the consumer's gets the install prefix first).
# CMAKE_ARGS go to both configurations (compiler launcher, CUDA options...).
set -euo pipefail

source_dir= work= itk_dir= machinery= want_machinery= prefix_path= generator=Ninja
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source_dir=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --itk-dir) itk_dir=$2; shift 2 ;;
    --machinery) machinery=$2; want_machinery=1; shift 2 ;;
    --prefix-path) prefix_path=$2; shift 2 ;;
    --generator) generator=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "external-module-test.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$source_dir" ] && [ -n "$work" ] && [ -n "$itk_dir" ] || { echo "usage: see the top of $0" >&2; exit 2; }
cmake_args=("$@")
jobs=${MBIR_CONSUMER_TEST_JOBS:-$(nproc)}
start=$(date +%s)
stamp() { echo "[$(basename "$0") $(( $(date +%s) - start ))s] $*"; }
run() { # runs a step, its output in a log; shows the log's end when it fails
  local log=$1; shift
  if ! "$@" > "$log" 2>&1; then
    tail -n 60 "$log"
    echo "external-module-test.sh: failed: $*" >&2
    exit 1
  fi
}

itk_dir=$(cd "$itk_dir" && pwd)
itk_version=$(sed -n 's/^set(ITK_VERSION_\(MAJOR\|MINOR\) "\([0-9]*\)")$/\2/p' "$itk_dir/ITKConfig.cmake" | paste -sd.)
[ -n "$itk_version" ] || { echo "no ITK version in $itk_dir/ITKConfig.cmake" >&2; exit 1; }
mkdir -p "$work"
work=$(cd "$work" && pwd)

if [ -n "$want_machinery" ]; then
  if [ -z "$machinery" ] || [ ! -f "$machinery/ITKModuleExternal.cmake" ] || [ ! -f "$machinery/ITKModuleMacros.cmake" ]; then
    echo "SKIPPED: no ITK module machinery for ITK $itk_version (ITKModuleExternal.cmake) in '$machinery';" \
         "scripts/itk-module-machinery.sh gets it from ITK's sources"
    exit 77
  fi
  machinery_version=$(sed -n 's/^set(ITK_VERSION_\(MAJOR\|MINOR\) "\([0-9]*\)")$/\2/p' "$machinery/itkVersion.cmake" |
                      paste -sd.)
  if [ "$machinery_version" != "$itk_version" ]; then
    echo "SKIPPED: the module machinery in $machinery is ITK $machinery_version's, not ITK $itk_version's"
    exit 77
  fi
  # WORK/itk: the installed ITK with the machinery. Config files are copied (ITKConfig.cmake and ITKTargets.cmake
  # compute the prefix from where they are), the rest of the prefix is linked; include/ITK-x.y is a folder of links
  # so that the module's headers can be installed beside ITK's.
  itk_prefix=$(cd "$itk_dir/../../.." && pwd)
  shim="$work/itk"
  rm -rf "$shim"
  mkdir -p "$shim/lib/cmake" "$shim/include"
  for entry in "$itk_prefix"/*; do
    name=$(basename "$entry")
    [ "$name" = lib ] || [ "$name" = include ] || ln -s "$entry" "$shim/$name"
  done
  for entry in "$itk_prefix"/lib/*; do
    [ "$(basename "$entry")" = cmake ] || ln -s "$entry" "$shim/lib/"
  done
  for entry in "$itk_prefix"/lib/cmake/*; do
    [ "$(basename "$entry")" = "ITK-$itk_version" ] || ln -s "$entry" "$shim/lib/cmake/"
  done
  for entry in "$itk_prefix"/include/*; do
    [ "$(basename "$entry")" = "ITK-$itk_version" ] || ln -s "$entry" "$shim/include/"
  done
  cp -rs "$itk_prefix/include/ITK-$itk_version" "$shim/include/"
  cp -r "$itk_dir" "$shim/lib/cmake/ITK-$itk_version"
  cp -rn "$machinery"/. "$shim/lib/cmake/ITK-$itk_version/"
  module_itk_dir="$shim/lib/cmake/ITK-$itk_version"
  prefix="$shim"
  expect="ITKModuleExternal"
  stamp "ITK $itk_version with its module machinery: $shim (the installed ITK plus $machinery)"
else
  module_itk_dir="$itk_dir"
  prefix="$work/prefix"
  expect=""
fi

# 1. Configure. The top-level CMakeLists.txt says which path it took.
rm -rf "$work/prefix" "$work/consumer"
stamp "configuring the module against $module_itk_dir"
run "$work/module-configure.log" cmake -S "$source_dir" -B "$work/module" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DITK_DIR="$module_itk_dir" -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_PREFIX_PATH="$prefix_path" \
  "${cmake_args[@]}"
path=$(sed -n 's/^-- MBIR: configured \(.*\)$/\1/p' "$work/module-configure.log" | tail -n 1)
stamp "the module is configured $path"
if [ -n "$expect" ] && [[ "$path" != *"$expect"* ]]; then
  echo "external-module-test.sh: expected the $expect path" >&2
  exit 1
fi

# 2. Build the library and install.
stamp "building MBIR (log: $work/module-build.log)"
run "$work/module-build.log" cmake --build "$work/module" --target MBIR -j "$jobs"
run "$work/module-install.log" cmake --install "$work/module"
stamp "installed into $prefix: $(grep -c 'Installing:' "$work/module-install.log") files"
module_file="$prefix/lib/cmake/ITK-$itk_version/Modules/MBIR.cmake"
[ -f "$module_file" ] || { echo "external-module-test.sh: no module file $module_file" >&2; exit 1; }

# 3. The consumer: against ITK's prefix it finds MBIR through ITK; against a prefix of its own, through
# find_package(MBIR) (CMAKE_PREFIX_PATH).
stamp "configuring and building the consumer project"
run "$work/consumer-configure.log" cmake -S "$source_dir/test/consumer" -B "$work/consumer" -G "$generator" \
  -DCMAKE_BUILD_TYPE=Release -DITK_DIR="$module_itk_dir" "${cmake_args[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix${prefix_path:+;$prefix_path}"
grep -- '-- MBIR module:' "$work/consumer-configure.log" || true
run "$work/consumer-build.log" cmake --build "$work/consumer"
stamp "running the consumer"
"$work/consumer/mbir-consumer"
stamp "passed"
