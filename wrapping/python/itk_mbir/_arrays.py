"""Arrays in and out of the engine, and progress reporting.

The rule for inputs: a C-contiguous float32 array is used in place, with no copy: a NumPy array, any
CPU tensor that speaks DLPack, or a CUDA array (CuPy, PyTorch, JAX) when the devices are GPUs. Anything
else (other dtypes, strided views, lists) is converted once to a C-contiguous float32 array by its own
library (NumPy for host data, CuPy / PyTorch for theirs). Wrong rank or shape, non-finite values and
negative weights raise ValueError naming the argument.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional

import numpy as np

from . import _engine

_DLPACK_CPU, _DLPACK_CUDA = 1, 2


def device_type(array: Any) -> int:
    """DLPack device type of an array (1 CPU, 2 CUDA); NumPy arrays and lists are CPU."""
    if hasattr(array, "__dlpack_device__") and not isinstance(array, np.ndarray):
        return int(array.__dlpack_device__()[0])
    return _DLPACK_CPU


def _library(array: Any) -> str:
    return type(array).__module__.split(".")[0]


def _gpu_float32_contiguous(array: Any, name: str) -> Any:
    """A CUDA array as C-contiguous float32, converted by its own library when it is not already."""
    library = _library(array)
    if library == "cupy":
        import cupy
        return cupy.ascontiguousarray(array, dtype=cupy.float32)
    if library == "torch":
        import torch
        return array.detach().to(torch.float32).contiguous()
    if library in ("jax", "jaxlib"):
        import jax.numpy as jnp
        return jnp.asarray(array, dtype=jnp.float32)  # JAX arrays are always contiguous
    return array  # another DLPack producer: the engine checks dtype and layout and names the problem


def _gpu_check(array: Any, name: str, non_negative: bool) -> None:
    """Finiteness (and sign) of a CUDA array, checked by its own library, on the GPU."""
    library = _library(array)
    if library == "cupy":
        import cupy as xp
    elif library == "torch":
        import torch as xp
    elif library in ("jax", "jaxlib"):
        import jax.numpy as xp
    else:
        return  # the engine still checks finiteness on the devices
    if not bool(xp.isfinite(array).all()):
        raise ValueError(f"{name} contains NaN or Inf")
    if non_negative and bool((array < 0).any()):
        raise ValueError(f"{name} contains a negative value; weights must be >= 0")


def engine_array(array: Any, name: str, shape: Optional[tuple] = None, non_negative: bool = False) -> Any:
    """An array the engine reads in place (see the module's rule); ValueError names `name`."""
    if array is None:
        raise ValueError(f"{name} is missing")
    if device_type(array) == _DLPACK_CUDA:
        array = _gpu_float32_contiguous(array, name)
        _gpu_check(array, name, non_negative)
    else:
        if hasattr(array, "__dlpack__") and not isinstance(array, np.ndarray):
            try:
                array = np.from_dlpack(array)  # a CPU tensor: a view, no copy
            except (TypeError, BufferError, RuntimeError):
                array = np.asarray(array)
        try:
            array = np.ascontiguousarray(array, dtype=np.float32)  # a no-op for C-contiguous float32
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name} is not a numeric array: {error}") from None
        if non_negative and array.size and array.min() < 0:
            raise ValueError(f"{name} contains a negative value ({array.min()}); weights must be >= 0")
    ndim = len(array.shape)
    if ndim != 3:
        raise ValueError(f"{name} must be 3-D, got {ndim}-D with shape {tuple(array.shape)}")
    if shape is not None and tuple(array.shape) != tuple(shape):
        raise ValueError(f"{name} has shape {tuple(array.shape)} but the geometry needs {tuple(shape)}")
    return array


class DeviceArray:
    """A result left on the devices (``output="device"``), split by slice (volumes) or view (sinograms).

    ``to_numpy()`` gathers it to the host. A volume on one device is also a DLPack producer in place:
    ``numpy.from_dlpack(a)`` on a CPU device, ``cupy.from_dlpack(a)`` / ``torch.from_dlpack(a)`` on a GPU, no
    copy. ``shards()`` says where each part lives (device, address, extent).
    """

    def __init__(self, data: Any):
        self._data = data

    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float32)

    @property
    def devices(self) -> list:
        return list(self._data.devices)

    @property
    def device_summary(self) -> str:
        return self._data.summary

    def shards(self) -> list:
        return self._data.shards()

    def to_numpy(self) -> np.ndarray:
        return self._data.download()

    def __array__(self, dtype=None, copy=None):
        values = self.to_numpy()
        return values if dtype is None else values.astype(dtype)

    def _single_volume_shard(self) -> None:
        if not isinstance(self._data, _engine.DeviceVolume):
            raise BufferError("a sinogram on the devices is in the engine's layout; use to_numpy()")
        if len(self._data.devices) != 1:
            raise BufferError(f"the volume is split over {len(self._data.devices)} devices; use to_numpy() or "
                              "shard_array(d)")

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self._single_volume_shard()
        return self._data.shard_array(0)

    def __dlpack_device__(self):
        self._single_volume_shard()
        return self._data.shard_dlpack_device(0)

    def shard_array(self, shard: int) -> Any:
        """Device `shard`'s real slices of the volume, in place, as DLPack (strided when the shards are padded)."""
        data = self._data

        class _Shard:
            def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
                return data.shard_array(shard)

            def __dlpack_device__(self):
                return data.shard_dlpack_device(shard)

        return _Shard()

    def __repr__(self) -> str:
        return f"<itk_mbir.DeviceArray shape={self.shape} on {self.device_summary}>"


def progress_hook(progress: Any, description: str) -> tuple[Optional[Callable[[float], Any]], Callable[[], None]]:
    """(callback, close) for a call's `progress` argument: None, True (a tqdm bar, or a line on stderr when tqdm
    is not installed) or a callable taking the fraction done in (0, 1] (returning False stops the call)."""
    if progress is None or progress is False:
        return None, lambda: None
    if callable(progress):
        return progress, lambda: None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        state = {"shown": -1}

        def line(fraction: float) -> None:
            percent = int(100 * fraction)
            if percent != state["shown"]:
                state["shown"] = percent
                print(f"\r{description}: {percent:3d}%", end="", file=sys.stderr, flush=True)

        return line, lambda: print(file=sys.stderr)
    bar = tqdm(total=100, desc=description, unit="%", leave=False)

    def update(fraction: float) -> None:
        bar.update(int(round(100 * fraction)) - bar.n)

    return update, bar.close
