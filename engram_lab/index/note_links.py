"""Which note a link points at: one rule for the retrieval graph's link edges and an agent's back-links.

A wikilink names a note by its title, file stem or path without the suffix; a Markdown link gives
a vault path, or the web address of a Markdown file. Notes copied from a repository keep links to
the repository's web pages of each other (``…/blob/main/text/0012-first.md``): such an address is
the note whose vault path ends it, when that path has a folder (a bare ``README.md`` at the root
would match every other project's README).
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import unquote, urlsplit

from engram_lab.graph import vocabulary as v
from engram_lab.last_few import LastFew


class NoteLinkResolver:
    """Resolve a link target to the position of a note in ``paths`` (None: no note of this vault)."""

    def __init__(self, titles: list[str | None], paths: list[str]) -> None:
        self._by_path = {path: i for i, path in enumerate(paths)}
        self._by_name: dict[str, int] = {}
        self._answers: dict[str, int | None] = {}  # target -> note, as resolved before by this resolver
        for i, (title, path) in enumerate(zip(titles, paths)):
            for key in _name_keys(title or "", path):
                self._by_name.setdefault(key, i)

    def __call__(self, target: str) -> int | None:
        if target in self._answers:
            return self._answers[target]
        found = self._resolve(target)
        if len(self._answers) < MAX_ANSWERS:
            self._answers[target] = found
        return found

    def _resolve(self, target: str) -> int | None:
        if target in self._by_path:
            return self._by_path[target]
        parts = urlsplit(target)
        if parts.scheme in ("http", "https"):
            return self._web_copy(unquote(parts.path))
        return self._by_name.get(v.normalise_label(target)) if target else None

    def _web_copy(self, url_path: str) -> int | None:
        segments = [s for s in url_path.split("/") if s]
        for length in range(len(segments), 1, -1):  # the longest vault path the address ends with
            found = self._by_path.get("/".join(segments[-length:]))
            if found is not None:
                return found
        return None


MAX_ANSWERS = 1 << 20  # targets a resolver remembers


def note_link_resolver(titles: list[str | None], paths: list[str]) -> NoteLinkResolver:
    """A resolver for these notes: the last one made while the titles and paths are the same (an edit rarely moves
    them), with the answers it gave; resolving every link of the vault again took 0.04 s of each edit at 10,000
    notes."""
    last = _LAST.get(0)
    if last is not None and last[0] == titles and last[1] == paths:
        return last[2]
    resolver = NoteLinkResolver(titles, paths)
    _LAST[0] = (list(titles), list(paths), resolver)
    return resolver


_LAST: LastFew[int, tuple[list[str | None], list[str], NoteLinkResolver]] = LastFew(1)


@lru_cache(maxsize=1 << 17)  # a long-lived process rebuilds the resolver on every edit, over every note
def _name_keys(title: str, path: str) -> tuple[str, ...]:
    """The normalised names a note answers to, in order of precedence: its title, file stem, path without suffix."""
    stem, without_suffix = stem_and_base(path)
    return tuple(v.normalise_label(key) for key in (title, stem, without_suffix) if key)


def stem_and_base(path: str) -> tuple[str, str]:
    """``PurePosixPath(path).stem`` and ``str(PurePosixPath(path).with_suffix(""))`` for a vault-relative path, by
    string operations (pathlib took 0.15 s of the first edit in a process at 10,000 notes)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    stem = name[:dot] if 0 < dot < len(name) - 1 else name
    return stem, path[: len(path) - len(name)] + stem
