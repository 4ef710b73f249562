"""Entity kinds: eleven core kinds, custom kinds from ``engram.toml``, and which pairs can never be one entity.

Incompatible pairs are merge vetoes for entity resolution: a Person is never an
Organization, a Time or a Quantity is never anything but itself. ``Concept`` is
the fallback kind when the text does not say, so it is compatible with every
kind except Time and Quantity.
"""

from __future__ import annotations

from itertools import combinations

CORE_KINDS: tuple[str, ...] = (
    "Person", "Organization", "Place", "Project", "Concept", "Artifact", "Event", "Decision", "Task", "Time", "Quantity",
)
DEFAULT_KIND = "Concept"

_LITERAL_KINDS = frozenset({"Time", "Quantity"})  # values, not things: compatible with nothing else
_INCOMPATIBLE_THINGS: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("Person", "Organization"), ("Person", "Place"), ("Person", "Project"), ("Person", "Artifact"), ("Person", "Event"),
        ("Person", "Decision"), ("Person", "Task"), ("Organization", "Place"), ("Organization", "Event"),
        ("Organization", "Decision"), ("Organization", "Task"), ("Place", "Event"), ("Place", "Decision"), ("Place", "Task"),
        ("Place", "Artifact"), ("Artifact", "Event"), ("Decision", "Task"), ("Decision", "Artifact"), ("Event", "Task"),
    )
)


def compatible(kind_a: str, kind_b: str) -> bool:
    """Whether two kinds may denote the same entity (custom kinds are compatible with Concept and themselves)."""
    if kind_a == kind_b:
        return True
    if kind_a in _LITERAL_KINDS or kind_b in _LITERAL_KINDS:
        return False
    if DEFAULT_KIND in (kind_a, kind_b):
        return True
    if kind_a in CORE_KINDS and kind_b in CORE_KINDS:
        return frozenset((kind_a, kind_b)) not in _INCOMPATIBLE_THINGS
    return False


def incompatible_pairs(kinds: tuple[str, ...] = CORE_KINDS) -> list[tuple[str, str]]:
    """Every vetoed pair among ``kinds``, for documentation and the resolution layer."""
    return [(a, b) for a, b in combinations(kinds, 2) if not compatible(a, b)]


def canonical_kind(value: object, custom: tuple[str, ...] = ()) -> str | None:
    """Map a frontmatter ``kind:`` to a known kind (case-insensitive), or None."""
    if not isinstance(value, str):
        return None
    wanted = value.strip().casefold()
    for kind in (*CORE_KINDS, *custom):
        if kind.casefold() == wanted:
            return kind
    aliases = {"organisation": "Organization", "org": "Organization", "meeting": "Event", "location": "Place", "date": "Time"}
    return aliases.get(wanted)
