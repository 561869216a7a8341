"""``[[sink.dispatchers]]``: TiCDC's topic and partition rules, read from the changefeed TOML."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tisink.core.errors import TisinkError
from tisink.eventsink.router import DispatchRule
from tisink.sink.errors import ChangefeedConfigError

_RULE_KEYS = ("matcher", "partition", "dispatcher", "topic", "index", "columns")


def dispatch_rules(raw: Any, source: str, ignored: list[str]) -> tuple[DispatchRule, ...]:
    if not isinstance(raw, list):
        raise ChangefeedConfigError(f"{source}: sink.dispatchers must be a list of rules")
    rules = []
    for number, rule in enumerate(raw):
        where = f"{source}: sink.dispatchers[{number}]"
        if not isinstance(rule, Mapping):
            raise ChangefeedConfigError(f"{where}: expected a table, got {rule!r}")
        ignored.extend(f"sink.dispatchers[{number}].{k}" for k in rule if k not in _RULE_KEYS)
        matcher = _str_list(rule.get("matcher"), f"{where}.matcher")
        if not matcher:
            raise ChangefeedConfigError(f"{where}.matcher: needs at least one table filter")
        # TiCDC's deprecated ``dispatcher`` key is used only when ``partition`` is absent.
        partition = rule.get("partition") or rule.get("dispatcher") or "default"
        try:
            rules.append(
                DispatchRule(
                    matcher=matcher,
                    topic=_text(rule.get("topic", ""), f"{where}.topic"),
                    partition=_text(partition, f"{where}.partition"),
                    index=_text(rule.get("index", ""), f"{where}.index"),
                    columns=_str_list(rule.get("columns", []), f"{where}.columns"),
                )
            )
        except TisinkError as err:
            raise ChangefeedConfigError(f"{where}: {err}") from err
    return tuple(rules)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ChangefeedConfigError(f"{where}: expected a string, got {value!r}")
    return value


def _str_list(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ChangefeedConfigError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)
