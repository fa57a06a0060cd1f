"""The model API for NumPy users, with MBIRJAX's names and array conventions: sinograms (views, rows,
channels), recons (rows, cols, slices), so that an MBIRJAX script ports by changing its import.

    model = itk_mbir.ConeBeamModel(sinogram_shape, angles, source_detector_dist=..., source_iso_dist=...)
    model.set_params(sharpness=1.0)
    recon, log = model.recon(sinogram, weights=None)
"""

from __future__ import annotations

import inspect
from typing import Any, Optional

import numpy as np

from . import _engine
from ._arrays import DeviceArray, engine_array, progress_hook
from .devices import DeviceChoice, device_selection
from .geometry import Geometry, geometry_classes

__all__ = ["TomographyModel", "ParallelBeamModel", "ConeBeamModel", "TranslationModel", "MultiAxisParallelModel",
           "denoise", "gen_weights", "generate_3d_shepp_logan_low_dynamic_range"]

_OUTPUTS = ("numpy", "device")


def _log_printer(verbose: int):
    return (lambda line: print(line, flush=True)) if verbose and verbose > 0 else None


def _output(value: Any, output: str) -> Any:
    return DeviceArray(value) if output == "device" else value.download()


def _check_output(output: str) -> None:
    if output not in _OUTPUTS:
        raise ValueError(f"output must be 'numpy' or 'device', got {output!r}")


