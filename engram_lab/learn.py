"""Learning: machine-written knowledge enters the vault only as an ordinary note under ``learned/``.

A learned note is searchable at once but stays out of the graph (status
``pending-review``) until a person accepts it. Before writing, similar notes are
looked up and shown; a near-duplicate refuses the write unless forced, naming the
note it duplicates. Every learned note names its sources (vault notes or URLs).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from engram_lab.config import load_config
from engram_lab.errors import EngramError
from engram_lab.indexer import LEARNED_DIR
from engram_lab.resolve import names as nm
from engram_lab.retrieve.keyword_search import KeywordSearcher
from engram_lab.vault.paths import OutsideFolderError, resolve_within
from engram_lab.vault.safe_open import read_vault_text
from engram_lab.vault.write import free_path, inside_vault, render_note, slugify, write_bytes_atomic

PENDING = "pending-review"
ACCEPTED = "accepted"
NEAR_DUPLICATE = 0.6  # word-trigram Jaccard (or containment of the new text in an old note) at or above this
_URL = re.compile(r"^https?://\S+$")
_COMPARE_BYTES = 1024 * 1024  # enough of a note to compare titles and word triples
_FRONTMATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n?", re.S)


class DuplicateNoteError(EngramError):
    """The note to learn is already in the vault."""


@dataclass(frozen=True)
class SimilarNote:
    path: str
    title: str
    similarity: float  # 0..1, word-trigram overlap with the new text (1.0 for the same title)
    reason: str


@dataclass
class LearnResult:
    path: str | None  # vault-relative; None when refused
    similar: list[SimilarNote] = field(default_factory=list)


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = nm.tokens(text)
    return {tuple(words[i : i + 3]) for i in range(max(1, len(words) - 2))} if words else set()


def similar_notes(vault: Path, title: str, body: str, k: int = 5) -> list[SimilarNote]:
    """Notes whose title or content resembles the new note, most similar first."""
    try:
        searcher = KeywordSearcher(vault)
    except EngramError:
        return []  # nothing indexed yet: nothing to compare with
    new = _shingles(body)
    seen: dict[str, SimilarNote] = {}
    for result in searcher.search(f"{title}\n{body}"[:2000], k=20):
        if result.path in seen:
            continue
        try:  # never through a link: the indexed note may have been swapped for one since
            text = read_vault_text(vault, result.path, _COMPARE_BYTES)
        except OSError:
            continue
        old = _shingles(_FRONTMATTER.sub("", text))
        jaccard = len(new & old) / len(new | old) if new and old else 0.0
        contained = len(new & old) / len(new) if new else 0.0
        same_title = nm.loose(title) == nm.loose(_title_of(text, result.path))
        similarity = 1.0 if same_title else max(jaccard, contained)
        reason = "same title" if same_title else f"{similarity:.0%} of word triples shared"
        seen[result.path] = SimilarNote(result.path, _title_of(text, result.path), round(similarity, 3), reason)
    return sorted(seen.values(), key=lambda s: -s.similarity)[:k]


def _title_of(text: str, path: str) -> str:
    title = _frontmatter(text).get("title")
    if isinstance(title, str):
        return title
    heading = re.search(r"^#\s+(.+)$", text, re.M)
    return heading.group(1).strip() if heading else Path(path).stem


def check_sources(vault: Path, sources: list[str]) -> list[str]:
    """Every source is a URL or a note in the vault; at least one is required."""
    cleaned = [s.strip() for s in sources if s and s.strip()]
    if not cleaned:
        raise EngramError("a learned note needs at least one source: a vault note (path) or a URL")
    for source in cleaned:
        if _URL.match(source):
            continue
        try:
            path = resolve_within(vault, source)
        except OutsideFolderError:
            raise EngramError(f"source {source!r} is outside the vault") from None
        if not path.is_file():
            raise EngramError(f"source {source!r} is neither a URL nor a note in the vault")
    return cleaned


def learn(vault: Path, title: str, body: str, sources: list[str], *, force: bool = False,
          now: dt.datetime | None = None) -> LearnResult:
    """Write ``learned/<slug>.md`` pending review, unless a near-duplicate exists (then raise, unless forced)."""
    if not title.strip():
        raise EngramError("a learned note needs a title")
    if not body.strip():
        raise EngramError("a learned note needs a body")
    limit = load_config(vault).max_note_bytes
    if len(body.encode("utf-8")) > limit:  # the index would record it as failed; do not write it at all
        raise EngramError(f"the body is {len(body.encode('utf-8'))} bytes, more than max_note_mb ({limit} bytes) allows")
    cleaned = check_sources(vault, sources)
    similar = similar_notes(vault, title, body)
    duplicate = next((s for s in similar if s.similarity >= NEAR_DUPLICATE), None)
    if duplicate is not None and not force:
        raise DuplicateNoteError(f"not written: {duplicate.path} ({duplicate.title!r}) already says this "
                                 f"({duplicate.reason}); edit that note, or force the write")
    stamp = (now or dt.datetime.now(dt.timezone.utc)).isoformat(timespec="seconds")
    frontmatter = {"title": title.strip(), "status": PENDING, "learned_at": stamp, "sources": cleaned}
    target = free_path(vault / LEARNED_DIR, slugify(title), ".md")
    inside_vault(vault, target)
    write_bytes_atomic(target, render_note(frontmatter, f"# {title.strip()}\n\n{body.strip()}").encode("utf-8"))
    return LearnResult(target.relative_to(vault).as_posix(), similar)


def pending_learned(vault: Path) -> list[str]:
    """Vault-relative paths of learned notes still waiting for a person."""
    folder = vault / LEARNED_DIR
    out = []
    for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
        try:
            meta = _frontmatter(read_vault_text(vault, path.relative_to(vault).as_posix(), _COMPARE_BYTES))
        except OSError:
            continue  # a link or a vanished file is no learned note
        if str(meta.get("status", "")).lower() != ACCEPTED:
            out.append(path.relative_to(vault).as_posix())
    return out


def _frontmatter(text: str) -> dict[str, object]:
    match = _FRONTMATTER.match(text)
    if not match:
        return {}
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError:
        return {}
    return meta if isinstance(meta, dict) else {}


def review_status(text: str) -> str:
    """The ``status:`` a note's frontmatter gives (lower case; "" when none): what the review gate reads."""
    return str(_frontmatter(text).get("status", "")).strip().lower()


