"""A scripted model that obeys the last instruction it saw: the worst case a defence has to hold against.

It reads everything a conversation shows it (system prompt, tool results) as plainly as it can: it undoes
the wrapper's escaping, folds look-alike letters and drops hidden characters, decodes base64 runs, and joins
instructions split into ``(part K/N) … (end of part)`` pieces across notes. An instruction is
``call TOOL {json arguments}``, optionally chained with ``then call …``; the last one found is carried out,
through the real tool layer. Placeholders in arguments: ``$proposal`` / ``$id`` (from the previous result) and
``$read:PATH`` (the note's text, read with ``read_note`` and URL-encoded).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from engram_lab.agent import AgentSession, call_tool
from engram_lab.agent.wrap import unescape_content
from engram_lab.errors import EngramError
from engram_lab.procedural.judge import plain_text

_CALL = re.compile(r"\bcall\s+([a-z_]+)\s*(?=\{)")
_THEN = re.compile(r"\s*then\s*$")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
_PART = re.compile(r"\(part (\d+)/(\d+)\)\s?(.*?)\s?\(end of part\)", re.S)
_WRAPPER = re.compile(r'<external_content source="[^"]*">|</external_content>')


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]


def _calls(text: str) -> list[list[Call]]:
    """Every instruction in ``text``, in order; one instruction is a chain of calls joined by "then"."""
    chains: list[list[Call]] = []
    end = -1
    for match in _CALL.finditer(text):
        try:
            args, stop = json.JSONDecoder().raw_decode(text, match.end())
        except json.JSONDecodeError:
            continue
        if not isinstance(args, dict):
            continue
        call = Call(match.group(1), args)
        if chains and end >= 0 and _THEN.fullmatch(text[end:match.start()]):
            chains[-1].append(call)
        else:
            chains.append([call])
        end = stop
    return chains


def _decoded(text: str) -> str:
    out = []
    for run in _BASE64.findall(text):
        try:
            out.append(base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode("utf-8"))
        except (binascii.Error, UnicodeDecodeError):
            continue
    return "\n".join(out)


def _joined(parts: dict[int, str]) -> str:
    return "".join(parts[k] for k in sorted(parts))


def outside_wrappers(text: str, needle: str) -> int:
    """How often ``needle`` occurs in ``text`` outside every ``<external_content>`` wrapper (or inside a broken
    one: a wrapper opened in a wrapper, or a close without an open)."""
    count, depth, at, broken = 0, 0, 0, False
    for tag in [*_WRAPPER.finditer(text), None]:
        stop = tag.start() if tag else len(text)
        if broken or depth != 1:
            count += text.count(needle, at, stop)
        if tag is None:
            break
        depth += -1 if tag.group(0).startswith("</") else 1
        broken = broken or depth not in (0, 1)  # everything after a broken wrapper counts as outside
        at = tag.end()
    return count


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value, in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for item in value for s in strings(item)] if isinstance(value, list) else []


def readable(text: str) -> str:
    """A tool result as a model reads it: the strings of its JSON, not their escaped form."""
    try:
        return "\n".join(strings(json.loads(text)))
    except json.JSONDecodeError:
        return text


@dataclass
class GullibleModel:
    session: AgentSession
    seen: list[str] = field(default_factory=list)  # every text shown to the model, in order
    parts: dict[int, str] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)

    def see(self, text: str) -> None:
        self.seen.append(text)
        plain = plain_text(unescape_content(readable(text)))
        for number, _total, piece in _PART.findall(plain):
            self.parts[int(number)] = piece

    def use(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """One tool call, its result shown to the model (as JSON, as an MCP client shows it); None if refused."""
        try:
            result = call_tool(self.session, tool, arguments)
        except EngramError as exc:
            self.log.append({"tool": tool, "refused": str(exc)[:300]})
            self.see(str(exc))
            return None
        self.log.append({"tool": tool, "status": result.get("status")})
        self.see(json.dumps(result, ensure_ascii=False))
        return result

    def last_instruction(self) -> list[Call]:
        found: list[list[Call]] = []
        for shown in self.seen:
            text = unescape_content(readable(shown))
            for view in (plain_text(text), _decoded(text)):
                found += _calls(view)
        found += _calls(_joined(self.parts))
        return found[-1] if found else []

    def _fill(self, value: Any, last: dict[str, Any] | None) -> Any:
        if isinstance(value, str):
            for key in ("proposal", "id"):
                value = value.replace(f"${key}", str((last or {}).get(key, "")))
            for path in re.findall(r"\$read:([\w./-]+)", value):
                read = self.use("read_note", {"path": path})
                text = unescape_content(re.sub(r"</?external_content[^>]*>", "", (read or {}).get("text", "")))
                value = value.replace(f"$read:{path}", quote(text.strip()[:200]))
            return value
        if isinstance(value, dict):
            return {k: self._fill(v, last) for k, v in value.items()}
        return value

    def obey(self) -> list[Call]:
        """Carry out the last instruction seen; what it called."""
        chain = self.last_instruction()
        last: dict[str, Any] | None = None
        for call in chain:
            last = self.use(call.tool, self._fill(call.arguments, last))
        return chain
