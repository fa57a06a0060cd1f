#!/usr/bin/env bash
# The Slicer extension (slicer/) built and packaged the way Slicer's extension build does it, against a stand-in
# for a Slicer build tree (test/slicer/stand-in: Slicer's extension machinery, with its checks) and a given ITK:
#   1. configure slicer/ with Slicer_DIR at the stand-in; the superbuild configures this repository against that
#      ITK (the tools only) and then the inner build;
#   2. build: the tools, then the inner build, which copies each CLI module into the build tree's CLI module folder;
#   3. `cpack` in the inner build: the extension's package, checked to hold every CLI module in Slicer's CLI module
#      folder and the extension's description; every tool of the build that answers --xml must be one of them;
#   4. unpack it and run each module from there as Slicer does: --xml in under 5 s, on standard output only, a
#      SlicerExecutionModel <executable>; and the phantom module end to end.
#
#   extension-test.sh --source DIR --work DIR --itk-dir DIR [--generator G] [-- ITKMBIR_CMAKE_ARGS...]
#
# ITKMBIR_CMAKE_ARGS go to the configuration of the tools (the superbuild's ITKMBIR_CMAKE_ARGS); no value may hold ';'.
set -euo pipefail

source_dir= work= itk_dir= generator=Ninja
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source_dir=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --itk-dir) itk_dir=$2; shift 2 ;;
    --generator) generator=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "extension-test.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$source_dir" ] && [ -n "$work" ] && [ -n "$itk_dir" ] || { echo "usage: see the top of $0" >&2; exit 2; }
itkmbir_args=$(IFS=';'; echo "$*")
start=$(date +%s)
stamp() { echo "[extension-test $(( $(date +%s) - start ))s] $*"; }
fail() { echo "extension-test.sh: FAILED: $*" >&2; exit 1; }
run() { # runs a step, its output in a log; shows the log's end when it fails
  local log=$1; shift
  if ! "$@" > "$log" 2>&1; then
    tail -n 60 "$log"
    fail "$*"
  fi
}

mkdir -p "$work"
work=$(cd "$work" && pwd)
build="$work/build"
rm -rf "$build" "$work/package" "$work/slicer-stand-in"
# The stand-in Slicer build tree, its ITK the one given.
cp -r "$source_dir/test/slicer/stand-in" "$work/slicer-stand-in"
echo "set(ITK_DIR \"$itk_dir\")" > "$work/slicer-stand-in/SlicerITK.cmake"
launchers=()
if command -v ccache >/dev/null 2>&1; then
  launchers=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

stamp "configuring slicer/ against the Slicer stand-in and ITK at $itk_dir"
run "$work/configure.log" cmake -S "$source_dir/slicer" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  "${launchers[@]}" -DSlicer_DIR="$work/slicer-stand-in" \
  "-DITKMBIR_CMAKE_ARGS=$itkmbir_args"
stamp "building the tools and the inner build (log: $work/build.log)"
run "$work/build.log" nice -n 5 cmake --build "$build"

