"""Writes parallel_beam_reference.txt: small parallel-beam cases computed by the NumPy reference of the
projector spec (shared/spec/projectors_ref.py, float64), which the engine tests compare against.

Usage (from the repository root):
    python3 test/engine/data/make_parallel_beam_reference.py ../shared/spec > test/engine/data/parallel_beam_reference.txt
"""
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import projectors_ref as ref  # noqa: E402

CASES = [
    # name, views, rows, channels, channel pitch, row aspect, channel offset, use ROR, angle span
    ("square_all_pixels", 6, 3, 13, 1.0, 1.0, 0.0, False, np.pi),
    ("aniso_offset_ror", 5, 2, 12, 1.3, 1.7, 0.45, True, 2 * np.pi),
    ("single_view", 1, 2, 9, 0.8, 0.6, -0.3, False, 1.0),
]


def line(key, values):
    values = np.asarray(values, dtype=float).ravel()
    return key + " " + str(values.size) + " " + " ".join(repr(float(v)) for v in values)


def main():
    rng = np.random.default_rng(20261202)
    print("# Parallel-beam projections from shared/spec/projectors_ref.py (float64); regenerate with")
    print("#   python3 test/engine/data/make_parallel_beam_reference.py ../shared/spec"
          " > test/engine/data/parallel_beam_reference.txt")
    print("# Arrays: angles (V), x recon (rows, cols, slices), y sinogram (V, R, C), forward = A x, back = A^T y.")
    for name, V, R, C, dc, aspect, offset, use_ror, span in CASES:
        g = ref.par_setup(V, R, C, dc=dc, aspect=aspect)
        g["off"] = offset
        shape = g["shape"]
        angles = rng.uniform(0.0, span, V).astype(np.float32).astype(float)
        if use_ror:
            mask = ref.ror_mask(shape[0], shape[1])
        else:
            mask = np.ones(shape[:2], dtype=bool)
        pix = [(i, j) for i in range(shape[0]) for j in range(shape[1]) if mask[i, j]]
        x = rng.uniform(0.0, 1.0, shape).astype(np.float32).astype(float)
        y = rng.uniform(0.0, 1.0, (V, R, C)).astype(np.float32).astype(float)
        print("case " + name)
        print(line("sinogram_shape", [V, R, C]))
        print(line("recon_shape", shape))
        print("delta_det_channel", repr(dc))
        print("voxel_row_aspect", repr(aspect))
        print("det_channel_offset", repr(offset))
        print("use_ror_mask", int(use_ror))
        print(line("angles", angles))
        print(line("x", x))
        print(line("y", y))
        print(line("forward", ref.par_fwd(g, x, angles, R, C, pix)))
        print(line("back", ref.par_back(g, y, angles, R, C, pix)))


if __name__ == "__main__":
    main()
