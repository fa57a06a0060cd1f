"""The ITK Python functions: itk.Image in and out, physical metadata, in-place projections, and agreement
with the C++ filters through the command-line tools."""

import os
import subprocess

import numpy as np
import pytest

import itk_mbir
from conftest import nrmse

itk = pytest.importorskip("itk", reason="the ITK functions need the itk wheels (pip install itk-core)")


@pytest.fixture(scope="module")
def cone_scan():
    """A cone-beam geometry in mm (0.5 mm pixels), the phantom as an itk.Image and its projections."""
    geometry = itk_mbir.ConeBeamGeometry((40, 12, 40), np.linspace(0, 2 * np.pi, 40, endpoint=False), 200.0, 100.0,
                                         delta_det_channel=0.5, delta_det_row=0.5, recon_slice_offset=0.75)
    phantom = itk_mbir.generate_3d_shepp_logan_low_dynamic_range(geometry.recon_shape)
    volume = itk.image_view_from_array(np.ascontiguousarray(phantom.transpose(2, 0, 1)))
    volume.SetSpacing(geometry.volume_spacing())
    volume.SetOrigin(geometry.volume_origin())
    projections = itk_mbir.forward_projection_filter(volume, geometry=geometry)
    return geometry, phantom, volume, projections


def test_projections_carry_the_detector_frame(cone_scan):
    geometry, _, _, projections = cone_scan
    assert tuple(projections.GetLargestPossibleRegion().GetSize()) == (40, 12, 40)  # [channel, row, view]
    assert tuple(projections.GetSpacing()) == pytest.approx((0.5, 0.5, 1.0))
    assert tuple(projections.GetOrigin()) == pytest.approx((-0.5 * 0.5 * 39, -0.5 * 0.5 * 11, 0.0))


def test_volume_carries_the_physical_frame(cone_scan):
    geometry, phantom, _, projections = cone_scan
    volume = itk_mbir.mbir_reconstruction_filter(projections, geometry=geometry, sharpness=1.0, max_iterations=8)
    rows, cols, slices = geometry.recon_shape
    assert tuple(volume.GetLargestPossibleRegion().GetSize()) == (cols, rows, slices)
    pitch = 0.5 / 2.0  # channel pitch over the magnification
    assert tuple(volume.GetSpacing()) == pytest.approx((pitch, pitch, pitch))
    # Centred on the rotation axis in x and y, on the slice offset in z.
    assert tuple(volume.GetOrigin()) == pytest.approx(
        (-0.5 * pitch * (cols - 1), -0.5 * pitch * (rows - 1), -0.5 * pitch * (slices - 1) + 0.75))
    recon = itk.array_view_from_image(volume).transpose(1, 2, 0)
    direct = itk.array_view_from_image(itk_mbir.direct_reconstruction_filter(projections, geometry=geometry))
    assert nrmse(recon, phantom) < nrmse(direct.transpose(1, 2, 0), phantom)


def test_projections_are_read_in_place(cone_scan):
    from itk_mbir.itk_filters import _projections_view
    geometry, _, _, projections = cone_scan
    assert np.shares_memory(_projections_view(projections, geometry), itk.array_view_from_image(projections))


def test_back_projection_is_the_adjoint(cone_scan):
    geometry, _, volume, projections = cone_scan
    back = itk_mbir.back_projection_filter(projections, geometry=geometry)
    assert back.GetSpacing() == volume.GetSpacing() and back.GetOrigin() == volume.GetOrigin()
    x = itk.array_view_from_image(volume).astype(np.float64)
    y = itk.array_view_from_image(projections).astype(np.float64)
    assert np.vdot(y, y) == pytest.approx(np.vdot(x, itk.array_view_from_image(back)), rel=1e-4)


def test_denoise_keeps_metadata():
    array = np.random.default_rng(4).random((10, 12, 14), dtype=np.float32)
    image = itk.image_view_from_array(array)
    image.SetSpacing((0.3, 0.4, 0.5))
    image.SetOrigin((1.0, -2.0, 3.0))
    direction = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    image.SetDirection(itk.matrix_from_array(direction))
    denoised = itk_mbir.qggmrf_denoise_filter(image, sharpness=0.0, max_iterations=2)
    assert tuple(denoised.GetSpacing()) == (0.3, 0.4, 0.5) and tuple(denoised.GetOrigin()) == (1.0, -2.0, 3.0)
    np.testing.assert_array_equal(itk.array_from_matrix(denoised.GetDirection()), direction)
    assert np.std(itk.array_view_from_image(denoised)) < np.std(array)


def test_bad_images_are_refused(cone_scan):
    geometry, _, _, projections = cone_scan
    with pytest.raises(TypeError, match="projections must be an itk.Image"):
        itk_mbir.mbir_reconstruction_filter(np.zeros((40, 12, 40), np.float32), geometry=geometry)
    wrong = itk.image_from_array(np.zeros((40, 12, 41), np.float32))
    with pytest.raises(ValueError, match=r"size \(41, 12, 40\) \[channel, row, view\] but the geometry needs \(40, 12, 40\)"):
        itk_mbir.direct_reconstruction_filter(wrong, geometry=geometry)
    pitch = itk.image_from_array(itk.array_from_image(projections))  # spacing 1, not 0.5
    with pytest.raises(ValueError, match="spacing"):
        itk_mbir.direct_reconstruction_filter(pitch, geometry=geometry)
    with pytest.raises(TypeError, match="geometry must be an itk_mbir geometry"):
        itk_mbir.direct_reconstruction_filter(projections, geometry="scan.json")


def test_same_result_as_the_cpp_filters(cone_scan, tools_dir, tmp_path):
    """mbir-recon runs the C++ MBIRReconstructionFilter on the same files: same metadata, same values."""
    geometry, _, _, projections = cone_scan
    geometry.write(str(tmp_path / "geometry.json"))
    itk.imwrite(projections, str(tmp_path / "projections.nrrd"))
    subprocess.run([str(tools_dir / "mbir-recon"), "--geometry", str(tmp_path / "geometry.json"), "--input",
                    str(tmp_path / "projections.nrrd"), "--max-iterations", "4", "--output",
                    str(tmp_path / "recon.nrrd")], check=True, capture_output=True,
                   env={**os.environ, "MBIR_NUM_CPU_DEVICES": "1"})
    cpp = itk.imread(str(tmp_path / "recon.nrrd"))
    python = itk_mbir.mbir_reconstruction_filter(projections, geometry=geometry, max_iterations=4)
    assert tuple(python.GetSpacing()) == pytest.approx(tuple(cpp.GetSpacing()))
    assert tuple(python.GetOrigin()) == pytest.approx(tuple(cpp.GetOrigin()))
    a, b = itk.array_view_from_image(python), itk.array_view_from_image(cpp)
    assert np.max(np.abs(a - b)) < 1e-4 * np.max(np.abs(b))
