"""Latency figures as the benchmarks print them."""

from __future__ import annotations

import time

import numpy as np

from engram_lab.eval.metrics import percentile
from engram_lab.index.embeddings import DEFAULT_MODEL, default_embedder


def p50_p95(seconds: list[float]) -> str:
    """'p50 X ms, p95 Y ms, max Z ms', nearest-rank percentiles (the same definition the evaluation reports use).

    Of 20 samples, p95 is the 19th smallest; an earlier version took the 20th (the maximum).
    """
    return (f"p50 {percentile(seconds, 50) * 1000:.0f} ms, p95 {percentile(seconds, 95) * 1000:.0f} ms, "
            f"max {max(seconds) * 1000:.0f} ms")


class StageClock:
    """Seconds per stage of an index run, as its progress listener hears them (``on_stage``)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stage: str | None = None
        self._since = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage:
            self.stop()
            self._stage, self._since = stage, time.perf_counter()

    def stop(self) -> None:
        if self._stage is not None:
            self.seconds[self._stage] = self.seconds.get(self._stage, 0.0) + time.perf_counter() - self._since
            self._stage = None


class ModelClock:
    """An embedder factory that counts the seconds spent inside the model's ``encode``: the "model's own time on
    the same texts" that issue 18's cold-index ratio divides by. Same name as the packaged model, so the
    embedding cache is shared with ordinary runs."""

    name = DEFAULT_MODEL

    def __init__(self) -> None:
        self.seconds = 0.0
        self.texts = 0

    def __call__(self) -> ModelClock:
        return self

    @property
    def dimension(self) -> int:
        return default_embedder().dimension

    def expect(self, words: int) -> None:
        default_embedder().expect(words)

    def encode(self, texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return default_embedder().encode(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.texts += len(texts)
