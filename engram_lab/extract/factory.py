"""Choose the extractor a vault is configured for (``[extractor]`` in engram.toml)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from engram_lab.config import VaultConfig
from engram_lab.errors import VaultError
from engram_lab.extract.heuristic.extractor import HeuristicExtractor
from engram_lab.extract.model import Extraction
from engram_lab.extract.segment import Segment
from engram_lab.vault.model import DocumentModel


class Extractor(Protocol):
    """Anything that turns a parsed document and its segments into an Extraction."""

    name: str
    version: str

    def extract(self, doc: DocumentModel, segments: list[Segment]) -> Extraction: ...


def build_extractor(config: VaultConfig, engram_dir: Path) -> Extractor:
    if config.extractor.name == "heuristic":
        return HeuristicExtractor(config.custom_kinds)
    if config.extractor.name == "llm":
        from engram_lab.extract.llm.extractor import LLMExtractor

        return LLMExtractor(config.extractor, engram_dir / "cache", config.custom_kinds)
    raise VaultError(f"unknown extractor {config.extractor.name!r} in engram.toml; use 'heuristic' or 'llm'")
