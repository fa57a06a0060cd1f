"""Scan geometries: one class per geometry the engine knows, generated from the engine's geometry registry.

A geometry is its parameters (MBIRJAX's names, lengths in ALU: mm for ITK users, angles in radians) and the
recon grid they imply. Its complete description is the engine's geometry JSON, so ``to_json()`` /
``write()`` / ``read_geometry()`` give files the command-line tools and the C++ API read too. Parameters
left unset take the engine's defaults, the recon grid (``delta_voxel``, ``recon_shape``) included: it is
worked out by the engine from the detector whenever it is needed and not given.
"""

from __future__ import annotations

import inspect
import json
import math
from typing import Any

import numpy as np

from . import _engine

__all__ = ["Geometry", "read_geometry", "geometry_from_json", "geometry_classes"]

_FORMAT = {"format": "mbir-geometry", "version": 1}


def _to_json_value(kind: str, name: str, value: Any) -> Any:
    """A parameter as the geometry JSON stores it; ValueError names the parameter when it cannot be."""
    try:
        if kind == "integer3":
            values = [int(v) for v in np.asarray(value).reshape(-1)]
            if len(values) != 3:
                raise ValueError("needs 3 integers")
            return values
        if kind == "number":
            number = float(value)
            return "infinity" if number == math.inf else number
        if kind == "boolean":
            return bool(value)
        if kind == "number_per_view":
            return [float(v) for v in np.asarray(value, dtype=np.float64).reshape(-1)]
        if kind == "vector3_per_view":
            array = np.asarray(value, dtype=np.float64)
            if array.ndim != 2 or array.shape[1] != 3:
                raise ValueError(f"needs shape (views, 3), got {array.shape}")
            return array.tolist()
        if kind == "ror_mask":
            if isinstance(value, str):
                return value
            mask = np.asarray(value)
            if mask.ndim != 2:
                raise ValueError("needs 'ellipse', 'none' or a 2-D (rows, cols) array of 0/1")
            return {"rows": int(mask.shape[0]), "cols": int(mask.shape[1]),
                    "mask": [int(bool(v)) for v in mask.reshape(-1)]}
    except (TypeError, ValueError) as error:
        raise ValueError(f"geometry parameter '{name}': {error}") from None
    raise ValueError(f"geometry parameter '{name}': unknown kind {kind}")


def _from_json_value(kind: str, value: Any) -> Any:
    if kind == "integer3":
        return tuple(int(v) for v in value)
    if kind == "number":
        return math.inf if value == "infinity" else float(value)
    if kind == "number_per_view":
        return np.asarray(value, dtype=np.float32)
    if kind == "vector3_per_view":
        return np.asarray(value, dtype=np.float32).reshape(-1, 3)
    if kind == "ror_mask" and isinstance(value, dict):
        return np.asarray(value["mask"], dtype=np.uint8).reshape(value["rows"], value["cols"])
    return value


