"""LLM replies on disk under ``.engram/cache/llm/``, keyed by prompt version, model and the exact prompt.

An unchanged note asks nothing of the endpoint on re-index. Only replies that
passed validation are stored; files are written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def cache_key(prompt_version: str, model: str, messages: list[dict[str, str]]) -> str:
    payload = json.dumps([prompt_version, model, messages], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ReplyCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, object] | None:
        try:
            value = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, object]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
