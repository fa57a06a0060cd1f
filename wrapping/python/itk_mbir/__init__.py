"""itk_mbir: model-based iterative CT reconstruction (MBIR) on every GPU of a node, or every CPU core.

Two ways in:

* NumPy / CuPy / PyTorch users: MBIRJAX-style models, arrays (views, rows, channels) in and
  (rows, cols, slices) out::

      model = itk_mbir.ParallelBeamModel(sinogram.shape, angles)
      recon, log = model.recon(sinogram)

* ITK Python users: functions on itk.Image in mm, as the C++ filters::

      geometry = itk_mbir.read_geometry("scan.json")
      volume = itk_mbir.mbir_reconstruction_filter(projections, geometry=geometry, sharpness=1.0)

Devices: every GPU by default, else the CPU; ``configure_devices(n | indices | handles, use_gpu=...)``.
"""

from . import _engine
from ._arrays import DeviceArray
from .devices import (Device, available_devices, configure_devices, device_summary, gpu_count,
                      gpu_unavailable_reason)
from .geometry import Geometry, geometry_classes, geometry_from_json, read_geometry
from .itk_filters import (back_projection_filter, direct_reconstruction_filter, forward_projection_filter,
                          mbir_reconstruction_filter, qggmrf_denoise_filter)
from .scanner_data import estimate_rotation_center, preprocess_transmission
from .plots import plot_convergence
from .viewer import SliceViewer, slice_viewer
from .models import (ConeBeamModel, MultiAxisParallelModel, ParallelBeamModel, TomographyModel, TranslationModel,
                     denoise, gen_weights, generate_3d_shepp_logan_low_dynamic_range)

__version__ = _engine.__version__
OutOfDeviceMemory = _engine.OutOfDeviceMemory
Aborted = _engine.Aborted

# The geometry classes, one per engine geometry (ParallelBeamGeometry, ConeBeamGeometry, ...).
globals().update({cls.__name__: cls for cls in geometry_classes.values()})

__all__ = ["Aborted", "DeviceArray", "Device", "Geometry", "OutOfDeviceMemory", "TomographyModel",
           "ParallelBeamModel", "ConeBeamModel", "TranslationModel", "MultiAxisParallelModel",
           "available_devices", "configure_devices", "device_summary", "gpu_count", "gpu_unavailable_reason",
           "read_geometry", "geometry_from_json", "denoise", "gen_weights",
           "generate_3d_shepp_logan_low_dynamic_range", "mbir_reconstruction_filter",
           "direct_reconstruction_filter", "forward_projection_filter", "back_projection_filter",
           "qggmrf_denoise_filter", "preprocess_transmission", "slice_viewer", "SliceViewer", "plot_convergence", "estimate_rotation_center", *(cls.__name__ for cls in geometry_classes.values())]
