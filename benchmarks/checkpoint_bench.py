"""What a checkpoint adds to an agent's applied write (issue 19): the same edits written bare (temporary file,
fsync, rename) and through :func:`engram_lab.agent.checkpoints.apply_changes` (vault lock, recovery check,
staleness check, previous bytes stored content-addressed, two ledger transactions, then the same write).

    python -m benchmarks.checkpoint_bench [--writes 40] [--sizes 1,16,256] [--out .bench/checkpoint]

Sizes are note sizes in KiB. Every write changes one line, so each checkpoint stores new bytes (content
addressing would otherwise deduplicate them and flatter the figure). Re-indexing after the write is not
included: it is the same with or without a checkpoint (``startup_bench`` measures an edit made searchable).
Prints Markdown: p50 / p95 per write and the checkpoint store's size after the run.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from engram_lab.agent.checkpoints import BLOBS_DIR, FileChange, apply_changes, list_checkpoints
from engram_lab.eval.metrics import percentile
from engram_lab.state.db import engram_dir
from engram_lab.vault.write import write_bytes_atomic

LINE = "The AquaSense AS-5 replaced the Halden CT-200 at station {n} after drift was found in March.\n"


def note_text(kib: int, version: int) -> bytes:
    """A Markdown note of about ``kib`` KiB whose first body line names the version (each write differs)."""
    body = "".join(LINE.format(n=i) for i in range(max(1, kib * 1024 // len(LINE))))
    return f"# Stations\n\nrevision {version}\n\n{body}".encode()


def _timed(write: object, count: int) -> list[float]:
    seconds = []
    for version in range(1, count + 1):
        started = time.perf_counter()
        write(version)  # type: ignore[operator]
        seconds.append(time.perf_counter() - started)
    return seconds


def measure(root: Path, kib: int, count: int) -> dict[str, object]:
    """Bare writes, then checkpointed writes of the same sequence, each in a fresh vault."""
    bare_vault, checked_vault = root / f"bare-{kib}", root / f"checked-{kib}"
    for vault in (bare_vault, checked_vault):
        shutil.rmtree(vault, ignore_errors=True)
        vault.mkdir(parents=True)
        (vault / "stations.md").write_bytes(note_text(kib, 0))
    target = bare_vault / "stations.md"
    bare = _timed(lambda v: write_bytes_atomic(target, note_text(kib, v)), count)

    def checked(version: int) -> None:
        before = (checked_vault / "stations.md").read_bytes()
        apply_changes(checked_vault, [FileChange("stations.md", before, note_text(kib, version))],
                      actor="bench", why="benchmark edit")

    apply_changes(checked_vault, [FileChange("stations.md", note_text(kib, 0), note_text(kib, 0))],
                  actor="bench", why="warm-up: creates the ledger")
    with_checkpoint = _timed(checked, count)
    assert len(list_checkpoints(checked_vault, limit=count + 1)) == count + 1
    blobs = sum(p.stat().st_size for p in (engram_dir(checked_vault) / BLOBS_DIR).iterdir())
    return {"kib": kib, "bare": bare, "checked": with_checkpoint, "blob_bytes": blobs}


def _ms(values: list[float], q: int) -> float:
    return percentile(values, q) * 1000


def report(rows: list[dict[str, object]], count: int) -> str:
    lines = [f"{count} applied edits per size, one note, one file per write.", "",
             "| note | bare write p50 / p95 | with checkpoint p50 / p95 | checkpoint adds (p50) | checkpoint store after |",
             "|---|---|---|---|---|"]
    for row in rows:
        bare, checked = row["bare"], row["checked"]
        assert isinstance(bare, list) and isinstance(checked, list)
        lines.append(f"| {row['kib']} KiB | {_ms(bare, 50):.1f} / {_ms(bare, 95):.1f} ms | "
                     f"{_ms(checked, 50):.1f} / {_ms(checked, 95):.1f} ms | {_ms(checked, 50) - _ms(bare, 50):.1f} ms | "
                     f"{int(row['blob_bytes']) / 1024 / 1024:.1f} MiB |")  # type: ignore[arg-type]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=40)
    parser.add_argument("--sizes", default="1,16,256", help="note sizes in KiB, comma-separated")
    parser.add_argument("--out", type=Path, default=Path(".bench/checkpoint"))
    args = parser.parse_args(argv)
    rows = [measure(args.out, int(size), args.writes) for size in args.sizes.split(",")]
    print(report(rows, args.writes))


if __name__ == "__main__":
    main()
