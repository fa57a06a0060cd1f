#!/usr/bin/env python3
"""Fits the polynomial of kernels::arcTangent (include/mbir/kernels/ArcTangent.h).

atan(t) ~ t P(t^2) on 0 <= t <= tan(pi/8), P of degree 4, for the least largest relative error:
Lawson's iteratively reweighted least squares on a fine grid. Needs NumPy. Prints the coefficients
(constant first) and the error left, in exact arithmetic and with the float evaluation the header does.
"""
import numpy as np

end = np.tan(np.pi / 8)
t = np.linspace(1e-6, end, 20001)
target = np.arctan(t) / t  # relative error of t P against atan(t) = error of P against atan(t) / t
powers = np.vstack([(t * t) ** k for k in range(5)]).T
weights = np.full(t.shape, 1.0 / t.size)
for _ in range(400):  # Lawson: weights grow where the error is largest, tending to the minimax fit
    root = np.sqrt(weights)
    coefficients, *_ = np.linalg.lstsq(powers * root[:, None], target * root, rcond=None)
    weights *= np.abs(powers @ coefficients - target)
    weights /= weights.sum()

print("coefficients:", ", ".join("%.9g" % c for c in coefficients))
print("largest relative error, exact arithmetic: %.2g" % np.max(np.abs(powers @ coefficients - target)))
tf = t.astype(np.float32)
square = tf * tf
p = np.float32(coefficients[4])
for c in coefficients[3::-1]:
    p = np.float32(p * square + np.float32(c))
print("largest error in float: %.2g" % np.max(np.abs((tf * p).astype(np.float64) - np.arctan(tf.astype(np.float64)))))