# The CLI modules the extension declares, one per subdirectory.
mapfile -t modules < <(sed -n 's/^mbir_cli_module(\([a-z-]*\))$/\1/p' "$source_dir"/slicer/*/CMakeLists.txt | sort)
[ "${#modules[@]}" -ge 9 ] || fail "only ${#modules[@]} mbir_cli_module() calls in slicer/*/CMakeLists.txt"
# The stand-in's folders (its SlicerConfig.cmake): lib/ and share/ Slicer-<major>.<minor>.
stand_in="$source_dir/test/slicer/stand-in/SlicerConfig.cmake"
version=$(sed -n 's/^set(Slicer_VERSION_MAJOR \([0-9]*\))$/\1/p' "$stand_in").$(
          sed -n 's/^set(Slicer_VERSION_MINOR \([0-9]*\))$/\1/p' "$stand_in")
cli_dir="lib/Slicer-$version/cli-modules"
share_dir="share/Slicer-$version"
for module in "${modules[@]}"; do
  [ -x "$build/inner-build/$cli_dir/$module" ] || fail "$module is not in the build tree's CLI module folder $cli_dir"
done

# Every tool that describes itself as a CLI module is one of the extension's.
for tool in "$build"/ITKMBIR-build/bin/*; do
  name=$(basename "$tool")
  [ -x "$tool" ] && timeout 5 "$tool" --xml 2>/dev/null | head -c 5 | grep -q '<?xml' || continue
  printf '%s\n' "${modules[@]}" | grep -qx "$name" || fail "the tool $name answers --xml but slicer/ has no module for it"
done

stamp "packaging (cpack in the inner build)"
run "$work/cpack.log" bash -c "cd '$build/inner-build' && cpack"
package=$(ls "$build"/inner-build/*-ITKMBIR.tar.gz 2>/dev/null | head -n 1)
[ -n "$package" ] || fail "cpack made no *-ITKMBIR.tar.gz in $build/inner-build"
mkdir -p "$work/package"
tar -xzf "$package" -C "$work/package"
root=$(find "$work/package" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -f "$root/$share_dir/ITKMBIR.s4ext" ] || fail "the package has no $share_dir/ITKMBIR.s4ext"
grep -qx "category Reconstruction" "$root/$share_dir/ITKMBIR.s4ext" ||
  fail "the extension's description does not say category Reconstruction"
packaged=$(cd "$root/$cli_dir" && ls | sort | paste -sd' ')
[ "$packaged" = "${modules[*]}" ] || fail "the package's CLI modules are '$packaged', not '${modules[*]}'"

# The catalogue entry agrees with the extension's CMake description.
python3 - "$source_dir/slicer" <<'PY' || fail "slicer/ITKMBIR.json disagrees with slicer/CMakeLists.txt"
import json, re, sys
folder = sys.argv[1]
entry = json.load(open(f"{folder}/ITKMBIR.json"))
cmake = open(f"{folder}/CMakeLists.txt").read()
value = lambda name: re.search(rf'set\({name} "?([^")]*)"?\)', cmake).group(1)
assert entry["build_subdirectory"] == value("EXTENSION_BUILD_SUBDIRECTORY"), entry
assert entry["category"] == value("EXTENSION_CATEGORY"), entry
PY

stamp "running the packaged modules"
for module in "${modules[@]}"; do
  exe="$root/$cli_dir/$module"
  begin=$(date +%s%N)
  timeout 5 "$exe" --xml > "$work/$module.xml" 2> "$work/$module.err" || fail "$module --xml failed or took over 5 s"
  ms=$(( ($(date +%s%N) - begin) / 1000000 ))
  [ ! -s "$work/$module.err" ] || fail "$module --xml wrote to standard error: $(head -c 300 "$work/$module.err")"
  python3 - "$work/$module.xml" <<'PY' || fail "$module --xml is not a SlicerExecutionModel description"
import sys, xml.etree.ElementTree as ET
text = open(sys.argv[1]).read()
assert text.startswith("<?xml"), text[:40]
root = ET.fromstring(text)
assert root.tag == "executable", root.tag
for tag in ("category", "title", "description"):
    assert (root.findtext(tag) or "").strip(), tag
assert root.find("parameters") is not None
PY
  echo "  $module: --xml in $ms ms"
done
export MBIR_PROGRESS=none
{ "$root/$cli_dir/mbir-geometry" --views 8 --rows 4 --channels 16 --output "$work/geometry.json" &&
  "$root/$cli_dir/mbir-phantom" --geometry "$work/geometry.json" --output "$work/phantom.nrrd"; } > "$work/phantom.log" 2>&1 ||
  { cat "$work/phantom.log"; fail "the packaged mbir-geometry and mbir-phantom did not run"; }
[ -s "$work/phantom.nrrd" ] || fail "the packaged mbir-phantom wrote no volume"
stamp "passed: ${#modules[@]} CLI modules built, packaged ($(basename "$package")) and run"
