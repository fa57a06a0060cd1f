#!/usr/bin/env bash
# Builds a minimal ITK 5.2 with Python wrapping and this module inside it (Modules/Remote/MBIR), then
# runs the Python smoke test (wrapping/test/smoke_test.py) against that build.
#
# Debian 12 only: ITK comes from `apt-get source insighttoolkit5` (5.2.1 with Debian's patches, which
# fit Debian's swig 4.1 and castxml 0.5); swig and castxml are the Debian packages. The ITK source and
# build stay in a cache folder, so the first run is long (about an hour on 2 cores) and later runs
# rebuild only what changed here (minutes).
#
# Environment:
#   MBIR_WRAP_CACHE       cache folder (default ~/.cache/itkmbir-wrapping): ITK source and build tree
#   MBIR_WRAP_ITK_SOURCE  an ITK 5.2 source tree to use instead of the Debian source package
#   MBIR_WRAP_PYTHON      the Python to wrap for (default /usr/bin/python3, which has python3-numpy)
#   MBIR_WRAP_JOBS        parallel build jobs (default: all cores)
#   MBIR_WRAP_NICE        niceness of the build (default 19)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${MBIR_WRAP_CACHE:-$HOME/.cache/itkmbir-wrapping}"
python="${MBIR_WRAP_PYTHON:-/usr/bin/python3}"
jobs="${MBIR_WRAP_JOBS:-$(nproc)}"
niceness="${MBIR_WRAP_NICE:-19}"
build="$cache/build"
mkdir -p "$cache"
start=$(date +%s)
stamp() { echo "[test-wrapping $(( $(date +%s) - start ))s] $*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# 1. Packages: the module's own build dependencies plus the wrapping tools.
"$here/scripts/install-deps.sh"
packages=(swig castxml python3-dev python3-numpy dpkg-dev rsync)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  stamp "installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# 2. The ITK source.
if [ -n "${MBIR_WRAP_ITK_SOURCE:-}" ]; then
  itk_src="$MBIR_WRAP_ITK_SOURCE"
else
  itk_src="$(find "$cache" -maxdepth 1 -type d -name 'insighttoolkit5-*' | sort | tail -n 1)"
  if [ -z "$itk_src" ]; then
    if ! apt-cache showsrc insighttoolkit5 2>/dev/null | grep -q '^Version:'; then
      stamp "adding a deb-src entry for bookworm"
      as_root tee /etc/apt/sources.list.d/itkmbir-debian-src.sources >/dev/null <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
      as_root apt-get update -qq
    fi
    stamp "downloading the ITK source package"
    (cd "$cache" && apt-get source -qq insighttoolkit5)
    itk_src="$(find "$cache" -maxdepth 1 -type d -name 'insighttoolkit5-*' | sort | tail -n 1)"
  fi
fi
[ -f "$itk_src/Modules/Core/Common/itk-module.cmake" ] || { echo "no ITK source at $itk_src" >&2; exit 1; }
stamp "ITK source: $itk_src"

# ITK 5.2's ITKCommon wrapping wraps itk::MeshRegion, whose header belongs to ITKMesh, a module this
# minimal build leaves out (it would add the Transform, Statistics and Mesh wrapping); drop that line.
common_base_wrap="$itk_src/Modules/Core/Common/wrapping/ITKCommonBase.wrap"
if grep -q '^itk_wrap_simple_class("itk::MeshRegion")' "$common_base_wrap" && \
   [ ! -f "$itk_src/Modules/Core/Common/include/itkMeshRegion.h" ]; then
  stamp "ITKCommon wrapping: leaving out itk::MeshRegion (its header is in ITKMesh)"
  sed -i 's|^itk_wrap_simple_class("itk::MeshRegion")|# MeshRegion left out by itkmbir test-wrapping.sh: &|' "$common_base_wrap"
fi
# ITK 5.2's Python support names np.bool, which NumPy 1.24 (Debian 12's) no longer has; np.bool_ is the
# same type.
types_py="$itk_src/Wrapping/Generators/Python/itk/support/types.py"
if grep -q 'np\.bool)' "$types_py"; then
  stamp "ITK Python support: np.bool -> np.bool_ (NumPy >= 1.24)"
  sed -i 's/np\.bool)/np.bool_)/' "$types_py"
fi

# 3. This module as a remote module of that tree. ITK finds modules by a glob that does not follow
# symbolic links, so the module is copied; rsync keeps the times of unchanged files, so the build
# stays incremental.
rsync -a --delete --exclude=.git --exclude='/build*/' --filter=':- .gitignore' \
  "$here/" "$itk_src/Modules/Remote/MBIR/"

# 4. Configure: only the modules MBIR and the smoke test need (ITKCommon, ITKBridgeNumPy and what they
# depend on), float images of dimension 3. ITKCommon's own wrapping needs at least one vector pixel
# type (its ImageDuplicator), so vector_float stays on; ITKCommon always wraps a few others (UC, UL...).
# Vector components 2 and 3: the geometry's detector pitch and offset are itk::Vector<double, 2>.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
config=(-G Ninja "${launcher[@]}"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_STANDARD=17
  -DBUILD_SHARED_LIBS=ON
  -DBUILD_TESTING=OFF
  -DBUILD_EXAMPLES=OFF
  -DITK_BUILD_DEFAULT_MODULES=OFF
  -DITKGroup_Core=OFF
  -DModule_ITKBridgeNumPy=ON
  -DModule_MBIR=ON
  -DMBIR_USE_CUDA=OFF
  -DITK_WRAP_PYTHON=ON
  -DPython3_EXECUTABLE="$python"
  -DITK_USE_SYSTEM_SWIG=ON
  -DITK_USE_SYSTEM_CASTXML=ON
  -DITK_WRAP_IMAGE_DIMS=3
  -DITK_WRAP_VECTOR_COMPONENTS="2;3"
  -DITK_WRAP_float=ON
  -DITK_WRAP_double=OFF
  -DITK_WRAP_unsigned_char=OFF
  -DITK_WRAP_unsigned_short=OFF
  -DITK_WRAP_signed_short=OFF
  -DITK_WRAP_vector_float=ON
  -DITK_WRAP_covariant_vector_float=OFF
  -DITK_WRAP_rgb_unsigned_char=OFF
  -DITK_WRAP_rgba_unsigned_char=OFF
  -DITK_WRAP_complex_float=OFF)
# Configuring again regenerates ITK's build-information source, which relinks ITKCommon and its large
# Python module (link-time optimised, about 10 minutes on 2 cores); so configure only when the options
# changed. Changes to this module's CMake files or .wrap files re-run CMake through ninja anyway.
if [ -f "$build/CMakeCache.txt" ] && [ "$(cat "$cache/configure.args" 2>/dev/null)" = "${config[*]}" ]; then
  stamp "$build is configured with these options"
else
  stamp "configuring $build"
  cmake -S "$itk_src" -B "$build" "${config[@]}" > "$cache/configure.log" 2>&1 || {
    tail -n 60 "$cache/configure.log"
    exit 1
  }
  printf '%s' "${config[*]}" > "$cache/configure.args"
fi

# 5. Build ITK, its wrapping and this module's.
stamp "building (log: $cache/build.log)"
build_start=$(date +%s)
if ! nice -n "$niceness" cmake --build "$build" -j "$jobs" -- -k 0 > "$cache/build.log" 2>&1; then
  grep -n -E 'error|FAILED' "$cache/build.log" | head -n 40
  tail -n 30 "$cache/build.log"
  exit 1
fi
stamp "build done in $(( $(date +%s) - build_start ))s"

# 6. The smoke test, on the build tree's itk package.
export PYTHONPATH="$build/Wrapping/Generators/Python${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_WAIT_POLICY=PASSIVE
stamp "smoke test"
"$python" "$here/wrapping/test/smoke_test.py"
stamp "all done"
