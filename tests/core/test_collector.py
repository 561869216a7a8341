"""The collector held back inside ``rare_collections`` and the embedding program's settings
back after it, also when the block fails."""

from __future__ import annotations

import gc
import weakref

import pytest

from tisink.core.collector import YOUNG_THRESHOLD, rare_collections


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_startup_objects_are_frozen_and_settings_come_back() -> None:
    before = gc.get_threshold()
    with rare_collections():
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.get_freeze_count() > 1000  # modules, classes and the rest of start-up
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_cycles_made_inside_are_not_frozen() -> None:
    """Only what existed before the block is frozen: a cycle made inside is collectable."""
    with rare_collections():
        first, second = _Node(), _Node()
        first.other, second.other = second, first
        alive = weakref.ref(first)
        del first, second
        gc.collect()
        assert alive() is None


def test_a_failing_block_restores_the_settings() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), rare_collections():
        raise RuntimeError("stop")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
