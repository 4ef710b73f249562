"""Caps on what one note may add to the graph, so one pathological note cannot stall a whole vault.

A note with 100,000 wikilinks once became 2 million quads, a 1.4 GB write-ahead
log and a write lock held for ten minutes. Extraction is linear in the note's
length; these caps bound what it writes. What a cap cuts is kept in order (the
first links and mentions of the note stay) and said in a warning recorded on
the document, so the cut is visible, never silent.
"""

from __future__ import annotations

from engram_lab.extract.model import Extraction

LINKS_TO = "links to"
MAX_LINKS = 1_000  # "links to" relations per note
MAX_MENTIONS = 5_000  # entity mentions per note
MAX_RELATIONS = 5_000  # other relations per note
MAX_STATEMENTS = 2_000  # decisions and dated claims per note


def bound_extraction(extraction: Extraction) -> list[str]:
    """Cut ``extraction`` down to the caps in place; one warning per cap applied."""
    warnings: list[str] = []
    links = [r for r in extraction.relations if r.predicate == LINKS_TO]
    others = [r for r in extraction.relations if r.predicate != LINKS_TO]
    if len(links) > MAX_LINKS:
        warnings.append(f"{len(links)} links; only the first {MAX_LINKS} are in the graph")
        kept_links = {id(r) for r in links[:MAX_LINKS]}
        extraction.relations = [r for r in extraction.relations if r.predicate != LINKS_TO or id(r) in kept_links]
    if len(others) > MAX_RELATIONS:
        warnings.append(f"{len(others)} relations besides links; only the first {MAX_RELATIONS} are in the graph")
        kept = {id(r) for r in others[:MAX_RELATIONS]}
        extraction.relations = [r for r in extraction.relations if r.predicate == LINKS_TO or id(r) in kept]
    if len(extraction.entities) > MAX_MENTIONS:
        warnings.append(f"{len(extraction.entities)} entity mentions; only the first {MAX_MENTIONS} are in the graph")
        extraction.entities = extraction.entities[:MAX_MENTIONS]
    if len(extraction.statements) > MAX_STATEMENTS:
        warnings.append(f"{len(extraction.statements)} dated statements; only the first {MAX_STATEMENTS} are in the graph")
        extraction.statements = extraction.statements[:MAX_STATEMENTS]
    extraction.warnings += warnings
    return warnings
