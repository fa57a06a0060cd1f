"""Shared fixtures: a small noisy parallel-beam scan of the phantom, and where the C++ tools are."""

import os
import pathlib

import numpy as np
import pytest

import itk_mbir

REPO = pathlib.Path(__file__).resolve().parents[3]


def nrmse(x, reference):
    return float(np.linalg.norm(np.asarray(x) - reference) / np.linalg.norm(reference))


def noisy_parallel_scan(views, rows, channels):
    """(model, phantom, sinogram): a half turn of the phantom with 30 dB Gaussian noise, as mbir-project adds."""
    angles = np.linspace(0, np.pi, views, endpoint=False)
    model = itk_mbir.ParallelBeamModel((views, rows, channels), angles)
    phantom = itk_mbir.generate_3d_shepp_logan_low_dynamic_range(model.geometry.recon_shape)
    clean = model.forward_project(phantom)
    noise = np.random.default_rng(0).standard_normal(clean.shape).astype(np.float32)
    sinogram = clean + noise * (np.linalg.norm(clean) / np.sqrt(clean.size) * 10 ** (-30 / 20))
    return model, phantom, sinogram.astype(np.float32)


@pytest.fixture(scope="session")
def parallel_scan():
    """48 views, 12 rows, 48 channels."""
    return noisy_parallel_scan(48, 12, 48)


@pytest.fixture
def pyplot():
    """matplotlib's pyplot on the offscreen Agg backend (the test skips without matplotlib); closes its figures."""
    matplotlib = pytest.importorskip("matplotlib", reason="needs matplotlib (pip install matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    yield plt
    plt.close("all")


@pytest.fixture(scope="session")
def tools_dir():
    """build/bin with the C++ command-line tools (scripts/test.sh builds them); the test skips without them."""
    path = pathlib.Path(os.environ.get("MBIR_TOOLS_DIR", REPO / "build" / "bin"))
    if not (path / "mbir-recon").exists():
        pytest.skip(f"the C++ tools are not built in {path} (set MBIR_TOOLS_DIR or run scripts/test.sh)")
    return path
