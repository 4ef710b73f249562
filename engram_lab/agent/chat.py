"""The agent's model over an OpenAI-compatible chat-completions endpoint with tool calling (``[agent]``).

The one place the loop meets HTTP: every failure of the client becomes a :class:`ModelCallError` whose
message is one sentence naming the endpoint, so a notebook shows a line, not a traceback. The ``openai``
package is imported only when an agent turn runs.
"""

from __future__ import annotations

from typing import Any

from engram_lab.agent.loop import ChatModel, ModelCallError, ModelReply, ToolCall
from engram_lab.config import AgentConfig


def openai_chat(config: AgentConfig) -> ChatModel:
    """A :data:`ChatModel` for the configured endpoint (its key read from ``api_key_env``)."""
    import openai

    endpoint = config.endpoint
    url = endpoint.base_url
    client = openai.OpenAI(base_url=url, api_key=endpoint.api_key, timeout=endpoint.timeout_s,
                           max_retries=endpoint.max_retries)

    def ask(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        try:
            response = client.chat.completions.create(model=str(endpoint.model), messages=messages,  # type: ignore[arg-type]
                                                      tools=tools or openai.NOT_GIVEN)  # type: ignore[arg-type]
        except openai.APITimeoutError:
            raise ModelCallError(f"the agent model at {url} did not answer within {endpoint.timeout_s:g} s") from None
        except openai.APIConnectionError:
            raise ModelCallError(f"cannot reach the agent model at {url} (is it running? [agent] base_url in engram.toml)") from None
        except openai.APIStatusError as exc:
            raise ModelCallError(f"the agent model at {url} answered HTTP {exc.status_code}: {_first_line(_said(exc))}") from None
        except openai.OpenAIError as exc:
            raise ModelCallError(f"the agent model at {url} failed: {_first_line(str(exc))}") from None
        if not response.choices:
            raise ModelCallError(f"the agent model at {url} returned no choices")
        message = response.choices[0].message
        calls = tuple(ToolCall(c.id, c.function.name, c.function.arguments or "{}")
                      for c in message.tool_calls or () if getattr(c, "function", None) is not None)
        return ModelReply(message.content, calls)

    return ask


def _said(exc: Any) -> str:
    """The server's own error message (``{"error": {"message": …}}``), else the client's summary."""
    body = exc.body
    message = body.get("message") if isinstance(body, dict) else None
    return str(message or exc.message)


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]
