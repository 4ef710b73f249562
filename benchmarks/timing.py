"""Latency figures as the benchmarks print them."""

from __future__ import annotations

import statistics


def p50_p95(seconds: list[float]) -> str:
    """'p50 X ms, p95 Y ms' (the nearest-rank 95th percentile)."""
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"