class Geometry:
    """Base of the geometry classes; see each class's help() for its parameters."""

    type_name: str = ""
    _parameters: dict[str, dict] = {}
    _positional: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        required = [self._parameters[name] for name in self._positional]
        if len(args) > len(required):
            raise TypeError(f"{type(self).__name__} takes at most {len(required)} positional arguments "
                            f"({', '.join(p['name'] for p in required)}), got {len(args)}")
        object.__setattr__(self, "_values", {})
        for parameter, value in zip(required, args):
            if parameter["name"] in kwargs:
                raise TypeError(f"{type(self).__name__} got '{parameter['name']}' twice")
            kwargs[parameter["name"]] = value
        missing = [p["name"] for p in required if p["name"] not in kwargs]
        if missing:
            raise TypeError(f"{type(self).__name__} needs {', '.join(missing)}")
        self.set(**kwargs)

    # ---- parameters
    def set(self, **values: Any) -> "Geometry":
        """Sets parameters by name (checked when the geometry is next used, by the engine)."""
        for name, value in values.items():
            if name not in self._parameters:
                raise ValueError(f"{type(self).__name__} has no parameter '{name}'; its parameters: "
                                 f"{', '.join(self._parameters)}")
            if value is None:
                self._values.pop(name, None)
            else:
                self._values[name] = _to_json_value(self._parameters[name]["kind"], name, value)
        if ("delta_voxel" in values or "recon_shape" in values) and not {"delta_voxel", "recon_shape"} <= set(self._values):
            self._complete_grid()
        return self

    def get(self, name: str) -> Any:
        """A parameter's value: the one set, or the engine's default (the default grid included)."""
        if name not in self._parameters:
            raise ValueError(f"{type(self).__name__} has no parameter '{name}'")
        resolved = json.loads(self.engine().to_json())
        value = self._values.get(name, resolved.get(name))
        return None if value is None else _from_json_value(self._parameters[name]["kind"], value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in type(self)._parameters:
            raise AttributeError(f"{type(self).__name__} has no attribute '{name}'")
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in type(self)._parameters:
            self.set(**{name: value})
        else:
            raise AttributeError(f"{type(self).__name__} has no parameter '{name}'")

    def _complete_grid(self) -> None:
        """One of delta_voxel / recon_shape was given: the other keeps the default grid's extent."""
        given = dict(self._values)
        self._values.pop("delta_voxel", None)
        self._values.pop("recon_shape", None)
        default = json.loads(self.engine().to_json())
        pitch, shape = default["delta_voxel"], default["recon_shape"]
        if "delta_voxel" in given:
            # Rows and columns cover the default extent at the new pitch; so do slices, except for parallel
            # beam, whose slices are the detector rows.
            scale = pitch / given["delta_voxel"]
            scaled = [max(1, math.ceil(n * scale - 1e-6)) for n in shape]
            shape = scaled if self.type_name != "parallel" else scaled[:2] + shape[2:]
            self._values.update(delta_voxel=given["delta_voxel"], recon_shape=shape)
        else:
            self._values.update(delta_voxel=pitch, recon_shape=given["recon_shape"])

    def auto_set_recon_geometry(self) -> "Geometry":
        """Back to the default recon grid for the current detector (MBIRJAX's auto_set_recon_geometry)."""
        self._values.pop("delta_voxel", None)
        self._values.pop("recon_shape", None)
        return self

    def scale_recon_shape(self, row_scale: float = 1.0, col_scale: float = 1.0) -> "Geometry":
        """Keeps the grid's centre and pitch and scales its rows and columns (e.g. 0.5 to crop the centre)."""
        scaled = json.loads(self.engine().scaled_recon_shape(row_scale, col_scale).to_json())
        self._values.update(delta_voxel=scaled["delta_voxel"], recon_shape=scaled["recon_shape"])
        return self

    # ---- the engine's view
    def to_dict(self) -> dict:
        """The parameters set, as the geometry JSON holds them."""
        return {**_FORMAT, "geometry": self.type_name, **self._values}

    def to_json(self) -> str:
        """The geometry file text, every parameter resolved (the engine's writer)."""
        return self.engine().to_json()

    def write(self, path: str) -> None:
        """Writes the geometry file (read by read_geometry, the command-line tools and the C++ API)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())

    def engine(self) -> "_engine.Geometry":
        """The engine's geometry (validated: ValueError names a bad parameter)."""
        return _engine.Geometry.from_json(json.dumps(self.to_dict()))

    @property
    def sinogram_shape(self) -> tuple[int, int, int]:
        return tuple(self._values["sinogram_shape"])

    @property
    def recon_shape(self) -> tuple[int, int, int]:
        """(rows, cols, slices) of the recon grid."""
        return tuple(self.engine().recon_shape)

    @property
    def magnification(self) -> float:
        return self.engine().magnification

    # ---- the physical frame of ITK images (mm; x = columns, y = rows, z = slices)
    def volume_spacing(self) -> tuple[float, float, float]:
        """Voxel pitch (x, y, z) of the recon grid as an itk.Image [x, y, z] has it."""
        resolved = json.loads(self.to_json())
        pitch = resolved["delta_voxel"]
        return (pitch, pitch * resolved.get("voxel_row_aspect", 1.0), pitch * resolved.get("voxel_slice_aspect", 1.0))

    def volume_origin(self) -> tuple[float, float, float]:
        """The physical point of voxel [0, 0, 0]: the grid centred on the rotation axis, in z on its slice offset."""
        rows, cols, slices = self.recon_shape
        sx, sy, sz = self.volume_spacing()
        offset = json.loads(self.to_json()).get("recon_slice_offset", 0.0)
        return (-0.5 * sx * (cols - 1), -0.5 * sy * (rows - 1), -0.5 * sz * (slices - 1) + offset)

    def detector_spacing(self) -> tuple[float, float]:
        """(channel pitch, row pitch) of the projections, the x and y spacing of an itk.Image [channel, row, view]."""
        resolved = json.loads(self.to_json())
        return (resolved.get("delta_det_channel", 1.0), resolved.get("delta_det_row", 1.0))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" if not isinstance(v, list) or len(v) <= 4 else f"{k}=[{len(v)} values]"
                          for k, v in self._values.items())
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Geometry) and self.to_json() == other.to_json()


