"""``refusal_in``: a refusal is found through the causes a play wraps it in, and only a
refusal: a failure of the run stays a failure."""

from __future__ import annotations

import pytest

from tisink.core.errors import ConfigError, TisinkError, refusal_in
from tisink.eventsink.errors import PathNameError
from tisink.eventsink.sql.errors import SQLNameError
from tisink.model.errors import SchemaError


class Wrapper(TisinkError):
    """Stands for PlayFailed: a failure carrying what stopped it as its cause."""


def _wrapped(cause: BaseException) -> Wrapper:
    try:
        try:
            raise cause
        except BaseException as err:
            raise Wrapper("the play failed") from err
    except Wrapper as wrapper:
        return wrapper


@pytest.mark.parametrize("kind", [ConfigError, PathNameError, SQLNameError, SchemaError])
def test_a_refusal_is_found_behind_the_wrapper(kind: type[TisinkError]) -> None:
    cause = kind("table 's'.'t': refused")
    assert refusal_in(_wrapped(cause)) is cause
    assert refusal_in(cause) is cause


@pytest.mark.parametrize("cause", [TisinkError("broker gone"), OSError("disk full"), None])
def test_a_failure_is_no_refusal(cause: BaseException | None) -> None:
    assert refusal_in(cause if cause is None else _wrapped(cause)) is None


def test_an_implicit_context_counts_and_a_cycle_ends() -> None:
    refusal = ConfigError("bad key")
    try:
        try:
            raise refusal
        except ConfigError:
            raise RuntimeError("while handling") from None
    except RuntimeError as err:
        outer = err
    # ``from None`` hides the context from tracebacks, but the refusal is still what happened
    assert refusal_in(outer) is refusal
    loop = TisinkError("a")
    other = TisinkError("b")
    loop.__cause__, other.__cause__ = other, loop
    assert refusal_in(loop) is None
