"""Reconstructs the sinogram written by scripts/demo.sh with MBIRJAX (same geometry, default parameters) and
compares time and NRMSE with our run. Usage: compare_mbirjax.py SINOGRAM.nrrd OURS.log"""
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


def main():
    import mbirjax

    sino = read_nrrd(sys.argv[1])
    ours = dict(re.findall(r"(\w+)=([0-9.eE+-]+)", open(sys.argv[2]).read().split("RESULT", 1)[1].splitlines()[0]))
    views = sino.shape[0]
    angles = np.pi * np.arange(views, dtype=np.float64) / views
    model = mbirjax.ParallelBeamModel(sino.shape, angles.astype(np.float32))
    model.set_params(verbose=0)
    phantom = mbirjax.generate_3d_shepp_logan_low_dynamic_range(model.get_params("recon_shape"))
    model.recon(sino, print_logs=False)  # compile once, as a JAX user would
    start = time.time()
    recon, _ = model.recon(sino, print_logs=False)
    seconds = time.time() - start
    nrmse = float(np.linalg.norm(np.asarray(recon) - phantom) / np.linalg.norm(phantom))
    ours_seconds = float(ours["mbir_seconds"])
    print(f"problem: sinogram {sino.shape}, recon {tuple(model.get_params('recon_shape'))}")
    print(f"ours:    {ours_seconds:.2f} s, NRMSE {float(ours['mbir_nrmse']):.4f}")
    print(f"MBIRJAX: {seconds:.2f} s (second, warm run), NRMSE {nrmse:.4f}")
    print(f"time ratio MBIRJAX / ours: {seconds / ours_seconds:.2f}")


if __name__ == "__main__":
    main()
