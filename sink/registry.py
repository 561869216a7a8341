"""Which sink schemes exist: the built-in ones (``sink/providers.py``; the databases in
``sink/sql_providers.py``; ``log`` in ``logsink/``) plus plugins from the ``tisink.sinks`` entry
points.

A plugin distribution declares, in its ``pyproject.toml``::

    [project.entry-points."tisink.sinks"]
    memory = "tisink_memory:MemorySinkProvider"

The entry point's name is the URI scheme; its object (a class, which is instantiated once per
SinkFactory, or any object/module) is a ``SinkProvider`` (``tisink.plugin``)::

    async def create_event_sink(uri: SinkURI, config: ChangefeedConfig, clock: Clock) -> EventSink
    async def create_ddl_sink(uri: SinkURI, config: ChangefeedConfig, clock: Clock) -> DDLSink

``create_ddl_sink`` is optional: without it DDL and checkpoints go to a blackhole DDL sink.
A provider gets Spark partitioning and ``tisink verify`` by implementing the capabilities of
``sink/capabilities.py`` (``MQTargetProvider``, ``VerifiableProvider``; ``MQSinkProvider``
implements the sinks for a provider that brings a producer). This module and the providers are
the only places that know schemes. A built-in scheme cannot be replaced by a plugin.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from tisink.sink.capabilities import EventSinkProvider
from tisink.sink.errors import SinkError, UnknownSchemeError
from tisink.sink.providers import (
    BlackholeProvider,
    FileProvider,
    KafkaProvider,
    kafka_available,
)
from tisink.sink.sql_providers import MySQLProvider, PostgreSQLProvider, SQLiteProvider

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "tisink.sinks"
BUILT_IN = "built-in"

_BUILT_INS: dict[str, Callable[[], EventSinkProvider]] = {
    "blackhole": BlackholeProvider,
    "file": FileProvider,
    "sqlite": SQLiteProvider,
    "mysql": MySQLProvider,
    "postgresql": PostgreSQLProvider,
}

_BUILT_IN_ENTRY_POINTS = (EntryPoint("log", "tisink.logsink:LogProvider", ENTRY_POINT_GROUP),)
"""Built-in schemes written as plugins are, against ``tisink.plugin`` alone (on a floor above
this one): loaded as a plugin's entry point is, listed as built-in."""


def _built_ins() -> dict[str, Callable[[], EventSinkProvider]]:
    schemes = dict(_BUILT_INS)
    for entry in _BUILT_IN_ENTRY_POINTS:
        schemes[entry.name] = functools.partial(_provider_of, entry)
    if kafka_available():
        schemes["kafka"] = KafkaProvider
    return schemes


def _plugins() -> dict[str, EntryPoint]:
    """Entry points by scheme; a name taken by a built-in (or an earlier plugin) is skipped."""
    built_ins = _built_ins()
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        scheme = entry.name.lower()
        if scheme in built_ins or scheme in found:
            log.warning(
                "sink plugin %s (%s) ignored: scheme %r is already provided",
                entry.value,
                _distribution(entry),
                scheme,
            )
            continue
        found[scheme] = entry
    return found


def _distribution(entry: EntryPoint) -> str:
    dist = entry.dist
    return dist.name if dist is not None else "unknown distribution"


def available_schemes() -> dict[str, str]:
    """Scheme -> "built-in" or the name of the plugin's distribution, sorted by scheme."""
    schemes = dict.fromkeys(_built_ins(), BUILT_IN)
    schemes.update({scheme: _distribution(e) for scheme, e in _plugins().items()})
    return dict(sorted(schemes.items()))


def load_provider(scheme: str) -> EventSinkProvider:
    """The provider object of ``scheme``; UnknownSchemeError lists the schemes that exist."""
    scheme = scheme.lower()
    built_in = _built_ins().get(scheme)
    if built_in is not None:
        return built_in()
    entry = _plugins().get(scheme)
    if entry is None:
        known = ", ".join(available_schemes())
        raise UnknownSchemeError(f"unknown sink scheme {scheme!r}; available: {known}")
    return _provider_of(entry)


def _provider_of(entry: EntryPoint) -> EventSinkProvider:
    """The provider an entry point names (a class is instantiated), checked to be one."""
    scheme = entry.name.lower()
    try:
        provider = entry.load()
    except Exception as err:
        raise SinkError(
            f"sink plugin for scheme {scheme!r} ({entry.value} from {_distribution(entry)}) "
            f"failed to load: {err!r}"
        ) from err
    if isinstance(provider, type):
        provider = provider()
    if not isinstance(provider, EventSinkProvider):
        raise SinkError(
            f"sink plugin for scheme {scheme!r} ({entry.value} from {_distribution(entry)}) "
            "has no create_event_sink"
        )
    return provider
