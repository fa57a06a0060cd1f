"""Runs every Python example as a user would and checks what it prints."""
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent


def run(name, *args, cwd):
    return subprocess.run([sys.executable, str(HERE / name), *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout


def nrmse_of(output, name):
    return float(re.search(rf"{name} NRMSE ([0-9.]+)", output).group(1))


def test_parallel_beam(tmp_path):
    out = run("parallel_beam_recon.py", str(tmp_path / "recon.npy"), cwd=tmp_path)
    assert nrmse_of(out, "MBIR") < nrmse_of(out, "FBP") and (tmp_path / "recon.npy").exists()


def test_cone_beam(tmp_path):
    out = run("cone_beam_recon.py", cwd=tmp_path)
    assert "DeviceArray" in out and nrmse_of(out, "MBIR") < nrmse_of(out, "FDK")


def test_itk_pipeline(tmp_path):
    pytest.importorskip("itk", reason="needs the itk wheels")
    out = run("itk_pipeline.py", str(tmp_path), cwd=tmp_path)
    assert nrmse_of(out, "MBIR") < 0.3 and (tmp_path / "recon.nrrd").exists()
    assert "volume spacing (0.2, 0.2, 0.2)" in out


def test_denoise(tmp_path):
    out = run("denoise_volume.py", cwd=tmp_path)
    assert nrmse_of(out, "denoised") < nrmse_of(out, "noisy")


def test_gpu_arrays(tmp_path):
    out = run("gpu_arrays.py", cwd=tmp_path)
    if out.startswith("skipped"):
        pytest.skip(out.strip())
    assert nrmse_of(out, "MBIR") < 0.3
