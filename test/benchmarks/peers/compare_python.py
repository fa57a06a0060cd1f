"""The cost of the Python layer, and MBIRJAX's own Python API on the same problem.

Reconstructs the demo's sinogram (scripts/demo.sh writes build/demo/) three ways, each timed on its
recon call alone, in one run of this script:
  C++       build/bin/mbir-recon (the time on its summary line)
  Python    itk_mbir's ParallelBeamModel / ConeBeamModel.recon on the same geometry file
  MBIRJAX   mbirjax's model.recon (when mbirjax is installed)
Usage: python compare_python.py [DEMO_DIR] [TOOLS_DIR]     (PYTHONPATH=build/python)
"""

import json
import re
import subprocess
import sys
import time

import itk
import numpy as np

import itk_mbir
from peers_common import make_mbirjax_model

demo = sys.argv[1] if len(sys.argv) > 1 else "build/demo"
tools = sys.argv[2] if len(sys.argv) > 2 else "build/bin"
geometry_path, sinogram_path = f"{demo}/geometry.json", f"{demo}/sinogram.nrrd"
phantom = itk.array_from_image(itk.imread(f"{demo}/phantom.nrrd", itk.F)).transpose(1, 2, 0)
sinogram = itk.array_from_image(itk.imread(sinogram_path, itk.F))


def nrmse(x):
    return float(np.linalg.norm(np.asarray(x) - phantom) / np.linalg.norm(phantom))


def cpp_seconds():
    out = subprocess.run([f"{tools}/mbir-recon", "--geometry", geometry_path, "--input", sinogram_path,
                          "--reference", f"{demo}/phantom.nrrd", "--output", f"{demo}/recon-cpp.nrrd"],
                         check=True, capture_output=True, text=True).stdout
    line = out.strip().splitlines()[-1]
    return float(re.search(r" ([0-9.]+) s on ", line).group(1)), float(re.search(r"NRMSE ([0-9.]+)", line).group(1))


def python_seconds():
    geometry = itk_mbir.read_geometry(geometry_path)
    model = itk_mbir.TomographyModel(geometry)
    start = time.perf_counter()
    recon, _ = model.recon(sinogram)
    return time.perf_counter() - start, nrmse(recon)


def mbirjax_seconds():
    import mbirjax
    model = make_mbirjax_model(mbirjax, json.load(open(geometry_path)), sinogram.shape)
    model.recon(sinogram, print_logs=False)  # compiles
    start = time.perf_counter()
    recon, _ = model.recon(sinogram, print_logs=False)
    return time.perf_counter() - start, nrmse(recon)


# C++ and Python alternate over three rounds (the best of each counts), so that the machine's noise hits both.
results = {}
for _ in range(3):
    for name, run in (("C++", cpp_seconds), ("Python", python_seconds)):
        seconds, error = run()
        results[name] = min(results.get(name, (seconds, error)), (seconds, error))
try:
    import mbirjax  # noqa: F401
    results["MBIRJAX"] = mbirjax_seconds()
except ImportError:
    print("MBIRJAX: not installed, skipped")
for name, (seconds, error) in results.items():
    print(f"{name:8s} {seconds:7.2f} s  NRMSE {error:.4f}")
print(f"Python layer overhead: {100 * (results['Python'][0] / results['C++'][0] - 1):+.1f} %")
if "MBIRJAX" in results:
    print(f"MBIRJAX / Python time: {results['MBIRJAX'][0] / results['Python'][0]:.2f}x")
