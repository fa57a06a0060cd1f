"""The README's install command in a clean virtual environment: `pip install .` from the repository, then
`import itk_mbir` from another directory. Slow (it compiles the engine), so it runs when ITK_MBIR_TEST_INSTALL=1
(ctest's python-install test sets it); it skips otherwise."""

import os
import subprocess
import sys
import venv

import pytest

from conftest import REPO

pytestmark = pytest.mark.skipif(os.environ.get("ITK_MBIR_TEST_INSTALL") != "1",
                                reason="set ITK_MBIR_TEST_INSTALL=1 to build and install the wheel (minutes)")


def test_pip_install_in_a_clean_venv(tmp_path):
    venv.create(tmp_path / "venv", with_pip=True)
    python = str(tmp_path / "venv" / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", str(REPO)], check=True)
    out = subprocess.run([python, "-c", "import itk_mbir, numpy; print(itk_mbir.__version__); "
                          "m = itk_mbir.ParallelBeamModel((8, 2, 8), numpy.linspace(0, 3.14, 8)); "
                          "print(m.forward_project(numpy.ones(m.geometry.recon_shape, 'f')).shape)"],
                         cwd=tmp_path, check=True, capture_output=True, text=True).stdout.split()
    assert out[0].count(".") == 2 and out[1:] == ["(8,", "2,", "8)"]
    stubs = subprocess.run([python, "-c", "import itk_mbir, os; print(os.listdir(os.path.dirname(itk_mbir.__file__)))"],
                           cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    assert "_engine.pyi" in stubs and "py.typed" in stubs
