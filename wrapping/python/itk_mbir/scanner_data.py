"""Real scanner data: raw transmission counts to line integrals and weights, and the centre of rotation
estimated from the data (README "Real scanner data: preprocessing")."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _engine
from ._arrays import engine_array
from .geometry import Geometry

__all__ = ["preprocess_transmission", "estimate_rotation_center"]


def _fields(array: Any, name: str) -> Optional[np.ndarray]:
    """A 2-D field image (rows, channels) as a stack of one, or a stack (n, rows, channels)."""
    if array is None:
        return None
    array = np.asarray(array)
    return engine_array(array[np.newaxis] if array.ndim == 2 else array, name)


def preprocess_transmission(counts: Any, dark: Any = None, bright: Any = None, bright_after: Any = None,
                            **params: Any) -> tuple:
    """Raw counts (views, rows, channels) to (sinogram, weights, report).

    Line integrals -log((I - D) / (B - D)): dark and bright fields are 2-D images (rows, channels) or stacks
    (n, rows, channels), averaged; bright_after, taken after the scan, is interpolated with bright over the
    views. Dead, hot, non-finite and saturated cells get weight 0 and an interpolated value (never NaN); the
    background offset is removed. params: min_transmission (1e-6), saturation_level (0: none),
    detect_bad_pixels (True), bad_pixel_threshold (8), min_bad_pixel_deviation (0.05), remove_offset (True),
    offset_per_view (False), edge_width (9), suppress_rings (False), ring_width (9), weight_type
    ("transmission"). report: the offset removed, bad-cell counts and mask, notes.
    """
    return _engine.preprocess_transmission(engine_array(counts, "counts"), _fields(dark, "dark"),
                                           _fields(bright, "bright"), _fields(bright_after, "bright_after"),
                                           params)


def estimate_rotation_center(geometry: Geometry, sinogram: Any, weights: Any = None) -> dict:
    """The centre-of-rotation offset of a sinogram of line integrals: {"channels", "det_channel_offset" (ALU,
    to set on the geometry), "method", "tilt_degrees" (None unless measured), "notes"}. The geometry's own
    det_channel_offset is ignored."""
    shape = geometry.sinogram_shape
    return _engine.estimate_rotation_center(
        geometry.engine(), engine_array(sinogram, "sinogram", shape),
        None if weights is None else engine_array(weights, "weights", shape, non_negative=True))
