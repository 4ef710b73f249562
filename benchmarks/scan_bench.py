"""Index a synthetic N-note vault cold (no .engram/) and warm (nothing changed); print a Markdown table.

    python -m benchmarks.scan_bench --notes 10000
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import time
from pathlib import Path

from benchmarks.synthetic_vault import write_synthetic_vault
from engram_lab.indexer import index_vault
from engram_lab.vault import scan_vault


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--dir", type=Path, default=Path(".bench/scan-vault"))
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    if args.dir.exists():
        shutil.rmtree(args.dir)
    write_synthetic_vault(args.dir, args.notes)
    cold, warm, scan_only = [], [], []
    for _ in range(args.repeat):
        shutil.rmtree(args.dir / ".engram", ignore_errors=True)
        cold.append(_timed(lambda: index_vault(args.dir, progress=False)))
        warm.append(_timed(lambda: index_vault(args.dir, progress=False)))
        scan_only.append(_timed(lambda: scan_vault(args.dir)))
    report = index_vault(args.dir, progress=False)
    assert report.failed == [] and report.unchanged == args.notes

    print(f"vault: {args.notes} synthetic notes, {sum(f.stat().st_size for f in args.dir.rglob('*.md')) / 1e6:.1f} MB; "
          f"{os.cpu_count()} cores, Python {platform.python_version()}; median of {args.repeat}")
    print("| step | median s | min s |")
    print("|---|---|---|")
    for name, values in (("cold index (no .engram/: read, parse, extract, graph, tables, ledger)", cold),
                         ("warm index (nothing changed)", warm), ("scan only (stat every note)", scan_only)):
        print(f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} |")


if __name__ == "__main__":
    main()
