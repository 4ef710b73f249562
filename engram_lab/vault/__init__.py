"""Document memory: find, read and parse the notes of a vault (the authoritative record)."""

from engram_lab.vault.document import parse_document
from engram_lab.vault.model import DocumentModel, MarkdownModel, Part, Span
from engram_lab.vault.read import decode_note_text, read_note_bytes
from engram_lab.vault.scan import ScanProblem, ScanResult, VaultFile, scan_vault
from engram_lab.vault.sections import Section, document_sections

__all__ = [
    "DocumentModel",
    "MarkdownModel",
    "Part",
    "ScanProblem",
    "ScanResult",
    "Section",
    "Span",
    "VaultFile",
    "decode_note_text",
    "document_sections",
    "parse_document",
    "read_note_bytes",
    "scan_vault",
]
