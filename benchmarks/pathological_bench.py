"""Heuristic extraction of pathological notes at growing sizes: linear work doubles with the size, quadratic quadruples.

    python -m benchmarks.pathological_bench
"""

from __future__ import annotations

import random
import time

from engram_lab.extract.heuristic.extractor import HeuristicExtractor
from engram_lab.extract.limits import bound_extraction
from engram_lab.extract.segment import segment_document
from engram_lab.vault import parse_document

_WORDS = ["Alpha", "the", "river", "Halden", "met", "on", "2026-03-01", "and", "Dr.", "Marta", "Hall", "of"]


def one_line(chars: int) -> str:
    """One paragraph without a sentence break: names, dates and filler words."""
    rng = random.Random(0)
    words: list[str] = []
    size = 0
    while size < chars:
        if rng.random() < 0.5:
            word = rng.choice(_WORDS) + str(rng.randrange(10**6))
        else:
            word = rng.choice(["the", "and", "was", "of", "met", "Bravo"])
        words.append(word)
        size += len(word) + 1
    return "# Big\n\n" + " ".join(words) + "\n"


def many_links(links: int) -> str:
    return "# Links\n\n" + "\n".join(f"- 2026-01-01 Decision: see [[Note {i}]]" for i in range(links)) + "\n"


def main() -> None:
    print("| note | size | extraction | entity mentions | relations | after the caps |")
    print("|---|---|---|---|---|---|")
    for name, make, sizes in (("one line", one_line, (80_000, 160_000, 1_000_000)),
                              ("wikilinks", many_links, (5_000, 10_000, 100_000))):
        for size in sizes:
            text = make(size)
            started = time.perf_counter()
            doc = parse_document(text, "x.md", "markdown")
            extraction = HeuristicExtractor().extract(doc, segment_document(doc))
            seconds = time.perf_counter() - started
            mentions, relations = len(extraction.entities), len(extraction.relations)
            bound_extraction(extraction)
            print(f"| {name} | {size:,} {'chars' if name == 'one line' else 'links'} | {seconds:.2f} s | {mentions:,} | "
                  f"{relations:,} | {len(extraction.entities):,} mentions, {len(extraction.relations):,} relations |")


if __name__ == "__main__":
    main()
