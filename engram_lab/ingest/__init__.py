"""Bring external files into the vault: keep the original, write a Markdown conversion."""

from engram_lab.ingest.convert import SUPPORTED_SUFFIXES, Conversion, convert_file
from engram_lab.ingest.writer import IngestedFile, ingest_file

__all__ = ["SUPPORTED_SUFFIXES", "Conversion", "IngestedFile", "convert_file", "ingest_file"]