def _positional_order(parameters: list) -> tuple:
    """The required parameters in MBIRJAX's constructor order: the sinogram shape, the per-view arrays, the rest."""
    required = [p for p in parameters if p["required"]]
    rank = {"integer3": 0, "number_per_view": 1, "vector3_per_view": 1}
    return tuple(p["name"] for p in sorted(required, key=lambda p: rank.get(p["kind"], 2)))


def _make_class(description: dict) -> type:
    parameters = {p["name"]: p for p in description["parameters"]}
    positional = _positional_order(description["parameters"])
    lines = [description["doc"], "", "Parameters (lengths in ALU, e.g. mm; angles in radians):"]
    for p in description["parameters"]:
        unit = f" [{p['unit']}]" if p["unit"] else ""
        default = "required" if p["required"] else f"default {p['default']}"
        lines.append(f"    {p['name']}{unit} ({default}): {p['doc']}")
    signature = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in positional] +
        [inspect.Parameter(p["name"], inspect.Parameter.KEYWORD_ONLY, default=None)
         for p in description["parameters"] if not p["required"]])
    cls = type(description["class_name"], (Geometry,), {
        "__doc__": "\n".join(lines),
        "__module__": __name__,
        "type_name": description["name"],
        "_parameters": parameters,
        "_positional": positional,
    })
    cls.__init__ = _with_signature(Geometry.__init__, signature, cls.__doc__)
    return cls


def _with_signature(function, signature, doc):
    def __init__(self, *args, **kwargs):
        function(self, *args, **kwargs)
    __init__.__signature__ = signature.replace(
        parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + list(signature.parameters.values()))
    __init__.__doc__ = doc
    return __init__


geometry_classes: dict[str, type] = {t["name"]: _make_class(t) for t in _engine.geometry_types()}
globals().update({cls.__name__: cls for cls in geometry_classes.values()})
__all__ += [cls.__name__ for cls in geometry_classes.values()]


def geometry_from_json(text: str) -> Geometry:
    """The geometry of a geometry-file text, every parameter as written (validated by the engine)."""
    resolved = json.loads(_engine.Geometry.from_json(text).to_json())
    cls = geometry_classes[resolved["geometry"]]
    geometry = cls.__new__(cls)
    object.__setattr__(geometry, "_values", {k: v for k, v in json.loads(text).items() if k in cls._parameters})
    return geometry


def read_geometry(path: str) -> Geometry:
    """Reads a geometry file (mbir-geometry --output, MBIRGeometry::WriteJSON, Geometry.write)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return geometry_from_json(text)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
