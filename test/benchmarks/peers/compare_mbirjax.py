"""Reconstructs the sinogram written by scripts/demo.sh with MBIRJAX (same geometry, default parameters) and
compares time and NRMSE with our run. Usage: compare_mbirjax.py GEOMETRY.json SINOGRAM.nrrd OURS.log"""
import json
import re
import sys
import time

import numpy as np

from peers_common import make_mbirjax_model, read_sinogram


def main():
    import mbirjax

    geometry = json.load(open(sys.argv[1]))
    sino = read_sinogram(sys.argv[2])
    ours = dict(re.findall(r"(\w+)=([0-9.eE+-]+)", open(sys.argv[3]).read().split("RESULT", 1)[1].splitlines()[0]))
    model = make_mbirjax_model(mbirjax, geometry, sino.shape)
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
