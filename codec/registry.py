"""The protocol registry: every ``protocol=`` value tisink knows, one module per protocol.

Adding a protocol: a sub-package under ``codec/`` whose ``protocol.py`` defines ``PROTOCOL``
(a ``codec.protocol.ProtocolSpec``), one line in ``_MODULES``, and its tests. Modules are
imported on first use, so ``import tisink.codec`` stays cheap and a protocol's encoder libraries
load only when it is chosen.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from tisink.codec.protocol import ProtocolSpec
from tisink.core.errors import ConfigError

_MODULES: tuple[str, ...] = (
    "tisink.codec.simple.protocol",
    "tisink.codec.debug.protocol",
    "tisink.codec.debezium.protocol",
    "tisink.codec.dts.tencent.protocol",
    "tisink.codec.dts.alibaba.protocol",
    "tisink.codec.open.protocol",
    "tisink.codec.canal.protocol",
    "tisink.codec.csv.protocol",
    "tisink.codec.avro.protocol",
)


@cache
def protocols() -> dict[str, ProtocolSpec[Any]]:
    """Name -> spec, in registry order."""
    specs: dict[str, ProtocolSpec[Any]] = {}
    for module in _MODULES:
        spec: ProtocolSpec[Any] = importlib.import_module(module).PROTOCOL
        if spec.name in specs:
            raise ConfigError(f"protocol {spec.name!r} is registered twice ({module})")
        specs[spec.name] = spec
    return specs


def get_protocol(name: str) -> ProtocolSpec[Any]:
    """The spec of ``name``; ConfigError lists the known protocols."""
    spec = protocols().get(name)
    if spec is None:
        raise ConfigError(f"unknown protocol {name!r}; expected one of {', '.join(protocols())}")
    return spec
