"""The entities one document knows so far: names, aliases, kinds, and local short forms.

It is the memory carried from segment to segment: a surname, a pronoun or "the
company" in a later segment resolves against what earlier segments found. What
resolves here stays local to the document; nothing here merges entities globally.
"""

from __future__ import annotations

from engram_lab.extract.kinds import DEFAULT_KIND
from engram_lab.extract.model import EntityRef
from engram_lab.graph.vocabulary import normalise_label

_SPECIFIC_OVER_GUESS = {None, DEFAULT_KIND}


class EntityRegistry:
    def __init__(self) -> None:
        self._names: dict[str, str] = {}  # key -> display name
        self._kinds: dict[str, str | None] = {}
        self._alias: dict[str, str] = {}  # normalised alias -> key
        self.aliases: dict[str, list[str]] = {}
        self.order: list[str] = []
        self._by_last_word: dict[str, list[str]] = {}  # so a surname lookup does not scan every name (linear notes)

    def add(self, name: str, kind: str | None, aliases: tuple[str, ...] | list[str] = ()) -> str:
        """Register ``name`` (or find it by name or alias); a specific kind replaces a guess."""
        key = self.lookup(name)
        if key is None:
            key = normalise_label(name) or name
            self._names[key] = name.strip()
            self._kinds[key] = kind
            self._alias[key] = key
            self.order.append(key)
            if "-" in key:
                self._by_last_word.setdefault(key.rsplit("-", 1)[1], []).append(key)
        elif kind is not None and self._kinds.get(key) in _SPECIFIC_OVER_GUESS:
            self._kinds[key] = kind
        for alias in aliases:
            norm = normalise_label(alias)
            if norm and norm not in self._alias:
                self._alias[norm] = key
                self.aliases.setdefault(key, []).append(alias.strip())
        return key

    def lookup(self, name: str) -> str | None:
        return self._alias.get(normalise_label(name))

    def refine(self, key: str, kind: str | None) -> None:
        if kind is not None and self._kinds.get(key) in _SPECIFIC_OVER_GUESS:
            self._kinds[key] = kind

    def kind(self, key: str) -> str:
        return self._kinds.get(key) or DEFAULT_KIND

    def ref(self, key: str) -> EntityRef:
        return EntityRef(self._names[key], self.kind(key))

    def by_surname(self, word: str) -> str | None:
        """A single word that is the last word of exactly one known multi-word person (or unknown-kind) name."""
        norm = normalise_label(word)
        matches = [key for key in self._by_last_word.get(norm, ()) if self._kinds.get(key) in ("Person", None, DEFAULT_KIND)]
        return matches[0] if len(matches) == 1 else None

    def latest_of_kind(self, kind: str | None, recent: list[str]) -> str | None:
        for key in reversed(recent):
            if kind is None or self.kind(key) == kind:
                return key
        return None
