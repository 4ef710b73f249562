"""Chat completions against any OpenAI-compatible endpoint, with our own bounded retries.

The openai client's built-in retries are off so that every wait is ours to see
and test: a 429 waits for its Retry-After (or the backoff), timeouts and 5xx back
off exponentially, and any other 4xx fails at once (retrying cannot fix it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import openai

from engram_lab.config import ExtractorConfig


class LLMError(RuntimeError):
    """The endpoint did not give a usable answer within the allowed attempts."""


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float


def _retry_after(error: openai.APIStatusError) -> float | None:
    value = error.response.headers.get("retry-after") if error.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class ChatClient:
    def __init__(self, config: ExtractorConfig) -> None:
        self.config = config
        self._client = openai.OpenAI(base_url=config.base_url, api_key=config.api_key, timeout=config.timeout_s, max_retries=0)

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        last = "no attempt made"
        for attempt in range(self.config.max_retries + 1):
            started = time.perf_counter()
            try:
                kwargs = {"response_format": {"type": "json_object"}} if self.config.json_mode else {}
                response = self._client.chat.completions.create(
                    model=self.config.model or "", messages=messages, temperature=0, **kwargs  # type: ignore[arg-type]
                )
            except openai.RateLimitError as exc:
                last = f"rate limited (429): {exc.message}"
                self._wait(attempt, _retry_after(exc))
                continue
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                last = f"{type(exc).__name__}: {exc}"
                self._wait(attempt, None)
                continue
            except openai.InternalServerError as exc:
                last = f"server error {exc.status_code}: {exc.message}"
                self._wait(attempt, None)
                continue
            except openai.APIStatusError as exc:
                raise LLMError(f"the endpoint refused the request ({exc.status_code}): {exc.message}") from None
            seconds = time.perf_counter() - started
            choice = response.choices[0] if response.choices else None
            text = choice.message.content if choice is not None and choice.message is not None else None
            if not text:
                last = "empty reply"
                self._wait(attempt, None)
                continue
            usage = response.usage
            return Completion(text, usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0, seconds)
        raise LLMError(f"gave up after {self.config.max_retries + 1} attempts: {last}")

    def _wait(self, attempt: int, retry_after: float | None) -> None:
        if attempt < self.config.max_retries:
            time.sleep(retry_after if retry_after is not None else self.config.backoff_s * (2**attempt))
