"""The paper's figures for GOHR runs: cumulative error curves with a TCE density (Figure 3), median
curves with bootstrap bands (Figure 4) and TCE box plots (Figure 5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy import stats
from zoo_report.stats.bands import median_bands

from .errors import RunErrors


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def cumulative_curves(run: RunErrors, path: Path) -> Path:
    """Every trial's cumulative errors by episode (log y) and a kernel density of the TCE at the right."""
    plt = _pyplot()
    fig, (ax, side) = plt.subplots(1, 2, figsize=(8, 4.5), sharey=True, gridspec_kw={"width_ratios": [5, 1]})
    episodes = np.arange(1, run.errors.shape[1] + 1)
    for curve in run.cumulative:
        ax.plot(episodes, np.maximum(curve, 1), lw=0.6, alpha=0.5)
    ax.set_yscale("log")
    ax.set_xlabel("episode")
    ax.set_ylabel("cumulated errors")
    ax.set_title(f"{run.label}: {len(run.errors)} learning runs")
    tce = np.maximum(run.tce, 1)
    grid = np.geomspace(tce.min() * 0.8, tce.max() * 1.25, 200)
    side.plot(_log_density(tce, grid), grid)
    side.set_xlabel("TCE density")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _log_density(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """A kernel density of log values (a constant sample gives a spike)."""
    logs = np.log(values)
    if np.ptp(logs) == 0:
        return np.where(np.isclose(np.log(grid), logs[0], atol=0.02), 1.0, 0.0)
    return stats.gaussian_kde(logs)(np.log(grid))


def median_curves(runs: list[RunErrors], path: Path, resamples: int) -> Path:
    """Median cumulative errors by episode with 95% bootstrap bands of the median."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for run in runs:
        median, low, high = median_bands(run.cumulative, resamples=resamples)
        episodes = np.arange(1, len(median) + 1)
        ax.plot(episodes, median, label=run.label)
        ax.fill_between(episodes, low, high, alpha=0.25, label=f"{run.label}: 95% CI of the median")
    ax.set_xlabel("episode")
    ax.set_ylabel("median cumulated errors")
    ax.set_title(f"medians with 95% CIs ({resamples:,} bootstraps)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def tce_boxes(runs: list[RunErrors], path: Path) -> Path:
    """Box-and-whisker plots of TCE (whiskers at 1.5 IQR), with a log y-axis for the outliers."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(1.8 + 1.4 * len(runs), 4.5))
    ax.boxplot([run.tce for run in runs], whis=1.5, patch_artist=True)
    ax.set_xticks(range(1, len(runs) + 1), [run.label for run in runs], rotation=20, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("terminal cumulated error (TCE)")
    ax.set_title("TCE per run (boxes: quartiles; whiskers: 1.5 IQR)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def tce_densities(runs: list[RunErrors], path: Path) -> Path:
    """Kernel densities of log TCE per run."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    low = min(max(run.tce.min(), 1) for run in runs) * 0.8
    high = max(run.tce.max() for run in runs) * 1.25
    grid = np.geomspace(low, high, 300)
    for run in runs:
        ax.plot(grid, _log_density(np.maximum(run.tce, 1), grid), label=run.label)
    ax.set_xscale("log")
    ax.set_xlabel("TCE")
    ax.set_ylabel("density of log TCE")
    ax.set_title("distribution of TCE over trials (kernel density)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
