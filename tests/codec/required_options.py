"""What a test that builds every protocol of the registry must give the ones with required
options (``ProtocolSpec.required_options``): TiCDC's ``avro`` refuses to encode without a
``schema-registry``, and gets the in-process one (``avro/memory_registry.py``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from tests.codec.avro.memory_registry import MEMORY_URL, install_memory_scheme
from tisink.codec.config import EncoderConfig
from tisink.codec.protocol import ProtocolSpec
from tisink.codec.registry import get_protocol

VALUES: dict[str, str] = {"schema-registry": MEMORY_URL}
"""A value for each option some protocol requires."""


def required_params(spec: ProtocolSpec[Any]) -> dict[str, str]:
    """The sink URI parameters ``spec`` cannot do without (empty for most protocols)."""
    install_memory_scheme()
    return {key: VALUES[key] for key in spec.required_options}


def uri_suffix(spec: ProtocolSpec[Any]) -> str:
    """``&key=value`` for each required parameter, to append to a sink URI's query."""
    return "".join(f"&{key}={value}" for key, value in required_params(spec).items())


def encoder_config(protocol: str, **settings: Any) -> EncoderConfig:
    """An ``EncoderConfig`` of ``protocol`` whose options hold its required values."""
    spec = get_protocol(protocol)
    params = required_params(spec)
    if params and "options" not in settings:
        attrs = {option.attr: params[option.key] for option in spec.options if option.key in params}
        settings["options"] = dataclasses.replace(spec.default_options(), **attrs)
    return EncoderConfig(protocol=protocol, **settings)
