"""HTML to Markdown with the standard library's parser: headings, paragraphs, lists, links, tables."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from engram_lab.ingest.tables import markdown_table

_SKIPPED = {"script", "style", "noscript", "template", "svg", "iframe", "object"}
_BLOCKS = {"p", "div", "section", "article", "header", "footer", "main", "nav", "aside", "blockquote", "figure", "figcaption", "dl", "dt", "dd", "form", "body"}
_INLINE_MARK = {"strong": "**", "b": "**", "em": "*", "i": "*"}


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.inline: list[str] = []
        self.skip_depth = 0
        self.title = ""
        self.in_title = False
        self.heading_level = 0
        self.lists: list[str] = []
        self.item_prefix: str | None = None
        self.links: list[str | None] = []
        self.pre_depth = 0
        self.table: list[list[str]] | None = None
        self.cell: list[str] | None = None

    # -- text flow -------------------------------------------------------
    def flush(self) -> None:
        raw = "".join(self.inline)
        self.inline = []
        if self.pre_depth:
            if raw.strip("\n"):
                self.blocks.append(f"```\n{raw.strip(chr(10))}\n```")
            return
        text = re.sub(r"[ \t\r\f\v]+", " ", raw)
        text = "\n".join(line.strip() for line in text.split("\n")).strip()
        if not text:
            return
        if self.heading_level:
            self.blocks.append(f"{'#' * self.heading_level} {' '.join(text.split())}")
        elif self.item_prefix is not None:
            self.blocks.append(self.item_prefix + text.replace("\n", " "))
            self.item_prefix = None
        else:
            self.blocks.append(text)

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.in_title:
            self.title += data
        elif self.cell is not None:
            self.cell.append(data)
        else:
            self.inline.append(data)

    # -- tags ------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skip_depth += 1
        elif self.skip_depth:
            return
        elif tag == "title":
            self.in_title = True
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading_level = int(tag[1])
        elif tag in ("ul", "ol"):
            self.flush()
            self.lists.append(tag)
        elif tag == "li":
            self.flush()
            depth = max(len(self.lists) - 1, 0)
            self.item_prefix = "  " * depth + ("1. " if self.lists and self.lists[-1] == "ol" else "- ")
        elif tag == "pre":
            self.flush()
            self.pre_depth += 1
        elif tag == "br":
            (self.cell if self.cell is not None else self.inline).append(" " if self.cell is not None else "\n")
        elif tag == "hr":
            self.flush()
            self.blocks.append("---")
        elif tag == "a":
            href = dict(attrs).get("href")
            usable = href if href and not href.lower().startswith(("javascript:", "data:")) else None
            self.links.append(usable)
            if usable:
                self._emit("[")
        elif tag in _INLINE_MARK:
            self._emit(_INLINE_MARK[tag])
        elif tag == "code" and not self.pre_depth:
            self._emit("`")
        elif tag == "table":
            self.flush()
            self.table = []
        elif tag == "tr" and self.table is not None:
            self.table.append([])
        elif tag in ("td", "th") and self.table is not None:
            self.cell = []
        elif tag in _BLOCKS:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skip_depth = max(self.skip_depth - 1, 0)
        elif self.skip_depth:
            return
        elif tag == "title":
            self.in_title = False
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading_level = 0
        elif tag in ("ul", "ol"):
            self.flush()
            if self.lists:
                self.lists.pop()
        elif tag == "li":
            self.flush()
        elif tag == "pre":
            self.flush()
            self.pre_depth = max(self.pre_depth - 1, 0)
        elif tag == "a":
            href = self.links.pop() if self.links else None
            if href:
                self._emit(f"]({href})")
        elif tag in _INLINE_MARK:
            self._emit(_INLINE_MARK[tag])
        elif tag == "code" and not self.pre_depth:
            self._emit("`")
        elif tag in ("td", "th") and self.table is not None and self.cell is not None:
            if not self.table:
                self.table.append([])
            self.table[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "table" and self.table is not None:
            rows = [row for row in self.table if row]
            if rows:
                self.blocks.append(markdown_table(rows[0], rows[1:]))
            self.table = None
        elif tag in _BLOCKS:
            self.flush()

    def _emit(self, text: str) -> None:
        (self.cell if self.cell is not None else self.inline).append(text)


def html_to_markdown(html: str) -> tuple[str, str]:
    """Return ``(title, markdown)``; the title is the page's <title> or empty."""
    converter = _Converter()
    converter.feed(html)
    converter.close()
    converter.flush()
    return " ".join(converter.title.split()), "\n\n".join(converter.blocks)
