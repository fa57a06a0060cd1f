"""qGGMRF denoising of a noisy volume (NumPy), the noise level estimated from the image.
    python denoise_volume.py"""
import numpy as np

import itk_mbir

clean = itk_mbir.generate_3d_shepp_logan_low_dynamic_range((64, 64, 24))
noisy = clean + 0.05 * np.random.default_rng(0).standard_normal(clean.shape).astype(np.float32)
denoised, log = itk_mbir.denoise(noisy, sharpness=1.0)
print(f"estimated sigma_noise {log['sigma_noise']:.4f}")
for name, volume in (("noisy", noisy), ("denoised", denoised)):
    print(f"{name} NRMSE {np.linalg.norm(volume - clean) / np.linalg.norm(clean):.4f}")