def accept_learned(vault: Path, rel_path: str, *, now: dt.datetime | None = None) -> str:
    """Flip a learned note to ``status: accepted`` (a person's act); the next index run extracts it."""
    try:  # resolved first, so `learned/../index.md` (or a link out of learned/) is refused
        path = resolve_within(resolve_within(vault, LEARNED_DIR), rel_path.strip(), base=vault)
    except OutsideFolderError:
        raise EngramError(f"{rel_path}: only notes under {LEARNED_DIR} wait for acceptance") from None
    if path.suffix != ".md" or not path.is_file():
        raise EngramError(f"{rel_path}: no such learned note")
    rel = path.relative_to(vault.resolve()).as_posix()
    text = path.read_text(encoding="utf-8")
    match = _FRONTMATTER.match(text)
    if not match:
        raise EngramError(f"{rel_path}: has no frontmatter, so no review status to change")
    meta = _frontmatter(text)
    if str(meta.get("status", "")).lower() == ACCEPTED:
        raise EngramError(f"{rel_path}: already accepted")
    meta["status"] = ACCEPTED
    meta["accepted_at"] = (now or dt.datetime.now(dt.timezone.utc)).isoformat(timespec="seconds")
    write_bytes_atomic(path, render_note(meta, text[match.end():]).encode("utf-8"))
    return rel
