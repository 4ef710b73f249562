"""Peak resident memory per stage of a cold `engram index` on a synthetic vault (Linux: /proc).

    python -m benchmarks.memory_stages --dir DIR --notes 20000

Issue 18's target is the whole cold build's peak (<= 8 GB at 100,000 notes, `/usr/bin/time -v` around
`query_bench`); this says which stage sets it. At each change of progress stage the process's high-water mark
(VmHWM) is read for the stage that ended and reset (`/proc/self/clear_refs`), so each row is that stage's own peak.
A 20,000-note vault shows the shape in ~5 minutes. The vault is written once under DIR per note count and reused;
its index is removed before each run. Hashed stand-in embedder (``hashed_embedder.py``). Prints Markdown (MiB).
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from benchmarks.hashed_embedder import HashedWords
from benchmarks.synthetic_vault import write_synthetic_vault
from benchmarks.timing import StageClock
from engram_lab.engine import Engine


CLEAR_REFS = Path("/proc/self/clear_refs")


def _peak_and_resident_mib() -> tuple[int, int]:
    """VmHWM and VmRSS from one read of /proc/self/status (two reads could see the set grow in between)."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmHWM"].split()[0]) // 1024, int(fields["VmRSS"].split()[0]) // 1024


def _reset_peak() -> None:
    CLEAR_REFS.write_text("5")  # 5: reset the peak resident set size to the current one


class StagePeaks(StageClock):
    """A progress listener that records each stage's peak and end resident memory (MiB) and its seconds, in order;
    the time before the first stage is a row too ("start")."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[str, int, int, float]] = []
        self._stage, self._since = "start", time.perf_counter()

    def stop(self) -> None:
        if self._stage is not None:
            self.rows.append((self._stage, *_peak_and_resident_mib(), time.perf_counter() - self._since))
            _reset_peak()
        super().stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--notes", type=int, default=20000)
    args = parser.parse_args()
    vault = args.dir / f"memory-vault-{args.notes}"
    if not vault.exists():
        write_synthetic_vault(vault, args.notes)
    shutil.rmtree(vault / ".engram", ignore_errors=True)
    engine = Engine(vault, embedder_factory=HashedWords())
    peaks = StagePeaks()
    _reset_peak()
    engine.index(progress=False, on_stage=peaks)
    peaks.stop()
    print(f"### Peak memory per stage, cold index of {args.notes:,} notes\n")
    print("| stage | peak | resident at its end | seconds |\n|---|---|---|---|")
    for stage, peak, end, seconds in peaks.rows:
        print(f"| {stage} | {peak:,} MiB | {end:,} MiB | {seconds:.1f} |")


if __name__ == "__main__":
    main()
