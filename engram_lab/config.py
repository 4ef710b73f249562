"""Per-vault settings read from an optional ``engram.toml`` at the vault root.

```toml
[vault]
owner = "Estuary team"        # author of notes that have no author: key
max_note_mb = 8               # larger notes are recorded as failed, not read

[kinds]
custom = ["Sensor", "Station"] # entity kinds beyond the eleven core kinds

[extractor]
name = "heuristic"            # or "llm"
base_url = "http://127.0.0.1:8000/v1"   # any OpenAI-compatible endpoint (llm only)
model = "qwen2.5-7b-instruct"
api_key_env = "OPENAI_API_KEY"           # the key is read from this environment variable
timeout_s = 60
max_retries = 3
backoff_s = 1.0

[resolution]
judge = "none"                # or "llm": borderline entity pairs go to an LLM judge
base_url = "http://127.0.0.1:8000/v1"   # same endpoint keys as [extractor] (llm only)
model = "qwen2.5-7b-instruct"

[retrieval]
fact_filter = "none"          # or "llm": a model keeps the candidate facts that bear on the question
candidates = 20               # facts shown to the filter (it keeps at most top_facts of them)
base_url = "http://127.0.0.1:8000/v1"   # same endpoint keys as [extractor] (llm only)
model = "qwen2.5-7b-instruct"
```

Unknown keys are an error, so a typo never falls back to a default silently.
"""

from __future__ import annotations

import getpass
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from engram_lab.errors import VaultError

CONFIG_FILE = "engram.toml"
DEFAULT_MAX_NOTE_MB = 8.0


@dataclass(frozen=True)
class ExtractorConfig:
    name: str = "heuristic"
    base_url: str | None = None
    model: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 60.0
    max_retries: int = 3
    backoff_s: float = 1.0  # first wait before a retry; doubles each time (a 429's Retry-After wins)
    json_mode: bool = True  # ask for response_format json_object (vLLM, llama.cpp, Ollama and OpenAI accept it)

    @property
    def api_key(self) -> str:
        # Local servers (vLLM, llama.cpp, Ollama) accept any key; the client insists on one.
        return os.environ.get(self.api_key_env) or "not-needed"


@dataclass(frozen=True)
class ResolutionConfig:
    judge: str = "none"  # "none" or "llm"
    endpoint: ExtractorConfig = field(default_factory=ExtractorConfig)


@dataclass(frozen=True)
class RetrievalConfig:
    fact_filter: str = "none"  # "none" or "llm"
    candidates: int = 20
    endpoint: ExtractorConfig = field(default_factory=ExtractorConfig)


@dataclass(frozen=True)
class VaultConfig:
    """Settings of one vault. ``owner`` is the author of notes without an ``author:`` key."""

    owner: str
    max_note_mb: float = DEFAULT_MAX_NOTE_MB
    custom_kinds: tuple[str, ...] = ()
    extractor: ExtractorConfig = field(default_factory=ExtractorConfig)
    resolution: ResolutionConfig = field(default_factory=ResolutionConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)

    @property
    def max_note_bytes(self) -> int:
        return int(self.max_note_mb * 1024 * 1024)


def _default_owner() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry in some containers
        return "vault-owner"


def _check_keys(path: Path, section: str, given: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise VaultError(f"{path}: unknown key(s) in [{section}]: {', '.join(unknown)}; known: {', '.join(sorted(allowed))}")


def load_config(vault: Path) -> VaultConfig:
    """Read ``engram.toml`` or return defaults when absent."""
    path = vault / CONFIG_FILE
    if not path.is_file():
        return VaultConfig(owner=_default_owner())
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise VaultError(f"{path}: not valid TOML: {exc}") from None
    _check_keys(path, "top level", raw, {"vault", "kinds", "extractor", "resolution", "retrieval"})
    section = raw.get("vault", {})
    _check_keys(path, "vault", section, {"owner", "max_note_mb"})
    max_mb = section.get("max_note_mb", DEFAULT_MAX_NOTE_MB)
    if not isinstance(max_mb, (int, float)) or max_mb <= 0:
        raise VaultError(f"{path}: max_note_mb must be a positive number, got {max_mb!r}")
    kinds = raw.get("kinds", {})
    _check_keys(path, "kinds", kinds, {"custom"})
    custom = kinds.get("custom", [])
    if not isinstance(custom, list) or not all(isinstance(k, str) and k.strip() for k in custom):
        raise VaultError(f"{path}: [kinds] custom must be a list of names")
    extractor = raw.get("extractor", {})
    _check_keys(path, "extractor", extractor, {f.name for f in fields(ExtractorConfig)})
    try:
        extractor_config = ExtractorConfig(**extractor)
    except TypeError as exc:
        raise VaultError(f"{path}: [extractor]: {exc}") from None
    if extractor_config.name == "llm" and not (extractor_config.base_url and extractor_config.model):
        raise VaultError(f"{path}: the llm extractor needs base_url and model in [extractor]")
    return VaultConfig(
        owner=str(section.get("owner") or _default_owner()),
        max_note_mb=float(max_mb),
        custom_kinds=tuple(k.strip() for k in custom),
        extractor=extractor_config,
        resolution=ResolutionConfig(*_llm_switch(path, "resolution", raw.get("resolution", {}), "judge", "judge")),
        retrieval=_retrieval_config(path, raw.get("retrieval", {})),
    )


def _llm_switch(path: Path, name: str, section: dict[str, Any], switch: str, role: str,
               extra: frozenset[str] = frozenset()) -> tuple[str, ExtractorConfig]:
    """A section that turns an LLM step on (``switch = "llm"``) and names its endpoint with [extractor]'s keys."""
    endpoint_keys = {f.name for f in fields(ExtractorConfig)} - {"name"}
    _check_keys(path, name, section, endpoint_keys | {switch} | extra)
    choice = section.get(switch, "none")
    if choice not in ("none", "llm"):
        raise VaultError(f"{path}: [{name}] {switch} must be \"none\" or \"llm\", got {choice!r}")
    try:
        endpoint = ExtractorConfig(name="llm", **{k: val for k, val in section.items() if k in endpoint_keys})
    except TypeError as exc:
        raise VaultError(f"{path}: [{name}]: {exc}") from None
    if choice == "llm" and not (endpoint.base_url and endpoint.model):
        raise VaultError(f"{path}: the llm {role} needs base_url and model in [{name}]")
    return choice, endpoint


def _retrieval_config(path: Path, section: dict[str, Any]) -> RetrievalConfig:
    choice, endpoint = _llm_switch(path, "retrieval", section, "fact_filter", "fact filter", frozenset({"candidates"}))
    candidates = section.get("candidates", RetrievalConfig.candidates)
    if not isinstance(candidates, int) or isinstance(candidates, bool) or not 1 <= candidates <= 200:
        raise VaultError(f"{path}: [retrieval] candidates must be a whole number from 1 to 200, got {candidates!r}")
    return RetrievalConfig(choice, candidates, endpoint)
