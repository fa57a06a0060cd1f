"""Convergence plots of a recon's or a denoising's log with matplotlib: per iteration, the change of the volume with
the stop threshold, the forward loss, the prior loss and the step size."""

import math

PANELS = (("change_pct", "change (%)", True), ("forward_loss", "forward loss", False),
          ("prior_loss", "prior loss per voxel", False), ("alpha", "step size (alpha)", False))


def plot_convergence(log, path=None, title=None, stop_threshold=None, show=False):
    """Draws the log that model.recon, model.prox_map or denoise returns (or its "iterations" list): four panels
    over the iterations, the change in % on a log scale with the stop threshold as a dashed line, the forward loss
    (about 1 at convergence), the prior loss (when the run computed it: compute_prior_loss=True) and the mean step
    size. stop_threshold: the threshold line in % (default: the log's recon_params). Writes the figure to `path` (PNG, PDF, SVG, ... by extension) when given; returns the matplotlib Figure."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError("plot_convergence needs matplotlib: pip install matplotlib") from error
    iterations = log.get("iterations") if isinstance(log, dict) else log
    if not iterations:
        raise ValueError("the log holds no iterations to plot (pass the log a recon or denoise returned)")
    missing = [key for key, _, _ in PANELS if key not in iterations[0]]
    if missing:
        raise ValueError(f"the log's iterations lack {', '.join(missing)}: not a recon or denoise log")
    threshold = stop_threshold
    if threshold is None and isinstance(log, dict):
        threshold = (log.get("recon_params") or log.get("params") or {}).get("stop_threshold_change_pct")
    numbers = [entry["iteration"] + 1 for entry in iterations]

    figure, axes = plt.subplots(2, 2, figsize=(9, 6), sharex=True)
    for ax, (key, label, logarithmic) in zip(axes.ravel(), PANELS):
        values = [float(entry[key]) for entry in iterations]
        ax.set_title(label, fontsize=10)
        ax.grid(True, alpha=0.3)
        if all(math.isnan(v) for v in values):
            ax.text(0.5, 0.5, "not computed\n(compute_prior_loss=True)", ha="center", va="center",
                    transform=ax.transAxes, color="gray")
            continue
        ax.plot(numbers, values, marker="o", markersize=3, label=label)
        if logarithmic and all(v > 0 for v in values):
            ax.set_yscale("log")
        if key == "change_pct" and threshold is not None:
            ax.axhline(float(threshold), color="red", linestyle="--", label=f"stop threshold {threshold:g}%")
            ax.legend(fontsize=8)
    for ax in axes[1]:
        ax.set_xlabel("iteration")
    figure.suptitle(title or f"Convergence over {len(iterations)} iterations")
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=100)
    if show:
        plt.show()
    return figure
