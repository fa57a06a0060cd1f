"""An itk.Image pipeline: projections read with itk.imread, MBIR in mm, the volume written with itk.imwrite.
    python itk_pipeline.py [OUTPUT_DIR]"""
import os
import sys

import itk
import numpy as np

import itk_mbir

out = sys.argv[1] if len(sys.argv) > 1 else "."
geometry = itk_mbir.ConeBeamGeometry((60, 16, 48), np.linspace(0, 2 * np.pi, 60, endpoint=False),
                                     source_detector_dist=400.0, source_iso_dist=200.0,
                                     delta_det_channel=0.4, delta_det_row=0.4)   # mm
geometry.write(os.path.join(out, "geometry.json"))     # the same file mbir-recon and the C++ filters read

# A scan to read back: the phantom's projections, written as an image [channel, row, view] in mm.
phantom = itk_mbir.generate_3d_shepp_logan_low_dynamic_range(geometry.recon_shape)
volume = itk.image_view_from_array(np.ascontiguousarray(phantom.transpose(2, 0, 1)))
volume.SetSpacing(geometry.volume_spacing())
volume.SetOrigin(geometry.volume_origin())
itk.imwrite(itk_mbir.forward_projection_filter(volume, geometry=geometry), os.path.join(out, "projections.nrrd"))

projections = itk.imread(os.path.join(out, "projections.nrrd"), itk.F)
geometry = itk_mbir.read_geometry(os.path.join(out, "geometry.json"))
recon = itk_mbir.mbir_reconstruction_filter(projections, geometry=geometry, sharpness=1.0)
itk.imwrite(recon, os.path.join(out, "recon.nrrd"))
print("volume spacing", tuple(recon.GetSpacing()), "origin", tuple(round(o, 3) for o in recon.GetOrigin()))
error = itk.array_view_from_image(recon).transpose(1, 2, 0) - phantom
print(f"MBIR NRMSE {np.linalg.norm(error) / np.linalg.norm(phantom):.4f}")
