"""Helpers shared by the peer comparisons (compare_mbirjax.py, compare_cpu_peers.py): reading the files our tools
write, the NRMSE, and the MBIRJAX model of one of our geometry files. numpy only, so that every peer can use it."""
import numpy as np


def read_nrrd(path):
    """A raw (uncompressed) float NRRD as written by our tools, as a numpy array in C order: the file's last axis
    first, e.g. (views, rows, channels) for projections and (slices, rows, columns) for a volume."""
    with open(path, "rb") as f:
        header = {}
        while True:
            line = f.readline().decode().strip()
            if not line:
                break
            if ":" in line and not line.startswith("#"):
                key, value = line.split(":", 1)
                header[key.strip()] = value.strip().lstrip("=").strip()
        assert header.get("encoding", "raw") == "raw", "expected a raw NRRD"
        assert header.get("type", "float") == "float", "expected float voxels"
        sizes = [int(s) for s in header["sizes"].split()]
        dtype = "<f4" if header.get("endian", "little") == "little" else ">f4"
        data = np.frombuffer(f.read(), dtype=dtype)
    return data.reshape(sizes[::-1]).astype(np.float32)


def read_sinogram(path):
    """Projections [channel, row, view] on file as (views, rows, channels), our and MBIRJAX's sinogram layout."""
    return read_nrrd(path)


def read_volume(path):
    """A volume [x = column, y = row, z = slice] on file as (rows, columns, slices), our and MBIRJAX's recon
    layout."""
    return read_nrrd(path).transpose(1, 2, 0)


def nrmse(recon, reference):
    """||recon - reference|| / ||reference|| over the whole volume, as our tools' --reference prints it."""
    recon = np.asarray(recon, dtype=np.float64)
    return float(np.linalg.norm(recon - reference) / np.linalg.norm(reference))


def make_mbirjax_model(mbirjax, geometry, shape):
    """The MBIRJAX model of one of our geometry files (parallel or circular flat-detector cone beam). Both use the
    same sinogram and recon layouts and the same geometry parameter names."""
    angles = np.asarray(geometry["angles"], dtype=np.float32)
    if geometry["geometry"] == "parallel":
        model = mbirjax.ParallelBeamModel(shape, angles)
    elif geometry["geometry"] == "cone" and not geometry["curved_detector"] and not geometry["helical_z_shifts"]:
        model = mbirjax.ConeBeamModel(shape, angles, source_detector_dist=geometry["source_detector_dist"],
                                      source_iso_dist=geometry["source_iso_dist"])
    else:
        raise SystemExit(f"no MBIRJAX counterpart written for {geometry['geometry']} here")
    model.set_params(delta_det_channel=geometry["delta_det_channel"], delta_det_row=geometry["delta_det_row"],
                     det_channel_offset=geometry["det_channel_offset"], det_row_offset=geometry["det_row_offset"],
                     delta_voxel=geometry["delta_voxel"], recon_shape=tuple(geometry["recon_shape"]), verbose=0)
    return model
