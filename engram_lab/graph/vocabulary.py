"""Every IRI the engine mints is spelled here and nowhere else."""

from __future__ import annotations

DOCUMENT_PREFIX = "urn:engram:doc:"


def document_iri(doc_id: str) -> str:
    """The stable IRI of a document (and the name of its assertion graph)."""
    return f"{DOCUMENT_PREFIX}{doc_id}"


def analysis_graph_iri(doc_id: str) -> str:
    """Machine analysis of a document lives beside, never inside, its assertion graph."""
    return f"{document_iri(doc_id)}#analysis"
