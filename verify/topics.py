"""Which topics verify reads.

A Simple stream spans the sink URI's default topic (watermarks always go there) and the topics
the ``[[sink.dispatchers]]`` rules route tables to. Verify reads, in this order and without
repeats: the default topic; topics named explicitly; literal topic names of the changefeed's
rules that exist; and the existing topics matching ``topic_pattern`` (a Python regex, full
match) or one of the rules' ``{schema}``/``{table}`` expressions. ``topic_pattern=".*"`` reads
every topic of the broker or folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from tisink.eventsink.router import DispatchRule
from tisink.verify.errors import VerifyError

_LITERAL = re.compile(r"[A-Za-z0-9._-]+")
_NAME = "[A-Za-z0-9._-]+"


def rule_expression(expression: str) -> re.Pattern[str]:
    """The topics a ``{schema}``/``{table}`` rule can produce, as a full-match regex."""
    parts = re.split(r"(\{schema\}|\{table\})", expression)
    return re.compile(
        "".join(_NAME if p in ("{schema}", "{table}") else re.escape(p) for p in parts)
    )


def select_topics(
    default_topic: str,
    existing: Iterable[str],
    *,
    topics: Sequence[str] = (),
    topic_pattern: str | None = None,
    rules: Sequence[DispatchRule] = (),
) -> list[str]:
    """The topics to read; VerifyError when the default or an explicit topic does not exist."""
    present = set(existing)
    selected: list[str] = []
    for topic in (default_topic, *topics):
        if topic not in present:
            known = ", ".join(sorted(present)) or "none"
            raise VerifyError(f"topic {topic!r} does not exist (topics: {known})")
        if topic not in selected:
            selected.append(topic)
    patterns: list[re.Pattern[str]] = []
    if topic_pattern:
        try:
            patterns.append(re.compile(topic_pattern))
        except re.error as err:
            raise VerifyError(f"topic pattern {topic_pattern!r}: {err}") from err
    for rule in rules:
        if not rule.topic:
            continue
        if _LITERAL.fullmatch(rule.topic):
            if rule.topic in present and rule.topic not in selected:
                selected.append(rule.topic)
        else:
            patterns.append(rule_expression(rule.topic))
    for topic in sorted(present):
        if topic not in selected and any(p.fullmatch(topic) for p in patterns):
            selected.append(topic)
    return selected
