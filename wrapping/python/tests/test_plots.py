"""itk_mbir.plot_convergence (matplotlib, Agg): the panels hold the log's values per iteration, the change is on a
log scale with the stop threshold, a prior loss that was not computed says so, and a log without iterations is
refused."""

import math

import numpy as np
import pytest

import itk_mbir


def test_a_recon_log_is_drawn_with_its_values_and_threshold(pyplot, parallel_scan, tmp_path):
    model, _, sinogram = parallel_scan
    model.set_params(verbose=0)
    _, log = model.recon(sinogram, max_iterations=6, stop_threshold_change_pct=0.0, compute_prior_loss=True)
    path = tmp_path / "convergence.png"
    figure = itk_mbir.plot_convergence(log, path=path)
    change, forward, prior, alpha = figure.axes
    expected = {key: [entry[key] for entry in log["iterations"]] for key in ("change_pct", "forward_loss",
                                                                             "prior_loss", "alpha")}
    for ax, key in zip((change, forward, prior, alpha), expected):
        x, y = ax.get_lines()[0].get_data()
        assert list(x) == list(range(1, len(log["iterations"]) + 1))
        np.testing.assert_allclose(y, expected[key])
    assert change.get_yscale() == "log"
    assert expected["change_pct"][-1] < max(expected["change_pct"]) / 3, "a converging recon's change falls"
    threshold = change.get_lines()[1]
    assert threshold.get_linestyle() == "--" and threshold.get_ydata()[0] == 0.0
    picture = pyplot.imread(path)
    assert picture.shape[:2] == (600, 900) and picture[..., :3].std() > 0.05  # drawn, not blank


def test_a_prior_loss_not_computed_says_how_to_get_it(pyplot):
    iterations = [dict(iteration=i, change_pct=10.0 / (i + 1), forward_loss=2.0 - 0.1 * i, prior_loss=math.nan,
                       alpha=1.2, num_subsets=4, seconds=0.1, total_cost=math.nan) for i in range(5)]
    figure = itk_mbir.plot_convergence(iterations, stop_threshold=0.5, title="denoising")
    change, _, prior, _ = figure.axes
    assert not prior.get_lines()
    assert "compute_prior_loss=True" in prior.texts[0].get_text()
    assert change.get_lines()[1].get_ydata()[0] == 0.5
    assert figure._suptitle.get_text() == "denoising"


@pytest.mark.parametrize("log, message", [({"iterations": []}, "no iterations"), ([], "no iterations"),
                                          ([{"iteration": 0}], "lack change_pct")])
def test_logs_that_cannot_be_drawn_are_refused(pyplot, log, message):
    with pytest.raises(ValueError, match=message):
        itk_mbir.plot_convergence(log)
