"""Latency figures as the benchmarks print them."""

from __future__ import annotations

from engram_lab.eval.metrics import percentile


def p50_p95(seconds: list[float]) -> str:
    """'p50 X ms, p95 Y ms, max Z ms', nearest-rank percentiles (the same definition the evaluation reports use).

    Of 20 samples, p95 is the 19th smallest; an earlier version took the 20th (the maximum).
    """
    return (f"p50 {percentile(seconds, 50) * 1000:.0f} ms, p95 {percentile(seconds, 95) * 1000:.0f} ms, "
            f"max {max(seconds) * 1000:.0f} ms")