class TomographyModel:
    """A scan geometry, MBIR parameters and the devices to run on; the base of the geometry models.

    Parameters of set_params / get_params are the geometry's (help(model.geometry)) and the reconstruction's:
    sharpness, snr_db, positivity, p, q, T, qggmrf_nbr_wts, max_iterations, stop_threshold_change_pct,
    granularity, partition_sequence, max_overrelaxation, auto_regularize, estimate_noise (on by default: sigma_y
    rises above the snr_db level during the recon when the data show detail no voxel model fits and the recon
    cannot fit them below the assumed noise; an explicit snr_db turns it
    off unless estimate_noise=True is passed too), sigma_y, sigma_x, sigma_prox, verbose (0 quiet, 1 a log line per iteration), seed, checkpoint_file,
    checkpoint_every, resume_file (see recon); and use_gpu ("automatic", "full", "none").
    """

    def __init__(self, geometry: Geometry, devices: DeviceChoice = None, use_gpu: Optional[str] = None):
        self.geometry = geometry
        self._recon_params: dict[str, Any] = {"verbose": 0}
        self._devices, self._use_gpu = devices, use_gpu
        self._cache: Optional[tuple] = None

    # ---- parameters
    def set_params(self, no_warning: bool = False, **params: Any) -> None:
        """Sets geometry and reconstruction parameters by name; an unknown name raises ValueError."""
        recon_keys = set(self._defaults())
        for name, value in params.items():
            if name == "use_gpu":
                self.configure_devices(self._devices, value)
            elif name in recon_keys:
                self._recon_params[name] = value
            elif name in type(self.geometry)._parameters:
                self.geometry.set(**{name: value})
            else:
                raise ValueError(f"unknown parameter '{name}'; geometry: {', '.join(type(self.geometry)._parameters)}; "
                                 f"reconstruction: {', '.join(sorted(recon_keys))}; devices: use_gpu")

    def get_params(self, names: Any) -> Any:
        """One parameter's value, or a list of values for a list of names."""
        if isinstance(names, (list, tuple)):
            return [self.get_params(name) for name in names]
        if names == "use_gpu":
            return self._use_gpu or "automatic"
        defaults = self._defaults()
        if names in defaults:
            return self._recon_params.get(names, defaults[names])
        return self.geometry.get(names)

    def print_params(self) -> None:
        for name in type(self.geometry)._parameters:
            value = self.geometry.get(name)
            shown = f"[{len(value)} values]" if isinstance(value, np.ndarray) and value.size > 6 else value
            print(f"{name} = {shown}")
        for name, value in {**self._defaults(), **self._recon_params}.items():
            print(f"{name} = {value}")

    def _defaults(self) -> dict:
        return self.geometry.engine().default_params()

    # ---- devices
    def configure_devices(self, devices: DeviceChoice = None, use_gpu: Optional[str] = None) -> str:
        """Pins this model to devices: None (automatic), n (the first n), indices, or Device handles; returns
        the device summary."""
        device_selection(devices, use_gpu)  # checks the choice now
        self._devices, self._use_gpu = devices, use_gpu
        self._cache = None
        return self.device_summary

    @property
    def device_summary(self) -> str:
        """The devices the next call runs on, e.g. "2 x CPU (sharded, 1 threads)"."""
        return self._reconstructor().device_summary

    def _reconstructor(self) -> "_engine.Reconstructor":
        key = (self.geometry.to_json(), repr(sorted(self._recon_params.items(), key=lambda kv: kv[0])),
               repr(self._devices), self._use_gpu)
        if self._cache is None or self._cache[0] != key:
            selection = device_selection(self._devices, self._use_gpu)
            params = {k: (list(v) if isinstance(v, (tuple, np.ndarray)) else v) for k, v in self._recon_params.items()}
            self._cache = (key, _engine.Reconstructor(self.geometry.engine(), selection, params))
        return self._cache[1]

    # ---- data on the devices
    def prepare_sinogram(self, sinogram: Any) -> DeviceArray:
        """Uploads a sinogram (or weights) once to this model's devices; recon and prox_map take the result
        without another transfer, as long as the geometry and devices stay the same."""
        if isinstance(sinogram, DeviceArray):
            return sinogram
        reconstructor = self._reconstructor()
        return DeviceArray(reconstructor.prepare_sinogram(
            engine_array(sinogram, "sinogram", self.geometry.sinogram_shape), "sinogram"))

    def _device_sinogram(self, array: Any, name: str, non_negative: bool = False):
        if array is None:
            return None
        if isinstance(array, DeviceArray):
            return array._data
        shape = self.geometry.sinogram_shape
        return self._reconstructor().prepare_sinogram(engine_array(array, name, shape, non_negative), name)

    def _device_volume(self, array: Any, name: str):
        if isinstance(array, DeviceArray):
            return array._data
        return self._reconstructor().prepare_volume(engine_array(array, name, self.geometry.recon_shape), name)

    # ---- reconstruction
    def recon(self, sinogram: Any, weights: Any = None, init_recon: Any = None, max_iterations: Optional[int] = None,
              stop_threshold_change_pct: Optional[float] = None, output: str = "numpy", progress: Any = None,
              print_logs: Optional[bool] = None, compute_prior_loss: bool = False, checkpoint: Optional[str] = None,
              checkpoint_every: Optional[int] = None, resume: Optional[str] = None):
        """MBIR of a sinogram (views, rows, channels): returns (recon, log).

        weights: None (all 1) or an array of the sinogram's shape, >= 0 (gen_weights makes the usual ones).
        init_recon: None (the direct recon, scaled), a number, or a (rows, cols, slices) volume.
        output: "numpy" (a NumPy array) or "device" (a DeviceArray left on the devices, split by slice).
        progress: True for a progress bar, or a callable taking the fraction done (False from it stops).
        Ctrl-C stops at the next subset with KeyboardInterrupt and no partial result.
        print_logs: True prints a line per iteration, False none (default: as the verbose parameter says).
        compute_prior_loss: the prior's cost per iteration in the log (prior_loss, total_cost; NaN otherwise), at
        the price of a pass over the volume per iteration, as in MBIRJAX.
        checkpoint: a file where the state is saved after every checkpoint_every-th iteration (default 1) and at a
        stop (Ctrl-C, progress returning False), atomically; resume: such a file to continue from, made with the
        same data, geometry and parameters (ValueError otherwise), to the result of a run never stopped.
        log: per-iteration lines, the regularisation used (sigma_y, sigma_x) and the device summary.
        """
        files = {k: v for k, v in (("checkpoint_file", checkpoint), ("checkpoint_every", checkpoint_every),
                                   ("resume_file", resume)) if v is not None}
        return self._solve(sinogram, weights, init_recon, None, 0.0, max_iterations, stop_threshold_change_pct,
                           output, progress, "MBIR", print_logs, compute_prior_loss, files)

    def prox_map(self, prox_input: Any, sinogram: Any, weights: Any = None, init_recon: Any = None,
                 sigma_prox: Optional[float] = None, max_iterations: Optional[int] = None,
                 stop_threshold_change_pct: Optional[float] = None, output: str = "numpy", progress: Any = None,
                 print_logs: Optional[bool] = None, compute_prior_loss: bool = False):
        """The proximal map of prox_input (rows, cols, slices) for Plug-and-Play: the prior is
        ||x - prox_input||^2 / (2 sigma_prox^2); returns (recon, log) as recon does."""
        return self._solve(sinogram, weights, init_recon, prox_input, float(sigma_prox or 0.0), max_iterations,
                           stop_threshold_change_pct, output, progress, "proximal map", print_logs,
                           compute_prior_loss)

    def _solve(self, sinogram, weights, init_recon, prox_input, sigma_prox, max_iterations, stop_threshold,
               output, progress, what, print_logs, compute_prior_loss, files=None):
        _check_output(output)
        overrides = {k: v for k, v in (("max_iterations", max_iterations),
                                       ("stop_threshold_change_pct", stop_threshold)) if v is not None}
        overrides.update({k: str(v) if k != "checkpoint_every" else int(v) for k, v in (files or {}).items()})
        if compute_prior_loss:  # only when asked: the same parameters keep the cached reconstructor
            overrides["compute_prior_loss"] = True
        if print_logs is not None:
            overrides["verbose"] = max(1, int(self.get_params("verbose"))) if print_logs else 0
        saved = dict(self._recon_params)
        self._recon_params.update(overrides)
        try:
            reconstructor = self._reconstructor()
            y = self._device_sinogram(sinogram, "sinogram")
            w = self._device_sinogram(weights, "weights", non_negative=True)
            init = init_recon
            if init is not None and not isinstance(init, (int, float)):
                init = self._device_volume(init, "init_recon")
            prox = self._device_volume(prox_input, "prox_input") if prox_input is not None else None
            callback, close = progress_hook(progress, what)
            try:
                volume, log = reconstructor.recon(y, w, init, prox, sigma_prox, callback,
                                                  _log_printer(self.get_params("verbose")))
            finally:
                close()
        finally:
            self._recon_params = saved
        log["device_summary"] = reconstructor.device_summary
        log["recon_params"] = reconstructor.params()
        return _output(volume, output), log

    def forward_project(self, recon: Any) -> np.ndarray:
        """A x: the sinogram (views, rows, channels) of a (rows, cols, slices) volume (voxels outside the ROR ignored)."""
        return self._reconstructor().forward_project(engine_array(recon, "recon", self.geometry.recon_shape))

    def back_project(self, sinogram: Any) -> np.ndarray:
        """A^T y: the exact adjoint of forward_project, zero outside the ROR."""
        return self._reconstructor().back_project(engine_array(sinogram, "sinogram", self.geometry.sinogram_shape))

    def direct_recon(self, sinogram: Any) -> np.ndarray:
        """The geometry's direct recon: FBP (parallel), FDK (cone), directional FBP (multi-axis), normalised
        back projection (translation)."""
        return self._reconstructor().direct_recon(engine_array(sinogram, "sinogram", self.geometry.sinogram_shape))

    def auto_set_regularization_params(self, sinogram: Any, weights: Any = None) -> tuple:
        """(sigma_y, sigma_x, sigma_prox) that a recon of this sinogram would start from (its fit test may raise
        sigma_y: the recon's log dict has the value it used)."""
        shape = self.geometry.sinogram_shape
        return self._reconstructor().regularization(
            engine_array(sinogram, "sinogram", shape),
            None if weights is None else engine_array(weights, "weights", shape, non_negative=True))

    # ---- MBIRJAX conveniences
    def gen_weights(self, sinogram: Any, weight_type: str = "transmission_root") -> np.ndarray:
        return gen_weights(sinogram, weight_type)

    def gen_modified_3d_sl_phantom(self) -> np.ndarray:
        """The low-dynamic-range 3D Shepp-Logan phantom on this model's recon grid."""
        return generate_3d_shepp_logan_low_dynamic_range(self.geometry.recon_shape)

    def get_magnification(self) -> float:
        return self.geometry.magnification

    def scale_recon_shape(self, row_scale: float = 1.0, col_scale: float = 1.0) -> None:
        self.geometry.scale_recon_shape(row_scale, col_scale)

    def auto_set_recon_geometry(self) -> None:
        self.geometry.auto_set_recon_geometry()


