"""A span-preserving Markdown reader for the structure the engine needs.

Not a renderer: it finds frontmatter, headings (ATX and setext), wikilinks,
Markdown links, ``#tags``, pipe tables, list items and dated lines, each with
character offsets into the original text. Code (fenced and inline) and HTML
comments are masked first, so nothing inside them is mistaken for structure.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from engram_lab.vault.model import (
    DatedLine,
    Frontmatter,
    Heading,
    ListItem,
    MarkdownLink,
    MarkdownModel,
    Span,
    Table,
    TableCell,
    Tag,
    WikiLink,
)


# libyaml's loader is ~10x faster than the pure-Python one; both are "safe" loaders.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class FrontmatterError(ValueError):
    """Frontmatter that cannot be read; the message says where."""


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(?:\[([ xX])\][ \t]+)?")
_TABLE_DELIM = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_INLINE_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_WIKILINK = re.compile(r"(!)?\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")
_MD_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\([ \t]*(<[^>\n]*>|[^)\s]+)(?:[ \t]+\"[^\"\n]*\")?[ \t]*\)")
# A link reference definition, ``[label]: target``: the target of every ``[label]`` in the text.
LINK_DEFINITION = re.compile(r"^ {0,3}\[([^\]\n]+)\]:[ \t]*(<[^>\n]*>|\S+)(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$", re.M)
_TAG = re.compile(r"(?<![\w/&#\])])#([^\W\d][\w/-]*|\d+[^\W\d][\w/-]*)")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_NOTE_SUFFIXES = (".md", ".ipynb")


def _blank(text: str) -> str:
    """Same length, newlines kept, everything else a space: masking keeps offsets valid."""
    return re.sub(r"[^\n]", " ", text)


def _read_frontmatter(text: str) -> tuple[Frontmatter | None, int]:
    """Parse a leading ``---`` YAML block; return it and the offset where the body starts."""
    start = 1 if text.startswith("\ufeff") else 0
    first_end = text.find("\n", start)
    if first_end < 0 or text[start:first_end].rstrip("\r") != "---":
        return None, 0
    pos = first_end + 1
    while pos <= len(text):
        end = text.find("\n", pos)
        line_end = len(text) if end < 0 else end
        if text[pos:line_end].rstrip("\r \t") in ("---", "..."):
            block = text[first_end + 1 : pos]
            data = _load_yaml(block, first_line=text.count("\n", 0, first_end) + 2)
            key_spans = _key_spans(block, first_end + 1)
            body = len(text) if end < 0 else end + 1
            return Frontmatter(data, Span(start, line_end), key_spans), body
        if end < 0:
            break
        pos = end + 1
    raise FrontmatterError("frontmatter opened with '---' on line 1 is never closed by a '---' line")


def _load_yaml(block: str, first_line: int) -> dict[str, Any]:
    try:
        data = yaml.load(block, Loader=_YAML_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {first_line + mark.line}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(f"malformed YAML frontmatter{where}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(f"frontmatter must be a mapping of keys to values, got a {type(data).__name__}")
    return {str(k): v for k, v in data.items()}


def _key_spans(block: str, offset: int) -> dict[str, Span]:
    spans: dict[str, Span] = {}
    for match in re.finditer(r"^([^\s#:][^:\n]*):(?:[ \t].*|)$", block, re.M):
        spans.setdefault(match.group(1).strip(), Span(offset + match.start(), offset + match.end()))
    return spans


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line without its end-of-line characters) for every line."""
    out: list[tuple[int, str]] = []
    pos = 0
    for raw in text.splitlines(keepends=True):
        out.append((pos, raw.rstrip("\r\n")))
        pos += len(raw)
    return out


def _mask(text: str, body_start: int) -> str:
    """Blank frontmatter, fenced code, HTML comments and inline code."""
    chars = list(_blank(text[:body_start]) + text[body_start:])
    fence: str | None = None
    for offset, line in _lines(text):
        if offset < body_start:
            continue
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            chars[offset : offset + len(line)] = " " * len(line)
        elif fence is not None:
            chars[offset : offset + len(line)] = " " * len(line)
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
    masked = "".join(chars)
    masked = _HTML_COMMENT.sub(lambda m: _blank(m.group(0)), masked)
    return _INLINE_CODE.sub(lambda m: _blank(m.group(0)), masked)


def dates_in(text: str) -> list[dt.date]:
    found = []
    for match in _ISO_DATE.finditer(text):
        try:
            found.append(dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3))))
        except ValueError:
            continue
    return found


