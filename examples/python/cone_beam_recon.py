"""Cone-beam MBIR and FDK from NumPy, the sinogram uploaded once and reused, the result left on the devices.
    python cone_beam_recon.py"""
import numpy as np

import itk_mbir

views, rows, channels = 72, 24, 64
model = itk_mbir.ConeBeamModel((views, rows, channels), np.linspace(0, 2 * np.pi, views, endpoint=False),
                               source_detector_dist=256.0, source_iso_dist=128.0)
phantom = model.gen_modified_3d_sl_phantom()
sinogram = model.forward_project(phantom)
sinogram += 0.03 * sinogram.std() * np.random.default_rng(0).standard_normal(sinogram.shape).astype(np.float32)

prepared = model.prepare_sinogram(sinogram)          # crosses to the devices once
recon, log = model.recon(prepared, output="device")  # stays there, split by slice over the devices
print(recon)
recon = recon.to_numpy()
fdk = model.direct_recon(sinogram)
for name, volume in (("FDK", fdk), ("MBIR", recon)):
    print(f"{name} NRMSE {np.linalg.norm(volume - phantom) / np.linalg.norm(phantom):.4f}")