def _model_class(name: str, geometry_name: str, doc: str) -> type:
    geometry_class = geometry_classes[geometry_name]

    def __init__(self, *args: Any, devices: DeviceChoice = None, use_gpu: Optional[str] = None, **kwargs: Any):
        TomographyModel.__init__(self, geometry_class(*args, **kwargs), devices, use_gpu)

    __init__.__doc__ = f"{doc}\n\n{geometry_class.__doc__}"
    signature = geometry_class.__init__.__signature__
    __init__.__signature__ = signature.replace(parameters=list(signature.parameters.values()) + [
        inspect.Parameter("devices", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("use_gpu", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return type(name, (TomographyModel,), {"__init__": __init__, "__doc__": __init__.__doc__, "__module__": __name__})


ParallelBeamModel = _model_class("ParallelBeamModel", "parallel", "Parallel-beam scan: ParallelBeamModel(sinogram_shape, angles).")
ConeBeamModel = _model_class(
    "ConeBeamModel", "cone",
    "Cone-beam scan: ConeBeamModel(sinogram_shape, angles, source_detector_dist=..., source_iso_dist=...).")
TranslationModel = _model_class(
    "TranslationModel", "translation",
    "Translation scan: TranslationModel(sinogram_shape, translation_vectors, source_detector_dist=..., source_iso_dist=...).")
MultiAxisParallelModel = _model_class(
    "MultiAxisParallelModel", "multi_axis_parallel",
    "Multi-axis parallel beam (e.g. laminography): MultiAxisParallelModel(sinogram_shape, angles, elevations).")


def denoise(image: Any, sigma_noise: Optional[float] = None, sharpness: float = 0.0, max_iterations: int = 15,
            stop_threshold_change_pct: float = 0.2, devices: DeviceChoice = None, use_gpu: Optional[str] = None,
            output: str = "numpy", progress: Any = None, verbose: int = 0, **params: Any):
    """qGGMRF denoising of a 3-D volume: returns (denoised, log).

    sigma_noise: the noise standard deviation; None estimates it from the image. sharpness: larger keeps more
    detail (sigma_x = 0.2 * 2^sharpness * the local standard deviation). Further parameters: p, q, T,
    qggmrf_nbr_wts, num_subsets, max_overrelaxation, seed. The volume is split along its last axis over the
    devices. output, progress and Ctrl-C as in TomographyModel.recon.
    """
    _check_output(output)
    values = dict(params, sigma_noise=float(sigma_noise or 0.0), sharpness=float(sharpness),
                  max_iterations=int(max_iterations), stop_threshold_change_pct=float(stop_threshold_change_pct),
                  verbose=int(verbose))
    array = image._data.download() if isinstance(image, DeviceArray) else image
    callback, close = progress_hook(progress, "denoising")
    try:
        volume, log = _engine.denoise(engine_array(array, "image"), values, device_selection(devices, use_gpu),
                                      callback, _log_printer(verbose))
    finally:
        close()
    return _output(volume, output), log


def gen_weights(sinogram: Any, weight_type: str = "transmission_root") -> np.ndarray:
    """Weights for a sinogram: "unweighted" (1), "transmission" (exp(-y)), "transmission_root" (exp(-y/2)),
    "emission" (1 / (|y| + 0.1))."""
    return _engine.generate_weights(engine_array(sinogram, "sinogram"), weight_type)


def generate_3d_shepp_logan_low_dynamic_range(phantom_shape: tuple) -> np.ndarray:
    """The low-dynamic-range 3D Shepp-Logan phantom of shape (rows, cols, slices)."""
    return _engine.shepp_logan_phantom([int(s) for s in phantom_shape])
