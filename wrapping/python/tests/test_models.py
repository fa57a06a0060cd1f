"""The MBIRJAX-style model API: projections, recon quality, parameters, devices, errors, progress, interruption."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
import pytest

import itk_mbir
from conftest import nrmse


def test_version_and_summary():
    assert itk_mbir.__version__.count(".") == 2
    assert itk_mbir.device_summary().startswith("1 x ") or "x GPU" in itk_mbir.device_summary()


def test_projectors_are_adjoint(parallel_scan):
    model, _, _ = parallel_scan
    rng = np.random.default_rng(1)
    x = rng.random(model.geometry.recon_shape, dtype=np.float32)
    y = rng.random(model.geometry.sinogram_shape, dtype=np.float32)
    lhs = np.vdot(model.forward_project(x).astype(np.float64), y)
    rhs = np.vdot(x.astype(np.float64), model.back_project(y))
    # Outside the ROR the forward projection ignores voxels and the back projection writes zero.
    assert lhs == pytest.approx(rhs, rel=1e-4)


def test_cone_projectors_are_adjoint():
    model = itk_mbir.ConeBeamModel((24, 10, 32), np.linspace(0, 2 * np.pi, 24, endpoint=False),
                                   source_detector_dist=300.0, source_iso_dist=150.0)
    rng = np.random.default_rng(2)
    x = rng.random(model.geometry.recon_shape, dtype=np.float32)
    y = rng.random((24, 10, 32), dtype=np.float32)
    assert np.vdot(model.forward_project(x).astype(np.float64), y) == pytest.approx(
        np.vdot(x.astype(np.float64), model.back_project(y)), rel=1e-4)


def test_recon_beats_direct_recon(parallel_scan):
    model, phantom, sinogram = parallel_scan
    recon, log = model.recon(sinogram)
    assert recon.shape == phantom.shape and recon.dtype == np.float32
    assert nrmse(recon, phantom) < 0.8 * nrmse(model.direct_recon(sinogram), phantom)
    assert nrmse(recon, phantom) < 0.2
    assert log["sigma_y"] > 0 and log["iterations"] and "x CPU" in log["device_summary"] or "GPU" in log["device_summary"]
    assert log["recon_params"]["sharpness"] == 1.0


def test_recon_matches_the_cpp_tool(parallel_scan, tools_dir, tmp_path):
    """The same sinogram through mbir-recon and through Python: the same engine, the same numbers."""
    itk = pytest.importorskip("itk")
    model, phantom, sinogram = parallel_scan
    model.geometry.write(str(tmp_path / "geometry.json"))
    sino_image = itk.image_view_from_array(sinogram)
    sino_image.SetSpacing(model.geometry.detector_spacing() + (1.0,))
    itk.imwrite(sino_image, str(tmp_path / "sinogram.nrrd"))
    subprocess.run([str(tools_dir / "mbir-recon"), "--geometry", str(tmp_path / "geometry.json"), "--input",
                    str(tmp_path / "sinogram.nrrd"), "--output", str(tmp_path / "recon.nrrd")], check=True,
                   capture_output=True, env={**os.environ, "MBIR_NUM_CPU_DEVICES": "1"})
    cpp = itk.array_from_image(itk.imread(str(tmp_path / "recon.nrrd"))).transpose(1, 2, 0)
    python, _ = model.recon(sinogram)
    assert nrmse(python, phantom) == pytest.approx(nrmse(cpp, phantom), abs=1e-5)
    assert np.max(np.abs(python - cpp)) < 1e-4 * np.max(np.abs(cpp))


def test_parameters(parallel_scan):
    model, _, sinogram = parallel_scan
    model = itk_mbir.ParallelBeamModel(model.geometry.sinogram_shape, model.geometry.angles)
    model.set_params(sharpness=2.0, snr_db=35.0, det_channel_offset=0.5)
    assert model.get_params(["sharpness", "snr_db", "det_channel_offset"]) == [2.0, 35.0, 0.5]
    assert model.get_params("recon_shape") == (48, 48, 12)
    with pytest.raises(ValueError, match="unknown parameter 'sharpnes'"):
        model.set_params(sharpnes=1.0)
    with pytest.raises(ValueError, match="unknown parameter 'not_a_parameter'"):
        itk_mbir.ParallelBeamModel((4, 2, 4), np.zeros(4))._reconstructor().set_params({"not_a_parameter": 1})
    _, log = model.recon(sinogram, max_iterations=2)
    assert len(log["iterations"]) == 2
    assert model.get_params("max_iterations") == 15  # a call's override does not stick


def test_prior_loss_only_when_asked(parallel_scan):
    model, _, sinogram = parallel_scan
    recon, log = model.recon(sinogram, max_iterations=2, print_logs=False)
    assert all(np.isnan(line["prior_loss"]) and np.isnan(line["total_cost"]) for line in log["iterations"])
    again, log = model.recon(sinogram, max_iterations=2, print_logs=False, compute_prior_loss=True)
    assert all(0 < line["prior_loss"] < line["total_cost"] for line in log["iterations"])
    np.testing.assert_array_equal(again, recon)  # the loss is only reported: the same recon


def test_help_shows_parameters_units_and_defaults():
    doc = itk_mbir.ConeBeamModel.__init__.__doc__
    for text in ("source_detector_dist [ALU] (required)", "angles [rad] (required)", "delta_det_channel [ALU] (default 1)"):
        assert text in doc
    assert str(itk_mbir.ConeBeamModel.__init__.__signature__).startswith(
        "(self, sinogram_shape, angles, source_detector_dist, source_iso_dist, *")
    assert "progress" in itk_mbir.TomographyModel.recon.__doc__


def test_geometry_files_round_trip(tmp_path):
    geometry = itk_mbir.ConeBeamGeometry((20, 8, 24), np.linspace(0, 2 * np.pi, 20, endpoint=False), 400.0, 200.0,
                                         curved_detector=True, helical_z_shifts=np.linspace(-2, 2, 20))
    geometry.write(str(tmp_path / "cone.json"))
    again = itk_mbir.read_geometry(str(tmp_path / "cone.json"))
    assert type(again) is itk_mbir.ConeBeamGeometry and again == geometry
    assert json.loads(geometry.to_json())["curved_detector"] is True
    (tmp_path / "bad.json").write_text(geometry.to_json().replace('"source_iso_dist"', '"source_iso_distance"'))
    with pytest.raises(ValueError, match="bad.json.*source_iso_dist"):
        itk_mbir.read_geometry(str(tmp_path / "bad.json"))


def test_bad_input_names_the_argument(parallel_scan):
    model, phantom, sinogram = parallel_scan
    with pytest.raises(ValueError, match=r"sinogram has shape \(48, 12, 47\)"):
        model.recon(sinogram[:, :, :47])
    with pytest.raises(ValueError, match="sinogram must be 3-D"):
        model.recon(sinogram[0])
    bad = sinogram.copy()
    bad[3, 2, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN at \(view 3, row 2, channel 1\)"):
        model.recon(bad)
    with pytest.raises(ValueError, match="weights contains a negative value"):
        model.recon(sinogram, weights=-np.ones_like(sinogram))
    with pytest.raises(ValueError, match="init_recon has shape"):
        model.recon(sinogram, init_recon=phantom[:-1])
    with pytest.raises(ValueError, match="output must be"):
        model.recon(sinogram, output="gpu")
    with pytest.raises(ValueError, match="recon is not a numeric array"):
        model.forward_project([["a"]])
    with pytest.raises(ValueError, match="source_iso_dist"):
        itk_mbir.ConeBeamModel((8, 4, 8), np.zeros(8), source_detector_dist=10.0, source_iso_dist=-1.0).device_summary
    assert np.isfinite(sinogram).all()  # inputs are never modified


def test_inputs_used_in_place_and_converted_once(parallel_scan):
    from itk_mbir._arrays import engine_array
    model, _, sinogram = parallel_scan
    assert engine_array(sinogram, "sinogram") is sinogram  # float32, C-contiguous: no copy
    converted = engine_array(sinogram.astype(np.float64), "sinogram")
    assert converted.dtype == np.float32 and converted.flags.c_contiguous
    strided = engine_array(np.asfortranarray(sinogram), "sinogram")
    assert strided.flags.c_contiguous and np.array_equal(strided, sinogram)

    class CpuTensor:  # any producer of CPU DLPack (NumPy's own __dlpack__ here)
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    view = engine_array(CpuTensor(sinogram), "sinogram")
    assert np.shares_memory(view, sinogram)
    np.testing.assert_array_equal(model.direct_recon(CpuTensor(sinogram)), model.direct_recon(sinogram))


def test_device_output_is_dlpack_in_place(parallel_scan):
    model, _, sinogram = parallel_scan
    on_device, _ = model.recon(sinogram, max_iterations=2, output="device")
    host, _ = model.recon(sinogram, max_iterations=2)
    view = np.from_dlpack(on_device)  # a CPU device: its memory is host memory, read in place
    assert view.__array_interface__["data"][0] == on_device.shards()[0]["pointer"]
    np.testing.assert_array_equal(view, host)
    np.testing.assert_array_equal(on_device.to_numpy(), host)
    # A prepared sinogram is uploaded once and reused.
    prepared = model.prepare_sinogram(sinogram)
    before = model._reconstructor().devices[0].transfers()["uploaded_bytes"]
    again, _ = model.recon(prepared, max_iterations=2)
    np.testing.assert_allclose(again, host, rtol=1e-6, atol=1e-7)
    # Only the small tables of a recon go up (pixel lists, partitions), not the sinogram again.
    assert model._reconstructor().devices[0].transfers()["uploaded_bytes"] - before < sinogram.nbytes / 2


def test_progress_is_monotone_and_reaches_one(parallel_scan):
    model, _, sinogram = parallel_scan
    seen = []
    model.recon(sinogram, max_iterations=3, progress=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] == pytest.approx(1.0) and seen[0] > 0


def test_interruption_leaves_no_partial_result(parallel_scan):
    model, _, sinogram = parallel_scan

    def stop(fraction):
        if fraction > 0.2:
            signal.raise_signal(signal.SIGINT)  # what Ctrl-C does

    result = None
    with pytest.raises(KeyboardInterrupt):
        result = model.recon(sinogram, progress=stop)
    assert result is None
    with pytest.raises(itk_mbir.Aborted):
        model.recon(sinogram, progress=lambda fraction: fraction < 0.1)
    with pytest.raises(ZeroDivisionError):
        model.recon(sinogram, progress=lambda fraction: 1 / 0)
    recon, _ = model.recon(sinogram, max_iterations=1)  # the model still works, without the old callbacks
    assert np.isfinite(recon).all()


def test_checkpoint_at_ctrl_c_resumes_to_the_uninterrupted_result(parallel_scan, tmp_path):
    model, _, sinogram = parallel_scan
    run = dict(max_iterations=5, stop_threshold_change_pct=0.0)
    full, full_log = model.recon(sinogram, **run)
    checkpoint = tmp_path / "run.ckpt"

    def stop(fraction):
        if fraction > 0.5:
            signal.raise_signal(signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        model.recon(sinogram, progress=stop, checkpoint=checkpoint, **run)
    assert checkpoint.exists() and [p.name for p in tmp_path.iterdir()] == ["run.ckpt"]
    resumed, log = model.recon(sinogram, resume=checkpoint, **run)
    assert nrmse(resumed, full) < 1e-4
    assert len(log["iterations"]) == len(full_log["iterations"]) == 5
    changed = sinogram.copy()
    changed[0, 0, 0] += 1.0
    with pytest.raises(ValueError, match="other projections"):
        model.recon(changed, resume=checkpoint, **run)
    with pytest.raises(ValueError, match="checkpoint_every"):
        model.recon(sinogram, checkpoint=checkpoint, checkpoint_every=0, **run)


def test_denoise_reduces_noise():
    phantom = itk_mbir.generate_3d_shepp_logan_low_dynamic_range((40, 40, 12))
    noisy = phantom + 0.05 * np.random.default_rng(3).standard_normal(phantom.shape).astype(np.float32)
    denoised, log = itk_mbir.denoise(noisy, sharpness=1.0)
    assert nrmse(denoised, phantom) < 0.9 * nrmse(noisy, phantom)
    assert log["sigma_noise"] > 0  # estimated from the image
    given, log = itk_mbir.denoise(noisy, sigma_noise=0.05, sharpness=1.0, max_iterations=3)
    assert log["sigma_noise"] == pytest.approx(0.05) and len(log["iterations"]) <= 3
    assert nrmse(given, phantom) < nrmse(noisy, phantom)


def test_devices_do_not_change_the_result(parallel_scan):
    """MBIR_NUM_CPU_DEVICES=3 in a fresh process: 3 shards, the same recon to float rounding."""
    model, _, sinogram = parallel_scan
    reference, _ = model.recon(sinogram, max_iterations=3)
    script = textwrap.dedent("""
        import sys, numpy as np, itk_mbir
        sinogram = np.load(sys.argv[1])
        model = itk_mbir.ParallelBeamModel(sinogram.shape, np.linspace(0, np.pi, 48, endpoint=False), devices=3,
                                           use_gpu="none")
        recon, log = model.recon(sinogram, max_iterations=3)
        np.save(sys.argv[2], recon)
        print(log["device_summary"])
        print(itk_mbir.configure_devices([2, 0], use_gpu="none"))
        try:
            itk_mbir.configure_devices([5], use_gpu="none")
        except ValueError as error:
            print(error)
    """)
    with tempfile.TemporaryDirectory() as tmp:
        np.save(f"{tmp}/s.npy", sinogram)
        out = subprocess.run([sys.executable, "-c", script, f"{tmp}/s.npy", f"{tmp}/r.npy"], check=True,
                             capture_output=True, text=True, env={**os.environ, "MBIR_NUM_CPU_DEVICES": "4"}).stdout
        sharded = np.load(f"{tmp}/r.npy")
    lines = out.splitlines()
    assert lines[0].startswith("3 x CPU (sharded")
    assert lines[1].startswith("2 x CPU")
    assert "index 5 is out of range" in lines[2]
    np.testing.assert_allclose(sharded, reference, rtol=1e-4, atol=1e-4 * np.abs(reference).max())


@pytest.mark.skipif(itk_mbir.gpu_count() == 0, reason="needs a GPU: " + itk_mbir.gpu_unavailable_reason())
def test_gpu_arrays_in_place():
    cupy = pytest.importorskip("cupy", reason="needs CuPy for GPU arrays")
    angles = np.linspace(0, np.pi, 32, endpoint=False)
    model = itk_mbir.ParallelBeamModel((32, 8, 32), angles)
    phantom = itk_mbir.generate_3d_shepp_logan_low_dynamic_range(model.geometry.recon_shape)
    sinogram = model.forward_project(phantom)
    on_gpu = cupy.asarray(sinogram)
    recon_gpu, _ = model.recon(on_gpu, max_iterations=3, output="device")
    back = cupy.from_dlpack(recon_gpu)  # in place on the GPU
    host, _ = model.recon(sinogram, max_iterations=3)
    np.testing.assert_allclose(cupy.asnumpy(back), host, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="NaN or Inf"):
        model.recon(on_gpu * cupy.nan)
