"""Per-vault settings read from an optional ``engram.toml`` at the vault root.

```toml
[vault]
owner = "Estuary team"        # author of notes that have no author: key
max_note_mb = 8               # larger notes are recorded as failed, not read
allow_hard_links = false      # notes with several hard links (one may be outside the vault) are skipped

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

[agent]                       # the model %%engram ask runs a turn with (tool calling)
base_url = "http://127.0.0.1:8000/v1"   # same endpoint keys as [extractor]
model = "qwen2.5-7b-instruct"
permission = "ask"            # or "read-only", "accept-edits" (engram_lab.agent.modes)
max_steps = 8                 # model calls in one turn before it stops without an answer
```

Unknown keys are an error, so a typo never falls back to a default silently. Endpoint settings
of LLM steps that are on take effect only in a vault the user trusts (``engram_lab.trust``).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from engram_lab.errors import VaultError
from engram_lab.trust import AGENT_EDITS, HARD_LINKS, Endpoints, describe, record_trust, trusted_endpoints

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
class AgentConfig:
    """The model ``%%engram ask`` talks to; off (``configured`` False) until base_url and model are set."""

    endpoint: ExtractorConfig = field(default_factory=ExtractorConfig)
    permission: str = "ask"
    max_steps: int = 8

    @property
    def configured(self) -> bool:
        return bool(self.endpoint.base_url and self.endpoint.model)


@dataclass(frozen=True)
class VaultConfig:
    """Settings of one vault. ``owner`` is the author of notes without an ``author:`` key."""

    owner: str
    max_note_mb: float = DEFAULT_MAX_NOTE_MB
    custom_kinds: tuple[str, ...] = ()
    allow_hard_links: bool = False  # a hard-linked note may be a file outside the vault; skipped unless allowed
    extractor: ExtractorConfig = field(default_factory=ExtractorConfig)
    resolution: ResolutionConfig = field(default_factory=ResolutionConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)

    @property
    def max_note_bytes(self) -> int:
        return int(self.max_note_mb * 1024 * 1024)

    def endpoints(self) -> Endpoints:
        """What trust covers: where each LLM step that is on sends notes and which variable holds its key,
        whether hard-linked notes are read (the vault's author could otherwise link any file of the user's in),
        and whether an agent's edits are applied without asking."""
        steps = {"extractor": (self.extractor.name == "llm", self.extractor),
                 "resolution": (self.resolution.judge == "llm", self.resolution.endpoint),
                 "retrieval": (self.retrieval.fact_filter == "llm", self.retrieval.endpoint),
                 "agent": (self.agent.configured, self.agent.endpoint)}
        covered = {role: {"base_url": e.base_url or "", "api_key_env": e.api_key_env} for role, (on, e) in steps.items() if on}
        if self.allow_hard_links:
            covered[HARD_LINKS] = {"allow": "true"}
        if self.agent.permission == "accept-edits":  # an agent's writes applied unasked: the user's call, not the vault's
            covered[AGENT_EDITS] = {"permission": "accept-edits"}
        return covered


UNKNOWN_AUTHOR = "unknown"


def _default_owner() -> str:
    """No owner configured: say so. The operating-system account (often "root" in a container) is not an author."""
    return UNKNOWN_AUTHOR


def _check_keys(path: Path, section: str, given: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise VaultError(f"{path}: unknown key(s) in [{section}]: {', '.join(unknown)}; known: {', '.join(sorted(allowed))}")


class UntrustedVaultError(VaultError):
    """The vault's own engram.toml names LLM endpoints the user has not trusted (engram_lab.trust)."""


def load_config(vault: Path) -> VaultConfig:
    """Read ``engram.toml`` (defaults when absent). LLM endpoints it turns on count only once the user
    has trusted the vault with exactly these endpoints (``engram trust VAULT``); otherwise this raises."""
    config = read_config(vault)
    endpoints = config.endpoints()
    if endpoints:
        trusted = trusted_endpoints(vault)
        if trusted != endpoints:
            why = "this vault is not trusted" if trusted is None else "they changed since you trusted this vault"
            raise UntrustedVaultError(f"{vault / CONFIG_FILE}: would {describe(endpoints)}, but {why}; "
                                      f"if these are yours, run: engram trust {vault}")
    return config


def trust_vault(vault: Path) -> Endpoints:
    """Trust the endpoints the vault's engram.toml names now (``engram trust``); returns them."""
    endpoints = read_config(vault).endpoints()
    record_trust(vault, endpoints)
    return endpoints


def trust_config_file(vault: Path, path: Path) -> Endpoints:
    """Trust ``vault`` with the endpoints of the user's own file at ``path`` (e.g. ``engram eval --config``)."""
    endpoints = parse_config_file(path).endpoints()
    record_trust(vault, endpoints)
    return endpoints


def read_config(vault: Path) -> VaultConfig:
    """``engram.toml`` as written, or defaults when absent; nothing checked against trust (load_config does)."""
    path = vault / CONFIG_FILE
    if not path.is_file():
        return VaultConfig(owner=_default_owner())
    return parse_config_file(path)


def parse_config_file(path: Path) -> VaultConfig:
    """Every section of an engram.toml checked; a mistake names the file and the key."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise VaultError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise VaultError(f"{path}: cannot read: {exc.strerror or exc}") from None
    _check_keys(path, "top level", raw, {"vault", "kinds", "extractor", "resolution", "retrieval", "agent"})
    section = raw.get("vault", {})
    _check_keys(path, "vault", section, {"owner", "max_note_mb", "allow_hard_links"})
    if not isinstance(section.get("allow_hard_links", False), bool):
        raise VaultError(f"{path}: allow_hard_links must be true or false")
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
        allow_hard_links=section.get("allow_hard_links", False),
        custom_kinds=tuple(k.strip() for k in custom),
        extractor=extractor_config,
        resolution=ResolutionConfig(*_llm_switch(path, "resolution", raw.get("resolution", {}), "judge", "judge")),
        retrieval=_retrieval_config(path, raw.get("retrieval", {})),
        agent=_agent_config(path, raw.get("agent", {})),
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


def _agent_config(path: Path, section: dict[str, Any]) -> AgentConfig:
    """[agent]: an endpoint (on once base_url and model are both set), a permission mode and a step limit."""
    if not section:
        return AgentConfig()
    from engram_lab.agent.modes import PERMISSION_NAMES  # here: the agent package imports this module

    _check_keys(path, "agent", section, {"base_url", "model", "api_key_env", "timeout_s", "max_retries", "backoff_s",
                                         "permission", "max_steps"})
    permission = section.get("permission", AgentConfig.permission)
    if permission not in PERMISSION_NAMES:
        raise VaultError(f"{path}: [agent] permission must be one of {', '.join(PERMISSION_NAMES)}, got {permission!r}")
    steps = section.get("max_steps", AgentConfig.max_steps)
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= 50:
        raise VaultError(f"{path}: [agent] max_steps must be a whole number from 1 to 50, got {steps!r}")
    try:
        endpoint = ExtractorConfig(name="llm", **{k: val for k, val in section.items() if k not in ("permission", "max_steps")})
    except TypeError as exc:
        raise VaultError(f"{path}: [agent]: {exc}") from None
    if bool(endpoint.base_url) != bool(endpoint.model):
        raise VaultError(f"{path}: the agent needs both base_url and model in [agent]")
    return AgentConfig(endpoint, permission, steps)
