"""ITK Python functions on itk.Image objects, in the physical frame of the C++ filters (needs the itk wheels:
``pip install itk-mbir[itk]``).

Projections are itk.Image [channel, row, view] with spacing (channel pitch, row pitch, 1) in mm; volumes are
itk.Image [x = column, y = row, z = slice] with the geometry's voxel pitch as spacing, identity direction and
the origin that centres the grid on the rotation axis (on the slice offset in z).

Memory: projections are read in place (ITK's buffer is already the engine's (views, rows, channels) order);
a volume going in is copied once into the engine's (rows, cols, slices) order, and a volume coming out is
copied once into ITK's order, the itk.Image then viewing that copy.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._arrays import progress_hook
from .devices import DeviceChoice, device_selection
from .geometry import Geometry
from .models import TomographyModel, denoise

__all__ = ["mbir_reconstruction_filter", "direct_reconstruction_filter", "forward_projection_filter",
           "back_projection_filter", "qggmrf_denoise_filter"]


def _itk():
    try:
        import itk
    except ImportError:
        raise ImportError("the itk_mbir ITK functions need the itk wheels: pip install itk-core (or itk-mbir[itk])")
    return itk


def _require_image(image: Any, name: str) -> None:
    if not hasattr(image, "GetSpacing") or not hasattr(image, "GetLargestPossibleRegion"):
        raise TypeError(f"{name} must be an itk.Image, got {type(image).__name__}")
    if image.GetImageDimension() != 3:
        raise ValueError(f"{name} must be a 3-D itk.Image, got {image.GetImageDimension()}-D")


def _projections_view(projections: Any, geometry: Geometry, name: str = "projections") -> np.ndarray:
    """The (views, rows, channels) array of an itk.Image [channel, row, view], in place; checks size and spacing."""
    _require_image(projections, name)
    array = _itk().array_view_from_image(projections)
    if tuple(array.shape) != tuple(geometry.sinogram_shape):
        size = tuple(int(s) for s in projections.GetLargestPossibleRegion().GetSize())
        views, rows, channels = geometry.sinogram_shape
        raise ValueError(f"{name} have size {size} [channel, row, view] but the geometry needs "
                         f"({channels}, {rows}, {views})")
    spacing = tuple(float(s) for s in projections.GetSpacing())[:2]
    expected = geometry.detector_spacing()
    if not np.allclose(spacing, expected, rtol=1e-5):
        raise ValueError(f"{name} have spacing {spacing} (channel, row) but the geometry's detector pitch is {expected}")
    return array


def _volume_array(volume: Any, name: str) -> np.ndarray:
    """The (rows, cols, slices) array of an itk.Image [x, y, z]: a transposed view (copied once by the engine)."""
    _require_image(volume, name)
    return _itk().array_view_from_image(volume).transpose(1, 2, 0)


def _volume_image(recon: np.ndarray, geometry: Geometry) -> Any:
    image = _itk().image_view_from_array(np.ascontiguousarray(recon.transpose(2, 0, 1)))
    image.SetSpacing(geometry.volume_spacing())
    image.SetOrigin(geometry.volume_origin())
    return image


def _model(geometry: Geometry, devices: DeviceChoice, use_gpu: Optional[str], params: dict) -> TomographyModel:
    if not isinstance(geometry, Geometry):
        raise TypeError(f"geometry must be an itk_mbir geometry (e.g. itk_mbir.ConeBeamGeometry), got "
                        f"{type(geometry).__name__}")
    device_selection(devices, use_gpu)
    model = TomographyModel(geometry, devices, use_gpu)
    model.set_params(**params)
    return model


def mbir_reconstruction_filter(projections: Any, *, geometry: Geometry, weights: Any = None,
                               initial_image: Any = None, devices: DeviceChoice = None, use_gpu: Optional[str] = None,
                               progress: Any = None, **params: Any) -> Any:
    """MBIR of projections (itk.Image [channel, row, view]) into a volume itk.Image [x, y, z] in mm.

    params: the reconstruction parameters of TomographyModel (sharpness, snr_db, positivity, max_iterations,
    ...). weights: an itk.Image like the projections. initial_image: a volume itk.Image or a number.
    """
    model = _model(geometry, devices, use_gpu, params)
    sinogram = _projections_view(projections, geometry)
    w = None if weights is None else _projections_view(weights, geometry, "weights")
    init = initial_image if initial_image is None or isinstance(initial_image, (int, float)) else \
        _volume_array(initial_image, "initial_image")
    recon, _ = model.recon(sinogram, weights=w, init_recon=init, progress=progress)
    return _volume_image(recon, geometry)


def direct_reconstruction_filter(projections: Any, *, geometry: Geometry, devices: DeviceChoice = None,
                                 use_gpu: Optional[str] = None) -> Any:
    """The geometry's direct recon (FBP, FDK, ...) of projections, as a volume itk.Image."""
    model = _model(geometry, devices, use_gpu, {})
    return _volume_image(model.direct_recon(_projections_view(projections, geometry)), geometry)


def forward_projection_filter(volume: Any, *, geometry: Geometry, devices: DeviceChoice = None,
                              use_gpu: Optional[str] = None) -> Any:
    """Projections itk.Image [channel, row, view] of a volume itk.Image on the geometry's grid."""
    model = _model(geometry, devices, use_gpu, {})
    sinogram = model.forward_project(_volume_array(volume, "volume"))
    image = _itk().image_view_from_array(sinogram)
    channel_pitch, row_pitch = geometry.detector_spacing()
    views, rows, channels = geometry.sinogram_shape
    image.SetSpacing((channel_pitch, row_pitch, 1.0))
    image.SetOrigin((-0.5 * channel_pitch * (channels - 1), -0.5 * row_pitch * (rows - 1), 0.0))
    return image


def back_projection_filter(projections: Any, *, geometry: Geometry, devices: DeviceChoice = None,
                           use_gpu: Optional[str] = None) -> Any:
    """The adjoint of forward_projection_filter: a volume itk.Image."""
    model = _model(geometry, devices, use_gpu, {})
    return _volume_image(model.back_project(_projections_view(projections, geometry)), geometry)


def qggmrf_denoise_filter(volume: Any, *, sigma_noise: Optional[float] = None, sharpness: float = 0.0,
                          devices: DeviceChoice = None, use_gpu: Optional[str] = None, progress: Any = None,
                          **params: Any) -> Any:
    """qGGMRF denoising of a volume itk.Image; the result keeps its spacing, origin and direction."""
    _require_image(volume, "volume")
    itk = _itk()
    # In the engine's (rows, cols, slices) order, as the C++ filter denoises it: one copy in, one out.
    array = itk.array_view_from_image(volume)
    denoised, _ = denoise(array.transpose(1, 2, 0), sigma_noise=sigma_noise, sharpness=sharpness, devices=devices,
                          use_gpu=use_gpu, progress=progress, **params)
    image = itk.image_view_from_array(np.ascontiguousarray(denoised.transpose(2, 0, 1)))
    image.CopyInformation(volume)
    return image
