"""Durable state under ``.engram/``: the ledger of documents, sections and user decisions."""

from engram_lab.state.db import LEDGER_FILE, open_ledger
from engram_lab.state.decisions import Decision, DecisionLedger
from engram_lab.state.documents import DocumentRow, DocumentTable, DocumentStatus, StoredSection

__all__ = [
    "LEDGER_FILE",
    "Decision",
    "DecisionLedger",
    "DocumentRow",
    "DocumentStatus",
    "DocumentTable",
    "StoredSection",
    "open_ledger",
]
