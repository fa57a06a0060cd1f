#!/usr/bin/env bash
# Runs the MBIR command-line tools as Slicer CLI modules through Slicer's own CLI machinery, headlessly
# (test/slicer/README.md):
#
#   test/slicer/test-slicer-cli.sh [--venv DIR] [--bin DIR] [pytest arguments...]
#
#   --venv DIR  the virtual environment with slicer-core and pytest, made if missing
#               (default $MBIR_SLICER_VENV, else <repository>/build/slicer-venv)
#   --bin DIR   the folder of the mbir-* executables (default $MBIR_TOOLS_DIR, else <repository>/build/bin)
#
# It makes the venv from CPython 3.11 (slicer-core is a cp311 wheel; Debian 12's /usr/bin/python3 is 3.11),
# pip-installs slicer-core (which brings vtk) and pytest, builds the CLI registration bridge with g++ against
# the wheel's libraries (into the venv, rebuilt when its source changes), checks that the bridge loads beside
# `import slicer`, and runs the pytest suite of this folder. Where it cannot (no Python 3.11, no venv module
# and no root to install it, pip cannot reach the index, no g++/nm, the bridge does not load) it prints the
# reason and exits 77, which ctest reports as skipped. Tools that print no XML yet are skipped by pytest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${MBIR_SLICER_VENV:-$root/build/slicer-venv}
bin=${MBIR_TOOLS_DIR:-$root/build/bin}
while [ $# -gt 0 ]; do
  case $1 in
    --venv) venv=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) break ;;
  esac
done
# The slicer-core release the bridge was written and checked against; MBIR_SLICER_CORE_SPEC overrides it.
spec=${MBIR_SLICER_CORE_SPEC:-"slicer-core~=5.13.0"}

skip() {
  echo "test-slicer-cli: SKIPPED: $*" >&2
  exit 77
}
as_root() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

# CPython 3.11 for the cp311 wheel.
python=""
for candidate in /usr/bin/python3 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    python=$(command -v "$candidate")
    break
  fi
done
[ -n "$python" ] || skip "slicer-core is a CPython 3.11 wheel and no python3.11 was found"

# The venv (Debian packages the venv module apart: python3-venv).
if [ ! -x "$venv/bin/python" ]; then
  if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv"
    if as_root; then
      echo "test-slicer-cli: installing python3-venv" >&2
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null) ||
        skip "cannot install python3-venv with apt-get"
      "$python" -m venv "$venv" || skip "cannot create a virtual environment at $venv"
    else
      skip "cannot create a virtual environment ($python -m venv failed: install python3-venv)"
    fi
  fi
fi
has_packages='import importlib.util as u, sys; sys.exit(not (u.find_spec("slicer_core") and u.find_spec("pytest")))'
if ! "$venv/bin/python" -c "$has_packages" 2>/dev/null; then
  echo "test-slicer-cli: installing $spec and pytest into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "$spec" pytest ||
    skip "pip cannot install $spec (no access to the package index?)"
fi

# The bridge, built against the wheel's libMRMLCLI.so and libModuleDescriptionParser.so with their
# std::string ABI.
command -v g++ >/dev/null 2>&1 || skip "no g++ to build the CLI registration bridge"
command -v nm >/dev/null 2>&1 || skip "no nm (binutils) to read the wheel's std::string ABI"
core=$("$venv/bin/python" -c \
  'import importlib.util as u; print(u.find_spec("slicer_core").submodule_search_locations[0])')
cli_library=$core/libMRMLCLI.so
parser_library=$core/third_party.libs/libModuleDescriptionParser.so
[ -f "$cli_library" ] && [ -f "$parser_library" ] ||
  skip "the slicer-core wheel has no libMRMLCLI.so or third_party.libs/libModuleDescriptionParser.so"
target=$(nm -D --defined-only "$parser_library" | grep -E ' _ZN17ModuleDescription9SetTarget' || true)
case $target in
  *__cxx11*) abi=1 ;;
  *ERKSs*) abi=0 ;;
  *) skip "the wheel's libModuleDescriptionParser.so exports no ModuleDescription::SetTarget" ;;
esac
bridge_dir=$venv/mbir-slicer-bridge
bridge=$bridge_dir/libmbirSlicerCLIBridge.so
source=$here/mbirSlicerCLIBridge.cxx
if [ ! -f "$bridge" ] || [ "$source" -nt "$bridge" ] || [ "$0" -nt "$bridge" ] || [ "$cli_library" -nt "$bridge" ]; then
  mkdir -p "$bridge_dir"
  # --allow-shlib-undefined: the two libraries' own dependencies (VTK, ITK) are resolved when Python has
  # imported slicer, before the bridge is loaded.
  g++ -std=c++17 -O1 -fPIC -shared -fvisibility=hidden -Wall -D_GLIBCXX_USE_CXX11_ABI=$abi "$source" \
    -o "$bridge.tmp" -L"$core" -L"$core/third_party.libs" -l:libMRMLCLI.so -l:libModuleDescriptionParser.so \
    -Wl,-rpath,"$core:$core/third_party.libs" -Wl,--no-undefined -Wl,--allow-shlib-undefined ||
    skip "the CLI registration bridge does not build"
  mv "$bridge.tmp" "$bridge"
fi

export PYTHONDONTWRITEBYTECODE=1 MBIR_SLICER_BRIDGE=$bridge MBIR_TOOLS_DIR=$bin
probe=$("$venv/bin/python" -c '
import sys
sys.path.insert(0, sys.argv[1])
import mbir_slicer_harness as h
try:
    h.load()
except h.Unavailable as e:
    print("UNAVAILABLE:", e)
' "$here" 2>&1) || skip "the probe of slicer-core and the bridge failed: $(echo "$probe" | tail -n 3)"
reason=$(echo "$probe" | sed -n 's/^UNAVAILABLE: //p')
[ -z "$reason" ] || skip "$reason"

cd "$root"
exec "$venv/bin/python" -m pytest -p no:cacheprovider -rs -q "$here" "$@"