def as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        dates = dates_in(value)
        return dates[0] if dates else None
    return None


def _split_cells(line: str, offset: int) -> tuple[TableCell, ...]:
    """Cells of one pipe-table row with their spans (escaped ``\\|`` stays in the cell)."""
    bounds = [i for i, ch in enumerate(line) if ch == "|" and (i == 0 or line[i - 1] != "\\")]
    stripped = line.strip()
    edges = [-1, *bounds, len(line)]
    cells = []
    for left, right in zip(edges, edges[1:]):
        raw = line[left + 1 : right]
        if not raw.strip() and ((left == -1 and stripped.startswith("|")) or (right == len(line) and stripped.endswith("|"))):
            continue  # the empty outside of a leading or trailing pipe
        lead = len(raw) - len(raw.lstrip())
        content = raw.strip()
        start = offset + left + 1 + lead
        cells.append(TableCell(content.replace("\\|", "|"), Span(start, start + len(content))))
    return tuple(cells)


class _Builder:
    """Accumulates elements while walking the lines of one text."""

    def __init__(self, text: str, masked: str, base_path: str | None) -> None:
        self.text = text
        self.masked = masked
        self.base_path = base_path
        self.headings: list[Heading] = []
        self.stack: list[int] = []
        self.tables: list[Table] = []
        self.items: list[ListItem] = []
        self.dated: list[DatedLine] = []

    @property
    def current_heading(self) -> int | None:
        return self.stack[-1] if self.stack else None

    def add_heading(self, level: int, span: Span, text_span: Span) -> None:
        while self.stack and self.headings[self.stack[-1]].level >= level:
            self.stack.pop()
        title = text_span.of(self.text)
        heading = Heading(level, title, span, text_span, self.current_heading)
        self.headings.append(heading)
        self.stack.append(len(self.headings) - 1)
        for date in dates_in(title):
            self.dated.append(DatedLine(date, title, span, "heading", len(self.headings) - 1))

    def walk(self, lines: list[tuple[int, str]]) -> None:
        i = 0
        paragraph: tuple[int, str] | None = None  # last plain text line, for setext headings
        while i < len(lines):
            offset, line = lines[i]
            if not line.strip():
                paragraph = None
                i += 1
                continue
            original = self._original(offset, line)  # the masked line only serves detection
            atx = _ATX.match(line)
            if atx:
                self._atx(offset, original, atx)
                paragraph = None
                i += 1
                continue
            setext = _SETEXT.match(line)
            if setext and paragraph is not None:
                p_off, p_masked = paragraph
                p_line = self.text[p_off : p_off + len(p_masked)]
                lead = len(p_line) - len(p_line.lstrip())
                title = p_line.strip()
                level = 1 if setext.group(1)[0] == "=" else 2
                self.add_heading(level, Span(p_off, offset + len(line)), Span(p_off + lead, p_off + lead + len(title)))
                paragraph = None
                i += 1
                continue
            if "|" in line and i + 1 < len(lines) and _TABLE_DELIM.match(lines[i + 1][1]) and "-" in lines[i + 1][1]:
                i = self._table(lines, i)
                paragraph = None
                continue
            item = _LIST.match(line)
            if item:
                self._list_item(offset, original, item)
                paragraph = None
            else:
                paragraph = (offset, line)
            i += 1

    def _atx(self, offset: int, line: str, match: re.Match[str]) -> None:
        level = len(match.group(1))
        rest = line[match.end() :]
        closing = re.search(r"(?:^|[ \t]+)#+[ \t]*$", rest)
        if closing:
            rest = rest[: closing.start()]
        title = rest.strip()
        start = offset + match.end() + (len(rest) - len(rest.lstrip()))
        self.add_heading(level, Span(offset, offset + len(line)), Span(start, start + len(title)))

    def _table(self, lines: list[tuple[int, str]], i: int) -> int:
        header_off, header_line = lines[i]
        header = _split_cells(self._original(header_off, header_line), header_off)
        rows = []
        j = i + 2
        while j < len(lines) and lines[j][1].strip() and "|" in lines[j][1]:
            row_off, row_line = lines[j]
            rows.append(_split_cells(self._original(row_off, row_line), row_off))
            j += 1
        end_off, end_line = lines[j - 1]
        self.tables.append(Table(header, tuple(rows), Span(header_off, end_off + len(end_line)), self.current_heading))
        return j

    def _original(self, offset: int, masked_line: str) -> str:
        return self.text[offset : offset + len(masked_line)]

    def _list_item(self, offset: int, line: str, match: re.Match[str]) -> None:
        marker = match.group(2)
        box = match.group(3)
        body = line[match.end() :].rstrip()
        text_span = Span(offset + match.end(), offset + match.end() + len(body))
        item = ListItem(
            text=body,
            span=Span(offset, offset + len(line)),
            text_span=text_span,
            depth=len(match.group(1).expandtabs(4)),
            ordered=marker[0].isdigit(),
            checked=None if box is None else box in "xX",
            heading=self.current_heading,
        )
        self.items.append(item)
        for date in dates_in(body):
            self.dated.append(DatedLine(date, body, item.span, "list", self.current_heading))

    def inline(self) -> tuple[tuple[WikiLink, ...], tuple[MarkdownLink, ...], tuple[Tag, ...]]:
        wikilinks = tuple(
            WikiLink(
                target=m.group(2).strip(),
                heading=m.group(3).strip() if m.group(3) is not None else None,
                label=m.group(4).strip() if m.group(4) is not None else None,
                embed=m.group(1) is not None,
                span=Span(m.start(), m.end()),
            )
            for m in _WIKILINK.finditer(self.masked)
        )
        found = [*_MD_LINK.finditer(self.masked), *LINK_DEFINITION.finditer(self.masked)]
        links = tuple(
            MarkdownLink(href=m.group(2), target=self._local_target(m.group(2)), label=m.group(1), span=Span(m.start(), m.end()))
            for m in sorted(found, key=lambda m: m.start())
        )
        # Link targets and wikilinks can hold '#': blank them before looking for tags.
        tag_text = _WIKILINK.sub(lambda m: _blank(m.group(0)), self.masked)
        tag_text = _MD_LINK.sub(lambda m: _blank(m.group(0)), tag_text)
        tag_text = LINK_DEFINITION.sub(lambda m: _blank(m.group(0)), tag_text)
        tags = tuple(Tag(m.group(1), Span(m.start(), m.end())) for m in _TAG.finditer(tag_text))
        return wikilinks, links, tags

    def _local_target(self, href: str) -> str | None:
        """Vault-relative path of a link to a local note, or None (web link, anchor, other file)."""
        href = href[1:-1] if href.startswith("<") and href.endswith(">") else href
        if _SCHEME.match(href) or href.startswith("#"):
            return None
        path = unquote(href.split("#", 1)[0].split("?", 1)[0])
        if not path.lower().endswith(_NOTE_SUFFIXES):
            return None
        base = "" if path.startswith("/") or self.base_path is None else posixpath.dirname(self.base_path)
        resolved = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
        return None if resolved.startswith("..") else resolved


