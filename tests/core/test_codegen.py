"""``run_generated``: generated functions whose tracebacks show their generated lines."""

from __future__ import annotations

import linecache
import traceback

import pytest

from tisink.core.codegen import run_generated

SOURCE = "def generated(x):\n    y = x + 1\n    return y // (x - x)\n"


def test_a_traceback_shows_the_generated_line() -> None:
    generated = run_generated(SOURCE, "test divider", {})["generated"]
    with pytest.raises(ZeroDivisionError) as caught:
        generated(3)
    frame = traceback.extract_tb(caught.value.__traceback__)[-1]
    assert frame.filename.startswith("<tisink-generated test divider ")
    assert frame.lineno == 3
    assert frame.line == "return y // (x - x)"
    assert "    return y // (x - x)" in "".join(traceback.format_exception(caught.value))
    linecache.checkcache()  # no file behind the name: the lines stay registered
    assert linecache.getline(frame.filename, 2) == "    y = x + 1\n"


def test_each_source_its_own_name_and_the_same_source_its_code_again() -> None:
    first = run_generated(SOURCE, "test divider", {"unused": 1})["generated"]
    again = run_generated(SOURCE, "test divider", {})["generated"]
    other = run_generated(SOURCE.replace("+ 1", "+ 2"), "test divider", {})["generated"]
    assert first is not again and first.__code__ is again.__code__
    assert first.__globals__["unused"] == 1 and "unused" not in again.__globals__
    assert other.__code__.co_filename != first.__code__.co_filename
