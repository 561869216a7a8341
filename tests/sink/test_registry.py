"""The scheme registry: built-ins, the lazily imported kafka scheme, unknown schemes."""

from __future__ import annotations

import pytest

from tisink.logsink import LogProvider
from tisink.sink.errors import UnknownSchemeError
from tisink.sink.providers import BlackholeProvider, FileProvider, kafka_available
from tisink.sink.registry import available_schemes, load_provider


def test_built_ins_are_listed():
    schemes = available_schemes()
    for scheme in ("blackhole", "file", "log"):
        assert schemes[scheme] == "built-in"
    assert ("kafka" in schemes) == kafka_available()
    assert list(schemes) == sorted(schemes)


@pytest.mark.parametrize(
    ("scheme", "kind"),
    [("blackhole", BlackholeProvider), ("LOG", LogProvider), ("file", FileProvider)],
)
def test_load_built_in(scheme, kind):
    assert isinstance(load_provider(scheme), kind)


def test_unknown_scheme_lists_the_known_ones():
    with pytest.raises(
        UnknownSchemeError, match=r"unknown sink scheme 'pulsar'; available: .*blackhole"
    ):
        load_provider("pulsar")
