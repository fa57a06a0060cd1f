"""Raw transmission counts through preprocessing and the centre estimate, from Python."""

import numpy as np
import pytest

import itk_mbir
from conftest import nrmse


def test_raw_counts_to_a_recon():
    views, rows, channels = 64, 6, 96
    angles = np.linspace(0, 2 * np.pi, views, endpoint=False)
    true = itk_mbir.ParallelBeamModel((views, rows, channels), angles, det_channel_offset=3.3)
    phantom = true.gen_modified_3d_sl_phantom()
    line_integrals = true.forward_project(phantom)
    scale = 2.0 / line_integrals.max()
    rng = np.random.default_rng(5)
    flat = 1e4 * (1 + 0.1 * np.sin(0.3 * np.arange(channels)))[np.newaxis, :] * np.ones((rows, 1))
    dark = np.full((rows, channels), 100.0)
    counts = rng.poisson(flat * np.exp(-scale * line_integrals)).astype(np.float32) + 100.0
    counts[:, 2, 40] = 100.0  # a dead cell
    counts[3, 1, 20] = np.nan
    bright = np.stack([rng.poisson(flat) + 100.0 for _ in range(4)]).astype(np.float32)
    before = counts.copy()

    sinogram, weights, report = itk_mbir.preprocess_transmission(counts, dark=dark, bright=bright)
    np.testing.assert_array_equal(np.isnan(before), np.isnan(counts))  # the input is untouched
    assert np.isfinite(sinogram).all() and sinogram.shape == counts.shape
    assert (weights[:, 2, 40] == 0).all() and weights[3, 1, 20] == 0
    assert report["dead"] >= 1 and report["bad_cell_mask"][0, 2, 40] != 0

    nominal = itk_mbir.ParallelBeamModel((views, rows, channels), angles)
    centre = itk_mbir.estimate_rotation_center(nominal.geometry, sinogram, weights)
    assert centre["channels"] == pytest.approx(3.3, abs=0.1), centre["method"]
    nominal.set_params(det_channel_offset=centre["det_channel_offset"])
    recon, _ = nominal.recon(sinogram, weights=weights)
    assert nrmse(recon / scale, phantom) < 0.3


def test_bad_preprocessing_input():
    with pytest.raises(ValueError, match="unknown parameter 'rings'"):
        itk_mbir.preprocess_transmission(np.ones((4, 2, 8), np.float32), rings=True)
    with pytest.raises(ValueError, match="counts must be 3-D"):
        itk_mbir.preprocess_transmission(np.ones((2, 8), np.float32))
