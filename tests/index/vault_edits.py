"""Random edits, deletions, renames and new notes on a small vault, for differential tests of index patches."""

from __future__ import annotations

import random
from pathlib import Path

NAMES = ["Ana Ruiz", "Porto Velho", "Blue Harbour", "Tom Hale", "Green Valley", "Mill Reach", "Rondonia", "Delta Works",
         "Iris Kent", "North Station", "Ana Ruis", "Blue Harbor", "Kestrel Lab", "Orca Bay", "Tom Hales"]
VERBS = ["directed", "visited", "founded", "measured", "replaced", "funded"]
WORDS = ["salinity", "sensor", "drift", "nitrate", "calibration", "river", "film", "capital", "budget", "survey", "1.5",
         "tide", "harbour", "report"]


def note_text(rng: random.Random, title: str) -> str:
    """A note with a title heading, one to three sections, sentences naming entities (so graphs and facts move)."""
    parts = [f"# {title}\n"]
    for section in range(rng.randint(1, 3)):
        if section:
            parts.append(f"## {rng.choice(WORDS).title()} {section}\n")
        for _ in range(rng.randint(1, 4)):
            a, b = rng.sample(NAMES, 2)
            tail = " ".join(rng.choices(WORDS, k=rng.randint(2, 8)))
            parts.append(f"{a} {rng.choice(VERBS)} {b} for the {tail}.\n")
    return "\n".join(parts)


def seed_vault(vault: Path, rng: random.Random, notes: int = 8) -> None:
    for i in range(notes):
        (vault / f"n{i}.md").write_text(note_text(rng, f"Note {i} {rng.choice(NAMES)}"), encoding="utf-8")


def random_change(vault: Path, rng: random.Random) -> str:
    """One edit, deletion, rename or new note; returns what it did (for a failing test's message)."""
    notes = sorted(vault.glob("*.md"))
    action = rng.choice(["edit", "edit", "append", "delete", "rename", "add"]) if len(notes) > 3 else "add"
    target = rng.choice(notes)
    if action == "edit":
        target.write_text(note_text(rng, f"Note {target.stem} {rng.choice(NAMES)}"), encoding="utf-8")
    elif action == "append":
        with target.open("a", encoding="utf-8") as out:
            out.write(f"\n{rng.choice(NAMES)} {rng.choice(VERBS)} {rng.choice(NAMES)} again.\n")
    elif action == "delete":
        target.unlink()
    elif action == "rename":
        target.rename(vault / f"r{rng.randrange(10**6)}.md")
    else:
        (vault / f"a{rng.randrange(10**6)}.md").write_text(note_text(rng, f"Added {rng.choice(NAMES)}"), encoding="utf-8")
    return f"{action} {target.name}"
