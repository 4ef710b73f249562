"""Rich results for notebooks: objects with ``_repr_mimebundle_`` (HTML and plain text), not prints,
so they render live and in exported notebooks alike. Every string from a note is escaped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from engram_lab.explain import EntitySummary
from engram_lab.indexer import IndexReport
from engram_lab.retrieve.confidence import NO_GOOD_MATCH, match_label
from engram_lab.retrieve.results import snippet
from engram_lab.retrieve.searcher import SearchOutcome
from engram_lab.retrieve.settings import AUTO_HEADER
from engram_lab.status import StatusReport

CSS = ("<style>.engram-view{font-family:var(--jp-content-font-family,sans-serif);font-size:13px}"
       ".engram-view table{border-collapse:collapse}.engram-view table td,.engram-view table th{padding:2px 8px;text-align:left;"
       "vertical-align:top;border-bottom:1px solid #ddd}.engram-view .muted{color:#777}.engram-view .warn{color:#a40}"
       ".engram-view .error{color:#b00}</style>")


@dataclass
class View:
    """A plain-text and an HTML rendering of one result."""

    text: str
    html: str

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": self.text, "text/html": f"{CSS}<div class='engram-view'>{self.html}</div>"}

    def __repr__(self) -> str:
        return self.text


def message(text: str, level: str = "info") -> View:
    css = {"error": "error", "warning": "warn"}.get(level, "muted")
    return View(text, f"<div class='{css}'>{escape(text)}</div>")


def note_link(vault: Path, path: str, label: str | None = None, heading: str | None = None,
              span: tuple[int, int] | None = None, cell_id: str | None = None) -> str:
    """A link JupyterLab opens in the app (relative to the kernel's folder, the notebook's). With ``heading``,
    a Markdown note opens scrolled to that heading (JupyterLab's heading ids: spaces become hyphens).
    The ``data-engram-*`` attributes carry the vault, cell and span, so the JupyterLab extension opens the
    editor at the span in this vault, whatever vault its sidebar shows."""
    file = path.split("#", 1)[0]
    try:
        target = os.path.relpath(vault / file, Path.cwd())
    except ValueError:
        target = str(vault / file)
    fragment = f"#{heading.strip().replace(' ', '-')}" if heading and file.lower().endswith(".md") else ""
    span = span if span and None not in span else None
    data = {"vault": str(vault), "path": file, "cell": cell_id, "start": span[0] if span else None, "end": span[1] if span else None}
    attrs = "".join(f" data-engram-{k}='{escape(str(v))}'" for k, v in data.items() if v is not None)
    return f"<a href='{escape(target + fragment)}' title='{escape(path)}'{attrs}>{escape(label or path)}</a>"


def index_view(report: IndexReport) -> View:
    parts = [f"{len(report.added)} added", f"{len(report.updated)} updated", f"{len(report.renamed)} renamed",
             f"{len(report.deleted)} deleted", f"{len(report.failed)} failed", f"{report.unchanged} unchanged"]
    head = f"indexed in {report.seconds:.2f}s: " + ", ".join(parts)
    lines = [f"failed {p}: {reason}" for p, reason in report.failed] + [f"skipped {w}" for w in report.warnings]
    html = escape(head) + "".join(f"<div class='warn'>{escape(line)}</div>" for line in lines)
    return View("\n".join([head, *lines]), html)


def status_view(report: StatusReport) -> View:
    counts = ", ".join(f"{n} {status}" for status, n in report.counts.items())
    lines = [f"{report.total} documents: {counts}"]
    if report.new:
        lines.append(f"{len(report.new)} new on disk, not indexed yet: %engram index")
    if report.deleted:
        lines.append(f"{len(report.deleted)} deleted on disk, still in the index: %engram index")
    lines += [f"stale   {p}" for p in report.stale] + [f"failed  {p}: {reason}" for p, reason in report.failed]
    return View("\n".join(lines), "<br>".join(escape(line) for line in lines))


def search_view(outcome: SearchOutcome, vault: Path) -> View:
    head = f'search ({outcome.mode}): "{outcome.query}" — {len(outcome.results)} results in {outcome.seconds * 1000:.0f} ms'
    label = match_label(outcome.confidence) if outcome.results else None
    text = [head] + ([f"[{AUTO_HEADER}]"] if outcome.mode == "auto" else []) + ([label] if label else []) + outcome.notes
    rows = []
    for r in outcome.results:
        text.append(f"{r.rank}. [{r.score:.3f}] {r.provenance()}\n   {snippet(r.text, 160)}")
        flags = "".join(f"<div class='warn'>{escape(x)}</div>" for x in (r.superseded, "pending review" if r.status == "pending-review" else None) if x)
        span = f"chars {r.span[0]}–{r.span[1]}" if r.span else ""
        link = note_link(vault, r.doc, heading=r.heading, span=r.span, cell_id=r.cell_id)
        rows.append(f"<tr><td>{r.rank}</td><td>{r.score:.3f}</td><td>{link}<div class='muted'>"
                    f"{escape(' > '.join(r.heading_path))} · {span}</div>{flags}</td><td>{escape(snippet(r.text, 240))}</td></tr>")
    warning = f"<div class='warn'>{escape(AUTO_HEADER)}</div>" if outcome.mode == "auto" else ""
    if label:
        low = outcome.confidence is not None and outcome.confidence < NO_GOOD_MATCH
        warning += f"<div class='{'warn' if low else 'muted'}'>{escape(label)}</div>"
    warning += "".join(f"<div class='muted'>{escape(note)}</div>" for note in outcome.notes)
    body = "<table><tr><th>#</th><th>score</th><th>note</th><th>text</th></tr>" + "".join(rows) + "</table>" if rows else "<i>no matching passage</i>"
    return View("\n".join(text), f"<b>{escape(head)}</b>{warning}{body}")


def context_view(outcome: SearchOutcome) -> View:
    return View(outcome.context, f"<pre style='white-space:pre-wrap'>{escape(outcome.context)}</pre>")


def entity_view(summary: EntitySummary, vault: Path) -> View:
    lines = [f"{summary.name} ({summary.kind}) {summary.iri}"]
    if len(summary.labels) > 1:
        lines.append("also written: " + ", ".join(summary.labels[1:]))
    if summary.same_as:
        lines.append("same as: " + ", ".join(summary.same_as))
    lines += [f"mention  {m['path']} chars {m['start']}-{m['end']}" for m in summary.mentions]
    lines += [f"relation {r['subject']} — {r['predicate']} — {r['object']}  [{r['path']}, chars {r['start']}-{r['end']}]"
              for r in summary.relations]
    lines += [f"judgment {j['verdict']} by {j['actor']} ({j['decision_id']})" + (f" blocked: {j['blocked']}" if j["blocked"] else "")
              for j in summary.judgments]
    rel_rows = "".join(f"<tr><td>{escape(r['subject'])}</td><td>{escape(r['predicate'])}</td><td>{escape(str(r['object']))}</td>"
                       f"<td>{note_link(vault, r['path'], span=(r['start'], r['end']), cell_id=r.get('cell_id'))} <span class='muted'>{r['start']}–{r['end']}</span></td></tr>"
                       for r in summary.relations)
    mentions = ", ".join(f"{note_link(vault, m['path'], span=(m['start'], m['end']), cell_id=m.get('cell_id'))} <span class='muted'>{m['start']}–{m['end']}</span>" for m in summary.mentions)
    html = (f"<b>{escape(summary.name)}</b> <span class='muted'>{escape(summary.kind)} · {escape(summary.iri)}</span>"
            + (f"<div>also written: {escape(', '.join(summary.labels[1:]))}</div>" if len(summary.labels) > 1 else "")
            + (f"<div>same as: {escape(', '.join(summary.same_as))}</div>" if summary.same_as else "")
            + f"<div>mentioned in: {mentions or '<i>no located mention</i>'}</div>"
            + (f"<table><tr><th>subject</th><th>predicate</th><th>object</th><th>where</th></tr>{rel_rows}</table>" if rel_rows else "")
            + "".join(f"<div class='muted'>{escape(line)}</div>" for line in lines if line.startswith("judgment")))
    return View("\n".join(lines), html)
