#!/usr/bin/env bash
# Creates (or updates) the virtual environment the Python package is built and tested in:
#   scripts/python-env.sh DIR     nanobind and scikit-build-core to build, NumPy, pytest, the itk wheels and matplotlib
#                                 (the slice viewer) to test
set -euo pipefail
dir=${1:?usage: scripts/python-env.sh DIR}
python=$(command -v python3)
[ -x /usr/bin/python3 ] && python=/usr/bin/python3 # Debian's, whose headers python3-dev installs
if [ ! -x "$dir/bin/python" ]; then
  "$python" -m venv "$dir"
fi
"$dir/bin/python" -m pip install -q --upgrade pip
"$dir/bin/python" -m pip install -q "nanobind>=2.4" "scikit-build-core>=0.10" "numpy>=1.23" pytest "itk-core>=5.4" \
  matplotlib
