"""Settings under TiCDC's names: where each lives (sink URI, changefeed TOML) and how it is read.

A protocol declares its settings as ``Option``s over a frozen dataclass of defaults; the sink
layer collects raw values from the TOML and the URI and ``build_options`` turns them into that
dataclass. Values from TOML arrive typed, values from a URI as strings, so every converter takes
both and raises ValueError with a short reason; the caller names the file or URI and the key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tisink.core.errors import ConfigError

Converter = Callable[[Any], Any]
T = TypeVar("T")

_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")
LOCAL_ZONE_NAMES = ("", "System", "Local")


@dataclass(frozen=True)
class Option:
    """One setting: ``key`` is its name in the URI and the TOML (kebab-case, as TiCDC spells
    it), ``attr`` the field it fills. ``tables`` are the TOML tables that may hold it (``()`` is
    the top level); ``uri`` says whether the sink URI may set it too."""

    key: str
    attr: str
    convert: Converter
    tables: tuple[tuple[str, ...], ...] = (("sink",),)
    uri: bool = True
    help: str = ""


def one_of(*allowed: str) -> Converter:
    """A lower-cased string among ``allowed``."""

    def convert(value: Any) -> str:
        text = to_lower(value)
        if text not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}, got {value!r}")
        return text

    return convert


def convert_options(
    options: Sequence[Option],
    raw: Mapping[str, Any],
    where: str,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Field -> converted value for each of ``options`` present in ``raw`` (keyed by
    ``Option.key``); ConfigError names ``where`` and the key as ``labels`` spell it (e.g. its
    TOML path, or ``key='value'`` for a URI parameter)."""
    changes: dict[str, Any] = {}
    for option in options:
        if option.key in raw:
            try:
                changes[option.attr] = option.convert(raw[option.key])
            except ValueError as err:
                label = (labels or {}).get(option.key, option.key)
                raise ConfigError(f"{where}: {label}: {err}") from None
    return changes


def build_options(
    options_type: type[T],
    options: Sequence[Option],
    raw: Mapping[str, Any],
    where: str,
    labels: Mapping[str, str] | None = None,
) -> T:
    """``options_type`` with the values of ``raw`` converted; the dataclass's own
    ``__post_init__`` checks combinations."""
    changes = convert_options(options, raw, where, labels)
    try:
        return options_type(**changes)
    except (TypeError, ValueError) as err:
        raise ConfigError(f"{where}: {err}") from None


def option_defaults(options_type: type, options: Sequence[Option]) -> dict[str, Any]:
    """Key -> default value, for ``tisink protocols``."""
    fields = {f.name: f for f in dataclasses.fields(options_type)}
    out: dict[str, Any] = {}
    for option in options:
        field = fields[option.attr]
        if field.default is not dataclasses.MISSING:
            out[option.key] = field.default
        elif field.default_factory is not dataclasses.MISSING:
            out[option.key] = field.default_factory()
    return out


# --- converters ----------------------------------------------------------------------------------


def to_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def to_lower(value: Any) -> str:
    return to_str(value).strip().lower()


def to_int(value: Any) -> int:
    """An integer; strings as Go's strconv.Atoi reads them."""
    if isinstance(value, bool):
        raise ValueError(f"expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip(), 10)
        except ValueError:
            pass
    raise ValueError(f"expected an integer, got {value!r}")


def to_positive_int(value: Any) -> int:
    number = to_int(value)
    if number <= 0:
        raise ValueError(f"must be positive, got {number}")
    return number


def to_non_negative_int(value: Any) -> int:
    number = to_int(value)
    if number < 0:
        raise ValueError(f"must not be negative, got {number}")
    return number


def to_bool(value: Any) -> bool:
    """A boolean; strings as Go's strconv.ParseBool reads them."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
    raise ValueError(f"expected true or false, got {value!r}")


def to_time_zone(value: Any) -> str | None:
    """An IANA zone name; "", "System" and "Local" mean the process's local zone (None)."""
    name = to_str(value).strip()
    if name in LOCAL_ZONE_NAMES:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None
    return name
