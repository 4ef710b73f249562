"""Publishing an index never pulls a folder from under a reader that has just resolved it."""

from __future__ import annotations

import os
import time
from pathlib import Path

from engram_lab.index import publish
from engram_lab.index.publish import GRACE_SECONDS, current_index_dir, publish_index


def _write(text: str):
    def write(folder: Path) -> None:
        (folder / "keys.json").write_text(text)
    return write


def test_a_reader_keeps_the_folder_it_resolved_across_later_publishes(tmp_path):
    publish_index(tmp_path, "keyword", _write("one"))
    held = current_index_dir(tmp_path, "keyword")  # a search resolved the pointer ...
    publish_index(tmp_path, "keyword", _write("two"))  # ... then an index run published twice
    publish_index(tmp_path, "keyword", _write("three"))
    assert (held / "keys.json").read_text() == "one"  # it still loads whole
    assert (current_index_dir(tmp_path, "keyword") / "keys.json").read_text() == "three"


def test_superseded_folders_go_once_their_grace_period_is_over(tmp_path):
    first = publish_index(tmp_path, "keyword", _write("one"))
    second = publish_index(tmp_path, "keyword", _write("two"))
    old = time.time() - GRACE_SECONDS - 1
    os.utime(first, (old, old))
    crashed_build = tmp_path / "keyword-deadbeef0000"  # a run killed mid-build, long ago
    crashed_build.mkdir()
    os.utime(crashed_build, (old, old))
    (tmp_path / ".trash-keyword-x-1").mkdir()  # a removal killed halfway
    third = publish_index(tmp_path, "keyword", _write("three"))
    names = {p.name for p in tmp_path.iterdir()}
    assert first.name not in names and crashed_build.name not in names and ".trash-keyword-x-1" not in names
    assert second.name in names and third.name in names  # second was retired just now: still in its grace period
    assert current_index_dir(tmp_path, "keyword") == third


def test_the_current_folder_is_never_removed_however_old(tmp_path):
    folder = publish_index(tmp_path, "keyword", _write("one"))
    old = time.time() - GRACE_SECONDS - 1
    os.utime(folder, (old, old))
    assert publish.remove_expired(tmp_path, "keyword", keep=set()) == []
    assert current_index_dir(tmp_path, "keyword") == folder
