"""Which devices a call runs on: every GPU by default, else the CPU devices (MBIR_NUM_CPU_DEVICES of them,
each using every core); a count, indices or device handles to choose; ``use_gpu="none"`` for the CPU."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import _engine

__all__ = ["Device", "available_devices", "configure_devices", "device_selection", "device_summary", "gpu_count"]

Device = _engine.Device
DeviceChoice = Union[None, str, int, Sequence[int], Device, Sequence[Device]]

_USE_GPU = ("automatic", "full", "none")
_default: dict[str, Any] = {"devices": None, "use_gpu": "automatic"}


def available_devices(use_gpu: str = "automatic") -> list:
    """The devices this process can use, in index order; the same objects every time (they serve as handles)."""
    return _engine.available_devices(_check_use_gpu(use_gpu))


def gpu_count() -> int:
    """Usable CUDA GPUs (0 without CUDA in the build, a driver or a GPU; gpu_unavailable_reason() says why)."""
    return _engine.gpu_count()


def gpu_unavailable_reason() -> str:
    return _engine.gpu_unavailable_reason()


def _check_use_gpu(use_gpu: str) -> str:
    if use_gpu not in _USE_GPU:
        raise ValueError(f"use_gpu must be one of {', '.join(_USE_GPU)}, got {use_gpu!r}")
    return use_gpu


def device_selection(devices: DeviceChoice = None, use_gpu: Optional[str] = None) -> "_engine.DeviceSelection":
    """The engine's selection for a choice: None or "auto" (every device, the default), n (the first n), a list
    of indices into available_devices(), or Device handles; use_gpu "automatic", "full" or "none"."""
    if devices is None and use_gpu is None:
        devices, use_gpu = _default["devices"], _default["use_gpu"]
    use_gpu = _check_use_gpu(use_gpu or "automatic")
    if devices is None or devices == "auto":
        selection = _engine.DeviceSelection()
    elif isinstance(devices, Device):
        selection = _engine.DeviceSelection.handles([devices])
    elif isinstance(devices, bool):
        raise ValueError("devices must be None, 'auto', a count, a list of indices or of Device handles")
    elif isinstance(devices, int):
        selection = _engine.DeviceSelection.first(devices)
    else:
        choice = list(devices)
        if choice and all(isinstance(d, Device) for d in choice):
            selection = _engine.DeviceSelection.handles(choice)
        elif all(isinstance(d, int) and not isinstance(d, bool) for d in choice):
            selection = _engine.DeviceSelection.indices(choice)
        else:
            raise ValueError("devices must be None, 'auto', a count, a list of indices or of Device handles")
    return selection.with_use_gpu(use_gpu)


def configure_devices(devices: DeviceChoice = None, use_gpu: str = "automatic") -> str:
    """Sets the devices that models and functions created or called afterwards use when given none; returns
    what they resolve to now, e.g. "4 x GPU (sharded)". configure_devices() goes back to the automatic choice."""
    selection = device_selection(devices, use_gpu)
    resolved = selection.resolve(0, 0)  # raises ValueError for an impossible choice, naming it
    _default.update(devices=devices, use_gpu=use_gpu)
    return _engine.device_summary(resolved)


def device_summary(devices: DeviceChoice = None, use_gpu: Optional[str] = None) -> str:
    """What a choice resolves to, e.g. "1 x CPU" or "2 x GPU (sharded)" (with the reason of a CPU fallback)."""
    selection = device_selection(devices, use_gpu)
    summary = _engine.device_summary(selection.resolve(0, 0))
    note = selection.fallback_note()
    return f"{summary} ({note})" if note else summary