def link_object(link: MarkdownLink) -> str | None:
    """What a Markdown link points at when it may be a note: its vault path, or the web address of a Markdown
    file (a web copy of a vault note, e.g. a repository's page of it, is matched to the note at index time)."""
    if link.target:
        return link.target
    href = link.href[1:-1] if link.href.startswith("<") and link.href.endswith(">") else link.href
    parts = urlsplit(href)
    if parts.scheme in ("http", "https") and unquote(parts.path).lower().endswith(".md"):
        return parts._replace(query="", fragment="").geturl()
    return None


def parse_markdown(text: str, rel_path: str | None = None, allow_frontmatter: bool = True) -> MarkdownModel:
    """Parse ``text``; ``rel_path`` (the note's vault path) resolves relative links.

    Raises FrontmatterError for malformed frontmatter; everything else parses.
    """
    frontmatter, body_start = _read_frontmatter(text) if allow_frontmatter else (None, 0)
    masked = _mask(text, body_start)
    builder = _Builder(text, masked, rel_path)
    if frontmatter is not None:
        fm_date = as_date(frontmatter.data.get("date"))
        if fm_date is not None:
            span = frontmatter.key_spans.get("date", frontmatter.span)
            builder.dated.append(DatedLine(fm_date, span.of(text), span, "frontmatter", None))
    builder.walk(_lines(masked))
    wikilinks, links, tags = builder.inline()
    return MarkdownModel(
        text=text,
        frontmatter=frontmatter,
        headings=tuple(builder.headings),
        wikilinks=wikilinks,
        links=links,
        tags=tags,
        tables=tuple(builder.tables),
        list_items=tuple(builder.items),
        dated_lines=tuple(builder.dated),
    )
