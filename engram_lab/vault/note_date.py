"""When a note is from: the one date that questions about what changed when, and the after:/before: filters, go by.

Vaults carry it in three places, taken in this order: frontmatter ``date``; a date in the file
name (daily and meeting notes: ``2026-03-18-sensor-review.md``); a dated line in the note's
opening, before its second heading (a header list such as ``- Start Date: 2015-05-21``, or a
dated first heading). A date deeper in the body is about something the note reports, not about
the note.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from engram_lab.vault.markdown import as_date, dates_in
from engram_lab.vault.model import DocumentModel


@lru_cache(maxsize=1 << 18)  # every note's path on each edit (the retrieval index's dates): 0.1 s at 100,000 notes
def date_in_file_name(path: str) -> dt.date | None:
    found = dates_in(path.rsplit("/", 1)[-1])
    return found[0] if found else None


def note_date(doc: DocumentModel) -> dt.date | None:
    found = as_date(doc.meta.get("date")) or date_in_file_name(doc.rel_path)
    if found is not None or not doc.parts:
        return found
    model = doc.parts[0].model
    opening_end = model.headings[1].span.start if len(model.headings) > 1 else len(model.text)
    return next((line.date for line in model.dated_lines if line.source != "frontmatter" and line.span.start < opening_end), None)
