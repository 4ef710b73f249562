"""The one progress display of an index run: each stage named, the listener told what the bar shows."""

from __future__ import annotations

from engram_lab.index.progress import StageProgress


def test_each_stage_restarts_the_count_and_is_named_to_the_listener():
    heard: list[tuple[str, int, int]] = []
    with StageProgress(False, lambda *event: heard.append(event)) as bar:
        bar.stage("embeddings: sections", 3)
        bar.advance(2)
        bar.advance()
        bar.stage("neighbours", 1)
        bar.advance()
    assert heard == [("embeddings: sections", 0, 3), ("embeddings: sections", 2, 3), ("embeddings: sections", 3, 3),
                     ("neighbours", 0, 1), ("neighbours", 1, 1)]
    assert (bar.stage_name, bar.done, bar.total) == ("neighbours", 1, 1)


def test_a_disabled_bar_writes_nothing(capsys):
    with StageProgress(False) as bar:
        bar.stage("notes: read, extract, graphs", 10)
        bar.advance(10)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_an_enabled_bar_names_its_stage(capsys):
    with StageProgress(True) as bar:
        bar.stage("embeddings: facts", 4)
        bar.advance(4)
    assert "embeddings: facts" in capsys.readouterr().err
