"""Zero-copy GPU arrays: a CuPy sinogram reconstructed in place on the GPUs, the result imported by CuPy
without a copy. Exits with a message (status 0) where there is no GPU or no CuPy.
    python gpu_arrays.py"""
import sys

import numpy as np

import itk_mbir

if itk_mbir.gpu_count() == 0:
    print(f"skipped: no GPU ({itk_mbir.gpu_unavailable_reason()})")
    sys.exit(0)
try:
    import cupy
except ImportError:
    print("skipped: CuPy is not installed (pip install cupy-cuda12x)")
    sys.exit(0)

model = itk_mbir.ParallelBeamModel((128, 32, 128), np.linspace(0, np.pi, 128, endpoint=False))
phantom = model.gen_modified_3d_sl_phantom()
sinogram = cupy.asarray(model.forward_project(phantom))         # on the GPU
recon, log = model.recon(sinogram, output="device")             # read in place, result left on the GPU(s)
volume = cupy.from_dlpack(recon) if len(recon.devices) == 1 else cupy.asarray(recon.to_numpy())
print(log["device_summary"], volume.shape, volume.device)
print(f"MBIR NRMSE {float(cupy.linalg.norm(volume - cupy.asarray(phantom)) / np.linalg.norm(phantom)):.4f}")
