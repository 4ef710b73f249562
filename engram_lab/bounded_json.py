"""JSON from outside (decision files, server request bodies), bounded in size and nesting.

``json.loads`` accepts any size and recurses once per nesting level, so a huge or deeply
nested document costs memory or ends in a ``RecursionError`` traceback. Everything that
parses JSON someone else wrote goes through here and gets one clear ``ValueError`` instead.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32  # our own formats nest at most a few levels (evidence objects included)


class JSONLimitError(ValueError):
    """The JSON is malformed, too large or nested too deeply; the message says which."""


def depth(value: Any) -> int:
    """Nesting depth of parsed JSON (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def loads_bounded(data: str | bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``data`` as JSON, refusing more than ``max_bytes`` or more than ``max_depth`` levels."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > max_bytes:
        raise JSONLimitError(f"{size} bytes of JSON, more than the {max_bytes} accepted")
    try:
        value = json.loads(data)
    except RecursionError:
        raise JSONLimitError(f"JSON nested more than {max_depth} levels deep") from None
    except UnicodeDecodeError as exc:
        raise JSONLimitError(f"not UTF-8: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise JSONLimitError(f"not valid JSON: {exc}") from None
    if depth(value) > max_depth:
        raise JSONLimitError(f"JSON nested more than {max_depth} levels deep")
    return value
