#!/usr/bin/env python3
"""Smoke test of the MBIR Python wrapping: geometry, forward projection, reconstruction, the
device-image upload/download path and the qGGMRF denoiser, on a small parallel-beam scan.

Run it with an `itk` built with Python wrapping and this module (scripts/test-wrapping.sh does).
Exits non-zero on the first failed check.
"""
import math
import sys
import time

import numpy as np

import itk

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def values_of(itk_array, n=3):
    """An itk.Size, Vector or Point as a list."""
    return [itk_array[i] for i in range(n)]


def nrmse(image, reference):
    a = itk.array_from_image(image).astype(np.float64)
    b = itk.array_from_image(reference).astype(np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


print("ITK", itk.Version.GetITKVersion())
ImageType = itk.Image[itk.F, 3]
DeviceImageType = itk.MBIRDeviceImage[itk.F, 3]

# A parallel-beam scan: 60 views over half a turn, 48 channels of 0.5 mm, 4 rows of 0.5 mm.
geometry = itk.MBIRParallelBeamGeometry.New()
geometry.SetDetectorSize(48, 4)
geometry.SetDetectorSpacing([0.5, 0.5])
views = 60
geometry.SetAngles([math.pi * v / views for v in range(views)])
geometry.AutoSetVolumeGeometry()
size = [int(s) for s in values_of(geometry.GetVolumeSize())]
spacing = [float(s) for s in values_of(geometry.GetVolumeSpacing())]
origin = [float(o) for o in values_of(geometry.GetVolumeOrigin())]
print("geometry: %d views, volume %s voxels of %s mm, origin %s mm" % (geometry.GetNumberOfViews(), size,
                                                                        spacing, origin))
check(geometry.GetNumberOfViews() == views, "GetNumberOfViews() is the number of angles")
check(size == [48, 48, 4], "AutoSetVolumeGeometry() gives the default 48 x 48 x 4 grid")
check(geometry.GetRegionOfReconstruction() == itk.MBIRGeometryEnums.RegionOfReconstruction_Ellipse,
      "MBIRGeometryEnums is wrapped (default region of reconstruction: Ellipse)")
copy = itk.MBIRGeometry.FromJSON(geometry.ToJSON())
check(copy.GetNameOfClass() == "MBIRParallelBeamGeometry" and copy.GetNumberOfViews() == views,
      "the geometry survives a JSON round trip")

# A phantom on that grid: a disc with two inserts, constant along z. numpy order is [z, y, x].
z, y, x = np.meshgrid(*[origin[i] + spacing[i] * np.arange(size[i]) for i in (2, 1, 0)], indexing="ij")
values = np.where(x**2 + y**2 < 9.0**2, 0.2, 0.0)
values = np.where((x - 3.0)**2 + y**2 < 2.5**2, 0.4, values)
values = np.where((x + 4.0)**2 + (y - 2.0)**2 < 2.0**2, 0.05, values)
phantom = itk.image_from_array(values.astype(np.float32))
phantom.SetSpacing(spacing)
phantom.SetOrigin(origin)

# Forward projection: projections [channel, row, view], spacing the detector pitch.
project = itk.MBIRForwardProjectionFilter[ImageType, ImageType].New()
project.SetInput(phantom)
project.SetGeometry(geometry)
project.Update()
projections = project.GetOutput()
check(values_of(projections.GetLargestPossibleRegion().GetSize()) == [48, 4, views],
      "forward projection size is [channels, rows, views]")
check(float(itk.array_from_image(projections).max()) > 0.0, "the projections are not empty")

# Reconstruction, the filter's template chosen from its input.
start = time.time()
reconstruct = itk.MBIRReconstructionFilter.New(projections, Geometry=geometry, Sharpness=1.0)
reconstruct.Update()
volume = reconstruct.GetOutput()
seconds = time.time() - start
host_nrmse = nrmse(volume, phantom)
print("MBIR: %.2f s on %s, NRMSE %.4f" % (seconds, reconstruct.GetDeviceSummary(), host_nrmse))
check(values_of(volume.GetLargestPossibleRegion().GetSize()) == size, "reconstruction size is the geometry's")
check(np.allclose(values_of(volume.GetSpacing()), spacing), "reconstruction spacing is the geometry's")
check(np.allclose(values_of(volume.GetOrigin()), origin), "reconstruction origin is the geometry's")
check(host_nrmse < 0.1, "reconstruction NRMSE %.4f < 0.1" % host_nrmse)

# The same on device-resident images: upload the projections once, reconstruct and denoise there,
# download the result.
upload = itk.MBIRUploadImageFilter[ImageType, DeviceImageType].New()
upload.SetInput(projections)
on_device = itk.MBIRReconstructionFilter[DeviceImageType, DeviceImageType].New()
on_device.SetInput(upload.GetOutput())
on_device.SetGeometry(geometry)
on_device.SetSharpness(1.0)
download = itk.MBIRDownloadImageFilter[DeviceImageType, ImageType].New()
download.SetInput(on_device.GetOutput())
download.Update()
device_volume = download.GetOutput()
print("on the device: %s; NRMSE against the host result %.2e" % (on_device.GetDeviceSummary(),
                                                                  nrmse(device_volume, volume)))
check(upload.GetOutput().GetNameOfClass() == "MBIRDeviceImage", "the upload produces an MBIRDeviceImage")
check(values_of(device_volume.GetLargestPossibleRegion().GetSize()) == size,
      "the downloaded volume has the geometry's size")
check(nrmse(device_volume, volume) < 1e-3, "the device-image reconstruction matches the host one")

denoise_on_device = itk.QGGMRFDenoiseFilter[DeviceImageType, DeviceImageType].New()
denoise_on_device.SetInput(on_device.GetOutput())
download_denoised = itk.MBIRDownloadImageFilter[DeviceImageType, ImageType].New()
download_denoised.SetInput(denoise_on_device.GetOutput())
download_denoised.Update()
check(values_of(download_denoised.GetOutput().GetLargestPossibleRegion().GetSize()) == size,
      "qGGMRF denoising on the device image runs")

# qGGMRF denoising of a noisy phantom on host images.
rng = np.random.default_rng(1)
noisy = itk.image_from_array((values + rng.normal(0.0, 0.03, values.shape)).astype(np.float32))
noisy.SetSpacing(spacing)
noisy.SetOrigin(origin)
denoise = itk.QGGMRFDenoiseFilter[ImageType, ImageType].New()
denoise.SetInput(noisy)
denoise.Update()
before, after = nrmse(noisy, phantom), nrmse(denoise.GetOutput(), phantom)
print("qGGMRF denoising: NRMSE %.4f -> %.4f" % (before, after))
check(after < before, "denoising lowers the NRMSE")

# Raw counts to line integrals: Beer's law on the projections, a bright field of 1e4, a dark field of 100
# and one dead cell, through the preprocessing filter.
line_integrals = itk.array_from_image(projections)  # [view, row, channel]
counts_array = (1e4 * np.exp(-line_integrals) + 100.0).astype(np.float32)
counts_array[:, 2, 20] = 100.0  # a dead cell: dark current only
counts = itk.image_from_array(counts_array)
counts.SetSpacing(projections.GetSpacing())
dark = itk.image_from_array(np.full((2,) + counts_array.shape[1:], 100.0, np.float32))
bright = itk.image_from_array(np.full((2,) + counts_array.shape[1:], 1e4 + 100.0, np.float32))
preprocess = itk.MBIRTransmissionPreprocessingFilter[ImageType, ImageType].New()
preprocess.SetCounts(counts)
preprocess.SetDarkField(dark)
preprocess.SetBrightField(bright)
preprocess.Update()
recovered = itk.array_from_image(preprocess.GetOutput())
weights = itk.array_from_image(preprocess.GetWeightsOutput())
# Noise-free counts: with no noise to gauge by, the cell test also takes sharp edges for defects (about a sixth
# of the cells here), weighted 0 and interpolated; everything else must be exact.
good = weights > 0
print("preprocessing: %.1f %% of the entries weighted 0, max error %.2e elsewhere"
      % (100.0 * (1.0 - good.mean()), np.abs(recovered - line_integrals)[good].max()))
check(np.all(np.isfinite(recovered)), "preprocessing gives finite line integrals")
check(good.mean() > 0.5 and np.abs(recovered - line_integrals)[good].max() < 1e-3,
      "preprocessing recovers the line integrals")
check(np.all(weights[:, 2, 20] == 0.0), "the dead cell gets weight 0")

# A TIFF folder with a JSON sidecar read back through the scan reader. The TIFFs are written here (16-bit,
# uncompressed, one strip), since this minimal ITK wraps only 3-D float images.
import json
import os
import struct
import tempfile


def write_tiff16(path, values):
    height, width = values.shape
    entries = [(256, 4, width), (257, 4, height), (258, 3, 16), (259, 3, 1), (262, 3, 1), (273, 4, 8 + 2 + 10 * 12 + 4),
               (277, 3, 1), (278, 4, height), (279, 4, 2 * width * height), (284, 3, 1)]
    with open(path, "wb") as f:
        f.write(b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", len(entries)))
        for tag, kind, value in entries:
            f.write(struct.pack("<HHI", tag, kind, 1) + (struct.pack("<HH", value, 0) if kind == 3 else
                                                         struct.pack("<I", value)))
        f.write(struct.pack("<I", 0) + values.astype("<u2").tobytes())


with tempfile.TemporaryDirectory() as folder:
    for v in range(4):
        write_tiff16(os.path.join(folder, "p%03d.tif" % v), counts_array[v].astype(np.uint16))
    sidecar = os.path.join(folder, "scan.json")
    with open(sidecar, "w") as f:
        json.dump({"geometry": "parallel", "angles": [0, 45, 90, 135], "angle_unit": "degree",
                   "pixel_size": 0.5}, f)
    scan = itk.MBIRScanReader.ReadTiffFolder("", sidecar)
    read_size = values_of(scan.GetProjections().GetLargestPossibleRegion().GetSize())
    print("scan reader: projections %s, geometry %s" % (read_size, scan.GetGeometry().GetNameOfClass()))
    check(read_size == [48, 4, 4], "the scan reader reads a TIFF folder as [channel, row, view]")
    check(scan.GetGeometry().GetNumberOfViews() == 4, "the scan reader's geometry has the sidecar's angles")
    check(np.array_equal(itk.array_from_image(scan.GetProjections()), counts_array[:4].astype(np.uint16)),
          "the scan reader reads the TIFF values")

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("smoke test passed")
