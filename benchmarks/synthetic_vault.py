"""A deterministic synthetic vault of N notes for benchmarks (people, projects, meetings, links)."""

from __future__ import annotations

import random
from pathlib import Path

FIRST = ["Amara", "Jonas", "Priya", "Marta", "Simon", "Lena", "Tomas", "Ingrid", "Kofi", "Yuki", "Sara", "Omar"]
LAST = ["Okafor", "Lindqvist", "Raman", "Hall", "Berg", "Novak", "Mensah", "Tanaka", "Costa", "Haddad"]
TOPICS = ["salinity", "nitrate", "turbidity", "oxygen", "temperature", "chlorophyll", "discharge", "sediment", "phosphate", "pH"]
ORGS = ["Northern Estuary Research Institute", "Vessel River Authority", "AquaSense", "Halden Instruments", "Coastal Data Centre"]
WORDS = (
    "sample station sensor drift calibration profile bottle freshet wedge tide mixing runoff catchment survey "
    "boat permit dataset flag analysis model trend peak season depth channel marsh reach harbour"
).split()


def _sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, 8)
    return f"{rng.choice(FIRST)} {rng.choice(LAST)} measured {rng.choice(TOPICS)} near {' '.join(words)}."


def note_text(i: int, n: int, rng: random.Random) -> str:
    date = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    links = " ".join(f"[[note-{rng.randrange(n):05d}]]" for _ in range(3))
    lines = [
        "---",
        f"title: Note {i:05d} on {rng.choice(TOPICS)}",
        f"author: {rng.choice(FIRST)} {rng.choice(LAST)}",
        f"date: {date}",
        f"tags: [{rng.choice(TOPICS)}, synthetic]",
        "---",
        f"# Note {i:05d}",
        "",
        " ".join(_sentence(rng) for _ in range(3)),
        f"Related: {links}. Funded by the {rng.choice(ORGS)}.",
        "",
        "## Decisions",
        f"- {date} Decision: {rng.choice(['sample', 'calibrate', 'publish', 'drop'])} {rng.choice(TOPICS)} at S{rng.randint(1, 9)}.",
        f"- [ ] {rng.choice(FIRST)} to check the {rng.choice(WORDS)} #todo",
        "",
    ]
    if i % 5 == 0:
        lines += ["## Table", "| Station | Value |", "|---|---|"] + [f"| S{k} | {rng.random():.3f} |" for k in range(1, 6)] + [""]
    lines += ["## Notes", " ".join(_sentence(rng) for _ in range(4)), ""]
    return "\n".join(lines)


def write_synthetic_vault(root: Path, n: int, seed: int = 7) -> Path:
    """Write ``n`` notes into ``root`` (100 per folder); returns ``root``."""
    rng = random.Random(seed)
    for i in range(n):
        folder = root / f"batch-{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note-{i:05d}.md").write_text(note_text(i, n, rng), encoding="utf-8")
    return root


def vault_or_synthetic(vault: Path | None, folder: Path, n: int) -> Path:
    """``vault`` when given, else a synthetic vault of ``n`` notes in ``folder`` (kept, so a rerun reuses its index)."""
    if vault is not None:
        return vault
    if not folder.exists():
        write_synthetic_vault(folder, n)
    return folder
