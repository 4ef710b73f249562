"""Context assembly keeps the middle hop: bridges between seed entities survive a tight budget."""

from __future__ import annotations

from engram_lab.retrieve.context import bridge_entities


def test_bridges_are_the_inner_nodes_of_short_paths():
    # 0 - 1 - 2 - 3 is a chain; 4 hangs off 1; 5 is far away
    neighbours = {0: {1}, 1: {0, 2, 4}, 2: {1, 3}, 3: {2}, 4: {1}, 5: set()}
    assert bridge_entities(neighbours, [0, 3]) == {1, 2}
    assert bridge_entities(neighbours, [0, 4]) == {1}
    assert bridge_entities(neighbours, [0, 5]) == set()
    assert bridge_entities(neighbours, [0, 3], depth=2) == set()  # too far apart to be one chain
