"""Parallel-beam MBIR from NumPy, MBIRJAX style: simulate a noisy scan of the phantom, reconstruct, compare.
    python parallel_beam_recon.py [OUTPUT.npy]"""
import sys

import numpy as np

import itk_mbir

views, rows, channels = 64, 16, 64
angles = np.linspace(0, np.pi, views, endpoint=False)
model = itk_mbir.ParallelBeamModel((views, rows, channels), angles)
phantom = model.gen_modified_3d_sl_phantom()                      # (rows, cols, slices)
sinogram = model.forward_project(phantom)                          # (views, rows, channels)
sinogram += 0.03 * sinogram.std() * np.random.default_rng(0).standard_normal(sinogram.shape).astype(np.float32)

model.set_params(sharpness=1.0, verbose=1)
recon, log = model.recon(sinogram, progress=True)
fbp = model.direct_recon(sinogram)
for name, volume in (("FBP", fbp), ("MBIR", recon)):
    print(f"{name} NRMSE {np.linalg.norm(volume - phantom) / np.linalg.norm(phantom):.4f}")
print(f"ran on {log['device_summary']}, sigma_y {log['sigma_y']:.4g}")
if len(sys.argv) > 1:
    np.save(sys.argv[1], recon)
