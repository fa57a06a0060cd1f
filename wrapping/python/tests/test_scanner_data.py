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


def test_tiff_folder_through_mbir_import(tools_dir, tmp_path):
    """The README's path from scanner files to Python: TIFFs written by ITK's own writer, a sidecar, mbir-import,
    then read_geometry, itk.imread, preprocessing, the centre estimate and a recon."""
    itk = pytest.importorskip("itk")
    import json
    import subprocess

    views, rows, channels = 90, 4, 64
    angles = np.linspace(0, 360, views, endpoint=False)
    true = itk_mbir.ParallelBeamModel((views, rows, channels), np.deg2rad(angles), det_channel_offset=-2.4,
                                      delta_det_channel=0.25, delta_det_row=0.25)
    phantom = true.gen_modified_3d_sl_phantom()
    line_integrals = true.forward_project(phantom)
    scale = 2.0 / line_integrals.max()
    counts = np.round(1e4 * np.exp(-scale * line_integrals) + 100.0).astype(np.uint16)
    for v in range(views):
        itk.imwrite(itk.image_from_array(np.ascontiguousarray(counts[v])), str(tmp_path / f"proj_{v:04d}.tif"))
    for name, level in (("dark", 100), ("bright", 10100)):
        itk.imwrite(itk.image_from_array(np.full((rows, channels), level, np.uint16)), str(tmp_path / f"{name}.tif"))
    (tmp_path / "scan.json").write_text(json.dumps({
        "geometry": "parallel", "projections": "proj_*.tif", "angles": angles.tolist(), "angle_unit": "degree",
        "pixel_size": 0.25, "dark": "dark.tif", "bright": "bright.tif"}))
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([str(tools_dir / "mbir-import"), "--tiff-folder", str(tmp_path), "--sidecar",
                    str(tmp_path / "scan.json"), "--geometry", str(out / "geometry.json"), "--projections",
                    str(out / "raw.nrrd"), "--dark", str(out / "dark.nrrd"), "--bright", str(out / "bright.nrrd")],
                   check=True, capture_output=True)

    geometry = itk_mbir.read_geometry(str(out / "geometry.json"))
    raw = itk.array_from_image(itk.imread(str(out / "raw.nrrd")))  # [view, row, channel] in NumPy order
    assert raw.shape == (views, rows, channels)
    np.testing.assert_array_equal(raw, counts.astype(np.float32))
    dark = itk.array_from_image(itk.imread(str(out / "dark.nrrd")))
    bright = itk.array_from_image(itk.imread(str(out / "bright.nrrd")))
    # Noise-free counts: the bad-cell test would take sharp edges for defects (it expects noise to gauge by).
    sinogram, weights, _ = itk_mbir.preprocess_transmission(raw, dark=dark, bright=bright, detect_bad_pixels=False)
    np.testing.assert_allclose(sinogram, scale * line_integrals, atol=2e-3)

    centre = itk_mbir.estimate_rotation_center(geometry, sinogram, weights)
    # det_channel_offset is in ALU (mm here): -2.4 mm is -9.6 channels of 0.25 mm.
    assert centre["channels"] == pytest.approx(-9.6, abs=0.1), centre["method"]
    assert centre["det_channel_offset"] == pytest.approx(-2.4, abs=0.025)
    model = itk_mbir.TomographyModel(geometry)
    model.set_params(det_channel_offset=centre["det_channel_offset"])
    recon, _ = model.recon(sinogram, weights=weights)
    assert nrmse(recon / scale, phantom) < 0.2
