"""Reconstructs the sinogram written by scripts/demo.sh with MBIRJAX (same geometry, default parameters) and
compares time and NRMSE with our run. Usage: compare_mbirjax.py GEOMETRY.json SINOGRAM.nrrd OURS.log"""
import json
import re
import sys
import time

import numpy as np


def read_nrrd(path):
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
        sizes = [int(s) for s in header["sizes"].split()]  # channel, row, view
        dtype = "<f4" if header.get("endian", "little") == "little" else ">f4"
        data = np.frombuffer(f.read(), dtype=dtype)
    return data.reshape(sizes[2], sizes[1], sizes[0]).astype(np.float32)  # (views, rows, channels)


def make_model(mbirjax, geometry, shape):
    """The MBIRJAX model of one of our geometry files (parallel or circular flat-detector cone beam)."""
    angles = np.asarray(geometry["angles"], dtype=np.float32)
    if geometry["geometry"] == "parallel":
        model = mbirjax.ParallelBeamModel(shape, angles)
    elif geometry["geometry"] == "cone" and not geometry["curved_detector"] and not geometry["helical_z_shifts"]:
        model = mbirjax.ConeBeamModel(shape, angles, source_detector_dist=geometry["source_detector_dist"],
                                      source_iso_dist=geometry["source_iso_dist"])
    else:
        raise SystemExit(f"compare_mbirjax.py: no MBIRJAX counterpart written for {geometry['geometry']} here")
    model.set_params(delta_det_channel=geometry["delta_det_channel"], delta_det_row=geometry["delta_det_row"],
                     det_channel_offset=geometry["det_channel_offset"], det_row_offset=geometry["det_row_offset"],
                     delta_voxel=geometry["delta_voxel"], recon_shape=tuple(geometry["recon_shape"]), verbose=0)
    return model


def main():
    import mbirjax

    geometry = json.load(open(sys.argv[1]))
    sino = read_nrrd(sys.argv[2])
    ours = dict(re.findall(r"(\w+)=([0-9.eE+-]+)", open(sys.argv[3]).read().split("RESULT", 1)[1].splitlines()[0]))
    model = make_model(mbirjax, geometry, sino.shape)
    phantom = mbirjax.generate_3d_shepp_logan_low_dynamic_range(model.get_params("recon_shape"))
    model.recon(sino, print_logs=False)  # compile once, as a JAX user would
    start = time.time()
    recon, _ = model.recon(sino, print_logs=False)
    seconds = time.time() - start
    nrmse = float(np.linalg.norm(np.asarray(recon) - phantom) / np.linalg.norm(phantom))
    ours_seconds = float(ours["mbir_seconds"])
    print(f"problem: {geometry['geometry']}, sinogram {sino.shape}, recon {tuple(model.get_params('recon_shape'))}")
    print(f"ours:    {ours_seconds:.2f} s, NRMSE {float(ours['mbir_nrmse']):.4f}")
    print(f"MBIRJAX: {seconds:.2f} s (second, warm run), NRMSE {nrmse:.4f}")
    print(f"time ratio MBIRJAX / ours: {seconds / ours_seconds:.2f}")


if __name__ == "__main__":
    main()
