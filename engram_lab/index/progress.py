"""One progress display for everything an index run builds, naming the stage it is in.

A run reads and extracts notes, patches the keyword index, groups the retrieval
index's sections, entities and facts, embeds them, then computes neighbours, the
analysis and the walk's matrices; on a large vault any of these can
take minutes, so one bar restarts at each stage with the stage's name. The bar
is ``tqdm.auto`` (a widget in a notebook, text on a terminal, nothing when the
output is not one); a listener receives the same (stage, done, total) for
displays elsewhere (the server's index job, which the sidebar polls).
"""

from __future__ import annotations

from collections.abc import Callable

from tqdm.auto import tqdm

StageListener = Callable[[str, int, int], None]  # (stage, done, total)

READ_NOTES = "notes: read, extract, graphs"
ANALYSIS = "analysis: resolution, supersession"
KEYWORDS = "keyword index"
GROUPING = "sections, entities, facts: grouped"  # the retrieval index's rows, before any is embedded
EMBED_SECTIONS = "embeddings: sections"
EMBED_ENTITIES = "embeddings: entities"
EMBED_FACTS = "embeddings: facts"
NEIGHBOURS = "neighbours"
MATRICES = "matrices"


class StageProgress:
    """A bar that restarts at each stage; ``enabled=None`` shows it only on a terminal or in a notebook."""

    def __init__(self, enabled: bool | None = None, listener: StageListener | None = None) -> None:
        self.listener = listener
        self.stage_name = ""
        self.done = 0
        self.total = 0
        self._bar = tqdm(total=0, disable=None if enabled is None else not enabled, leave=False, dynamic_ncols=True)

    def stage(self, name: str, total: int) -> None:
        """Start stage ``name`` of ``total`` steps (notes, texts, blocks)."""
        self.stage_name, self.done, self.total = name, 0, total
        self._bar.reset(total=total)
        self._bar.set_description_str(name, refresh=True)
        self._tell()

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        self._bar.update(steps)
        self._tell()

    def close(self) -> None:
        self._bar.close()

    def _tell(self) -> None:
        if self.listener is not None:
            self.listener(self.stage_name, self.done, self.total)

    def __enter__(self) -> StageProgress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
