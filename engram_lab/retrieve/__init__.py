"""Retrieval over the indexed vault; every result carries its provenance."""
