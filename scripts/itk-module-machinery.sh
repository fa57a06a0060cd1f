#!/usr/bin/env bash
# Prints the folder of ITK's module machinery (ITK's CMake/ folder: ITKModuleExternal.cmake, ITKModuleMacros.cmake,
# ITKModuleInfo.cmake.in...) for an installed ITK, getting it from that ITK's sources first when needed:
#
#   scripts/itk-module-machinery.sh [ITK_DIR]      (default: Debian's /usr/lib/cmake/ITK-x.y)
#
# ITK installs do not carry the machinery (only ITK build trees do), so ITK's standard external-module build
# (include(ITKModuleExternal)) cannot run against them; the test mbir-external-module-consumer lays the folder next to
# the installed ITK, as distributions that ship it do. For Debian's ITK the folder comes from the Debian source
# package of the installed version (apt-get source; a deb-src entry is added when none exists, as
# scripts/test-wrapping.sh does): a 280 MB download, of which only CMake/ (400 kB) is kept, in
# ${MBIR_ITK_MACHINERY_CACHE:-~/.cache/itkmbir/itk-cmake-VERSION}. Set MBIR_ITK_MODULE_MACHINERY_DIR to an ITK
# source tree's CMake/ folder of the same version to skip the download.
#
# Status lines go to stderr; the folder alone to stdout. Exits non-zero, saying why, when it cannot be had.
set -euo pipefail

itk_dir=${1:-}
if [ -z "$itk_dir" ]; then
  itk_dir=$(find /usr/lib/cmake -maxdepth 1 -type d -name 'ITK-*' 2>/dev/null | sort -V | tail -n 1)
fi
if [ -z "$itk_dir" ] || [ ! -f "$itk_dir/ITKConfig.cmake" ]; then
  echo "itk-module-machinery.sh: no ITKConfig.cmake in '${itk_dir}'" >&2
  exit 1
fi
version=$(sed -n 's/^set(ITK_VERSION_\(MAJOR\|MINOR\|PATCH\) "\([0-9]*\)")$/\2/p' "$itk_dir/ITKConfig.cmake" | paste -sd.)
has_machinery() { [ -f "$1/ITKModuleExternal.cmake" ] && [ -f "$1/ITKModuleMacros.cmake" ]; }
same_version() {
  [ "$(sed -n 's/^set(ITK_VERSION_\(MAJOR\|MINOR\|PATCH\) "\([0-9]*\)")$/\2/p' "$1/itkVersion.cmake" | paste -sd.)" \
    = "$version" ]
}

if [ -n "${MBIR_ITK_MODULE_MACHINERY_DIR:-}" ]; then
  if has_machinery "$MBIR_ITK_MODULE_MACHINERY_DIR" && same_version "$MBIR_ITK_MODULE_MACHINERY_DIR"; then
    echo "$MBIR_ITK_MODULE_MACHINERY_DIR"
    exit 0
  fi
  echo "itk-module-machinery.sh: MBIR_ITK_MODULE_MACHINERY_DIR=$MBIR_ITK_MODULE_MACHINERY_DIR is not ITK $version's" \
       "CMake folder" >&2
  exit 1
fi
if has_machinery "$itk_dir"; then # an ITK build tree, or an ITK that ships it
  echo "$itk_dir"
  exit 0
fi

cache=${MBIR_ITK_MACHINERY_CACHE:-$HOME/.cache/itkmbir/itk-cmake-$version}
if has_machinery "$cache" && same_version "$cache"; then
  echo "$cache"
  exit 0
fi

package=$(dpkg -S "$itk_dir/ITKConfig.cmake" 2>/dev/null | cut -d: -f1 || true)
if [ -z "$package" ]; then
  echo "itk-module-machinery.sh: ITK $version at $itk_dir is not a Debian package: set MBIR_ITK_MODULE_MACHINERY_DIR" \
       "to the CMake/ folder of an ITK $version source tree" >&2
  exit 1
fi
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cmake"

# The CMake folder of an ITK source already unpacked by scripts/test-wrapping.sh, else the source package.
wrap_source=$(find "${MBIR_WRAP_CACHE:-$HOME/.cache/itkmbir-wrapping}" -maxdepth 1 -type d -name "insighttoolkit5-$version" \
  2>/dev/null | head -n 1 || true)
if [ -n "$wrap_source" ] && has_machinery "$wrap_source/CMake"; then
  cp -r "$wrap_source/CMake/." "$tmp/cmake/"
else
  source_package=$(dpkg-query -W -f='${source:Package}' "$package")
  source_version=$(dpkg-query -W -f='${source:Version}' "$package")
  if ! apt-cache showsrc "$source_package" 2>/dev/null | grep -q "^Version: $source_version\$"; then
    if ! apt-cache showsrc "$source_package" 2>/dev/null | grep -q '^Version:'; then
      echo "itk-module-machinery.sh: adding a deb-src entry for $(. /etc/os-release && echo "$VERSION_CODENAME")" >&2
      codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
      as_root tee /etc/apt/sources.list.d/itkmbir-debian-src.sources >/dev/null <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    fi
    as_root apt-get update -qq >&2
  fi
  echo "itk-module-machinery.sh: downloading the source of $source_package $source_version (ITK $version)" >&2
  (cd "$tmp" && apt-get source --download-only -qq "$source_package=$source_version" >&2 2>/dev/null) || {
    echo "itk-module-machinery.sh: apt-get source $source_package=$source_version failed" >&2
    exit 1
  }
  orig=$(find "$tmp" -maxdepth 1 -name '*.orig.tar.*' | head -n 1)
  [ -n "$orig" ] || { echo "itk-module-machinery.sh: no upstream tarball in the source package" >&2; exit 1; }
  top=$(tar -tf "$orig" 2>/dev/null | head -n 1 || true) # InsightToolkit-x.y.z/
  tar -xf "$orig" -C "$tmp/cmake" --strip-components=2 "${top%/}/CMake"
fi
if ! has_machinery "$tmp/cmake" || ! same_version "$tmp/cmake"; then
  echo "itk-module-machinery.sh: the sources hold no module machinery of ITK $version" >&2
  exit 1
fi
mkdir -p "$(dirname "$cache")"
rm -rf "$cache"
cp -r "$tmp/cmake" "$cache"
echo "itk-module-machinery.sh: ITK $version's module machinery in $cache" >&2
echo "$cache"
