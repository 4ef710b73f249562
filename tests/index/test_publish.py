"""Publishing an index never pulls a folder from under a reader that has just resolved it."""

from __future__ import annotations

import os
import time
from pathlib import Path

from engram_lab.index import publish
from engram_lab.index.publish import GRACE_SECONDS, current_index_dir, publish_index


def _aged(folder: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(folder, (then, then))


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
    _aged(first, GRACE_SECONDS + 1)
    crashed_build = tmp_path / "keyword-deadbeef0000"  # a run killed mid-build, long ago
    crashed_build.mkdir()
    _aged(crashed_build, GRACE_SECONDS + 1)
    (tmp_path / ".trash-keyword-x-1").mkdir()  # a removal killed halfway
    third = publish_index(tmp_path, "keyword", _write("three"))
    publish.settle_removals()  # deleted on a thread of their own
    names = {p.name for p in tmp_path.iterdir()}
    assert first.name not in names and crashed_build.name not in names and ".trash-keyword-x-1" not in names
    assert second.name in names and third.name in names  # second was retired just now: still in its grace period
    assert current_index_dir(tmp_path, "keyword") == third


def test_the_current_folder_is_never_removed_however_old(tmp_path):
    folder = publish_index(tmp_path, "keyword", _write("one"))
    _aged(folder, GRACE_SECONDS + 1)
    assert publish.remove_expired(tmp_path, "keyword", keep=set()) == []
    assert current_index_dir(tmp_path, "keyword") == folder



def test_finished_folders_past_the_newest_retired_go_after_the_short_grace(tmp_path):
    """Twenty edits in ten minutes kept twenty retired retrieval folders (9 GB at 100,000 notes)."""
    folders = [publish_index(tmp_path, "retrieval", _write(str(i))) for i in range(5)]
    for age, folder in zip((400, 300, 200, 100), folders[:4]):  # retired 400, 300, 200 and 100 seconds ago
        _aged(folder, age)
    in_progress = tmp_path / "retrieval-0000building"  # a concurrent build, no marker: only the long grace applies
    in_progress.mkdir()
    _aged(in_progress, 500)
    removed = publish.remove_expired(tmp_path, "retrieval", keep=set())
    assert sorted(removed) == sorted(f.name for f in folders[:2])  # past the short grace and not among the newest two
    names = {p.name for p in tmp_path.iterdir()}
    assert {f.name for f in folders[2:]} <= names and in_progress.name in names


def test_a_recently_retired_folder_stays_whatever_comes_after(tmp_path):
    folders = [publish_index(tmp_path, "retrieval", _write(str(i))) for i in range(6)]
    for folder in folders[:5]:
        _aged(folder, publish.SHORT_GRACE_SECONDS - 30)  # a reader may still be loading any of them
    assert publish.remove_expired(tmp_path, "retrieval", keep=set()) == []
    assert all((folder / publish.COMPLETE).exists() for folder in folders)


def test_a_failed_write_leaves_no_folder_and_no_marker(tmp_path):
    def broken(folder: Path) -> None:
        (folder / "half.json").write_text("{")
        raise OSError("disk full")

    try:
        publish_index(tmp_path, "retrieval", broken)
    except OSError:
        pass
    assert list(tmp_path.glob("retrieval-*")) == [] and current_index_dir(tmp_path, "retrieval") is None


def test_retired_folders_are_deleted_off_the_publishing_thread(tmp_path, monkeypatch):
    """Deleting a retired 100,000-note folder took ~0.1 s of every edit; a thread of its own does it now."""
    import shutil
    import threading

    folders = [publish_index(tmp_path, "retrieval", _write(str(i))) for i in range(4)]
    for folder in folders[:3]:
        _aged(folder, publish.GRACE_SECONDS + 1)
    deleted_on, real_rmtree = [], shutil.rmtree

    def rmtree(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        deleted_on.append(threading.current_thread())
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(publish.shutil, "rmtree", rmtree)
    removed = publish.remove_expired(tmp_path, "retrieval", keep=set())
    assert sorted(removed) == sorted(f.name for f in folders[:3])
    assert not {p.name for p in tmp_path.iterdir()} & set(removed)  # gone from their names at once
    publish.settle_removals()
    assert len(deleted_on) == 3 and threading.main_thread() not in deleted_on
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".trash-")]
