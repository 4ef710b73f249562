"""The resolution review queue at scale: pages, sorts, counts per rule, and a batch retracted as one
(issue 21, item 5)."""

from __future__ import annotations

import pytest

from engram_lab.errors import EngramError
from engram_lab.state import DecisionLedger, open_ledger
from engram_lab.state.db import transaction
from engram_lab.state.review import ReviewQueue
from engram_lab.state.review_page import clamp_page, page_of

PAIRS = [("urn:a1", "urn:b1", 0.7, "typo"), ("urn:a2", "urn:b2", 0.62, "similar"),
         ("urn:a3", "urn:b3", 0.65, "initials"), ("urn:a4", "urn:b4", 0.67, "similar")]


@pytest.fixture
def conn(vault):
    conn = open_ledger(vault)
    with transaction(conn):
        for a, b, score, rule in PAIRS:
            ReviewQueue(conn).put(a, b, score, rule, {"name_a": a, "name_b": b})
    yield conn
    conn.close()


def test_pages_cover_the_queue_once_and_say_where_they_are():
    items = list(range(45))
    pages = [page_of(items, n, 20) for n in (1, 2, 3)]
    assert [p.items for p in pages] == [items[:20], items[20:40], items[40:]]
    assert [(p.page, p.pages, p.total, p.first, p.last) for p in pages] == [
        (1, 3, 45, 1, 20), (2, 3, 45, 21, 40), (3, 3, 45, 41, 45)]
    empty = page_of([], 1, 20)
    assert (empty.items, empty.pages, empty.first, empty.last) == ([], 1, 0, 0)


@pytest.mark.parametrize(("page", "size", "message"), [
    (4, 20, "no page 4: the queue has 45 pairs, 3 pages of 20"),
    (0, 20, "no page 0"),
    (-1, 20, "no page -1"),
    (1, 0, "at least one pair"),
])
def test_a_page_outside_the_queue_is_a_one_line_error(page, size, message):
    with pytest.raises(EngramError, match=message):
        page_of(list(range(45)), page, size)


def test_after_the_queue_shrinks_the_reader_stays_on_the_last_page_there_is():
    assert clamp_page(3, 40, 20) == 2 and clamp_page(3, 0, 20) == 1 and clamp_page(0, 40, 20) == 1 and clamp_page(2, 45, 20) == 2


def test_sort_by_score_or_by_rule(conn):
    queue = ReviewQueue(conn)
    assert [p.score for p in queue.pairs()] == [0.7, 0.67, 0.65, 0.62]
    assert [(p.rule, p.score) for p in queue.pairs(sort="rule")] == [
        ("initials", 0.65), ("similar", 0.67), ("similar", 0.62), ("typo", 0.7)]
    with pytest.raises(EngramError, match="cannot sort the review queue by 'name'; use one of: score, rule"):
        queue.pairs(sort="name")


def test_rule_counts_leave_out_judged_pairs(conn):
    queue = ReviewQueue(conn)
    assert queue.rule_counts() == {"initials": 1, "similar": 2, "typo": 1}
    DecisionLedger(conn).record("resolution", "urn:b2", "urn:a2", "distinct", "user")  # either direction hides it
    assert queue.rule_counts() == {"initials": 1, "similar": 1, "typo": 1}


def test_a_batch_is_retracted_as_one_and_its_pairs_come_back(conn):
    queue, ledger = ReviewQueue(conn), DecisionLedger(conn)
    before = queue.pairs()
    with transaction(conn):
        batch = [ledger.record_within("resolution", a, b, "distinct", "user", {"batch": "b-1"})
                 for a, b, _, rule in PAIRS if rule == "similar"]
    other = ledger.record("resolution", "urn:a1", "urn:b1", "same", "user", {"batch": "b-2"})
    assert [p.rule for p in queue.pairs()] == ["initials"]
    undone = ledger.retract_batch("b-1")
    assert {d.decision_id for d in undone} == {d.decision_id for d in batch} and not any(d.active for d in undone)
    assert ledger.get(other.decision_id).active  # another batch is untouched
    assert [p for p in queue.pairs() if p.rule != "typo"] == [p for p in before if p.rule != "typo"]
    with pytest.raises(EngramError, match="batch b-1 was already retracted"):
        ledger.retract_batch("b-1")
    with pytest.raises(EngramError, match="no decisions in batch 'b-none'"):
        ledger.retract_batch("b-none")


def test_keys_are_every_queued_pair_judged_or_not(conn):
    queue = ReviewQueue(conn)
    DecisionLedger(conn).record("resolution", "urn:a2", "urn:b2", "distinct", "user")
    assert queue.keys() == {(a, b) for a, b, _, _ in PAIRS} == {(p.a, p.b) for p in queue.pairs(include_decided=True)}


def test_the_focused_reads_and_removals_equal_filtering_every_row(conn):
    """A focused analysis reads and drops only the rows touching its entities, through the indexes on both ends."""
    queue = ReviewQueue(conn)
    with transaction(conn):
        queue.put("urn:b1", "urn:c1", 0.6, "typo", {})  # urn:b1 on both sides of pairs
    every = queue.keys()
    for focus in ({"urn:b1"}, {"urn:a1", "urn:b3"}, {"urn:none"}, set()):
        assert queue.keys_touching(focus) == {(a, b) for a, b in every if a in focus or b in focus}
    with transaction(conn):
        queue.remove_touching({"urn:b1", "urn:a4"})
    assert queue.keys() == {("urn:a2", "urn:b2"), ("urn:a3", "urn:b3")}
