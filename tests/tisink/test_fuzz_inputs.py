"""The fuzz pass of issue 44: random, malformed and hostile ``--faults`` specs, sink URIs and
scenario TOML (unknown keys, huge numbers, NaN, negatives, unicode, NUL, empty strings, keys
given twice) through the functions ``tisink play`` checks its input with, and a few through the
command itself. Whatever the input, it is accepted or refused with the project's error in one
line, and the command exits 2 for the refusal, without a traceback."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tisink.cli import app
from tisink.codec.message import MessageType
from tisink.core.errors import TisinkError
from tisink.eventsink.faults import FAULT_KINDS
from tisink.eventsink.faults.partition_log import PartitionLog
from tisink.eventsink.mq.producer import Mark
from tisink.play.errors import PlayRefused
from tisink.play.run import PlaySpec, check_play
from tisink.sink import ChangefeedConfig

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
CLI_FUZZ = settings(FUZZ, max_examples=10)

# --- hostile atoms --------------------------------------------------------------------------

ODD_TEXT = ["", " ", "\x00", "\n", "\r\n", "\t", "é", "\u202e", "🙂", "\x7f", ";", ",", "=", ":"]
HUGE = [10**20, -(10**20), 2**63, 2**64, -1, 0, 1, 10**400]
FLOATS = [math.nan, math.inf, -math.inf, 1e308, -0.0, 5e-324, 0.5, 2.0, -5.0]

words = st.text(max_size=12) | st.sampled_from(ODD_TEXT)
numbers = st.sampled_from(HUGE) | st.integers() | st.sampled_from(FLOATS) | st.floats()
number_text = numbers.map(str) | st.sampled_from(["nan", "inf", "-inf", "1e400", "0x10", "1_0"])
durations = st.tuples(number_text, st.sampled_from(["", "ms", "s", "m", "h", "d", "S"])).map(
    "".join
)
value_text = words | number_text | durations


def _one_line(err: BaseException) -> str:
    text = str(err)
    assert text.strip(), f"{type(err).__name__} without a message"
    assert "\n" not in text and "\r" not in text, text
    return text


# --- --faults -------------------------------------------------------------------------------

fault_keys = (
    st.sampled_from(["every", "at", "p", "nth", "seed", "topic", "partition", "by", "EVERY", " p "])
    | words
)
fault_pairs = st.tuples(fault_keys, st.sampled_from(["=", "", "=="]), value_text).map("".join)
fault_items = st.tuples(
    st.sampled_from([*FAULT_KINDS, "Restart-Replay", " bab "]) | words,
    st.lists(fault_pairs, max_size=4),
).map(lambda item: item[0] + (":" + ",".join(item[1]) if item[1] else ""))
fault_specs = st.lists(fault_items, min_size=1, max_size=4).map(";".join) | st.text()

_MARKS = [
    (Mark(MessageType.WATERMARK, "", 1 << 18, 1), (None, b"W1")),
    (Mark(MessageType.DML, "s.t", 2 << 18, 1), (b"k", b"R1")),
    (Mark(MessageType.DDL, "s.t", 3 << 18, 1), (None, b"D1")),
    (Mark(MessageType.DML, "s.t", (1 << 63) - 1, 1), (b"k", b"R2")),
    (Mark(MessageType.WATERMARK, "", (1 << 64) - 1, 1), (None, b"W2")),
]


@FUZZ
@given(fault_specs)
def test_a_fault_spec_is_read_or_refused_in_one_line(spec: str) -> None:
    try:
        PlaySpec(workload="demo", engine="inline", faults=spec)
    except ValueError as err:  # what the command prints as "play refused" (exit 2)
        _one_line(err)
        with pytest.raises(TisinkError) as refused:  # the changefeed's [sink] faults key
            ChangefeedConfig().with_setting("faults", spec, "--faults")
        _one_line(refused.value)
        return
    plan = ChangefeedConfig().with_setting("faults", spec, "--faults").faults
    assert plan is not None
    # an accepted spec runs: a partition's log takes a stream at the TSO range's edges
    log = PartitionLog(plan, "tidb-cdc", 0)
    for mark, record in _MARKS:
        log.apply([record], [mark])


# --- sink URIs ------------------------------------------------------------------------------

schemes = st.sampled_from(
    ["kafka", "file", "sqlite", "log", "blackhole", "mysql", "postgresql", "KAFKA", "nope", ""]
)
hosts = st.sampled_from(["", "127.0.0.1:9", "h:99999", "[::1]", "u:p@h", "h:-1", "a,b"]) | words
uri_params = (
    st.sampled_from(
        [
            "protocol",
            "partition-num",
            "topic",
            "file-layout",
            "max-message-bytes",
            "replication-factor",
            "required-acks",
            "compression",
            "kafka-client",
            "encoding-format",
            "enable-tidb-extension",
            "file-size",
            "date-separator",
            "flush-interval",
            "password",
        ]
    )
    | words
)
protocols = st.sampled_from(["simple", "csv", "canal-json", "debezium", "open", "avro", "debug"])
param_values = protocols | value_text


@st.composite
def sink_uris(draw: st.DrawFn, base: str) -> str:
    """A URI of a random scheme; a file:// one points under ``base`` (nothing is written)."""
    scheme = draw(schemes | words)
    params = draw(st.lists(st.tuples(uri_params, param_values), max_size=4))
    query = "&".join(f"{name}={value}" for name, value in params)
    if scheme == "file":
        where = base + draw(st.sampled_from(["", "/out", "/a/../b"]) | words.map("/out/".__add__))
    else:
        where = draw(hosts) + draw(st.sampled_from(["", "/t", "/", "//x"]) | words)
    return f"{scheme}://{where}" + (f"?{query}" if query else "") + draw(st.sampled_from(["", "#"]))


@FUZZ
@given(st.data(), st.sampled_from([None, "bab", "skew:partition=3", "restart-replay:nth=2"]))
def test_a_sink_uri_is_taken_or_refused_in_one_line(
    data: st.DataObject, faults: str | None
) -> None:
    with tempfile.TemporaryDirectory() as base:
        uri = data.draw(sink_uris(base))
        options = PlaySpec(
            workload="demo", engine="inline", sink_uri=uri, faults=faults, append=True
        )
        try:
            check_play(options)  # what the command runs first: PlayRefused is its exit 2
        except PlayRefused as err:
            _one_line(err)
        assert not any(Path(base).iterdir()), "checking a URI wrote files"


# --- scenario TOML --------------------------------------------------------------------------

BASE_SCENARIO: dict[str, Any] = {
    "name": "fuzz",
    "rows": 10,
    "tables": [
        {
            "schema": "s",
            "name": "t",
            "primary": ["id"],
            "columns": [
                {"name": "id", "type": "int", "nullable": False},
                {"name": "v", "type": "varchar(10)", "size": [1, 5]},
            ],
        }
    ],
    "ddl": [
        {"at": 0.5, "table": "t", "action": "add_column", "column": {"name": "w", "type": "int"}}
    ],
}
toml_scalars = (
    st.booleans() | st.sampled_from(HUGE[:-1]) | st.integers() | st.sampled_from(FLOATS) | words
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words, inner, max_size=3),
    max_leaves=6,
)
toml_numbers = st.sampled_from(HUGE[:-1]) | st.integers() | st.sampled_from(FLOATS) | st.floats()
# the scenario's own keys get hostile values of their TOML type (a value of another type is the
# crash reported in test_a_scenario_value_of_another_type_is_refused); unknown keys get anything
SCENARIO_VALUES: dict[str, st.SearchStrategy[Any]] = {
    **dict.fromkeys(
        ["rows", "duration_s", "rate", "null_ratio", "zipf_s", "resolved_every_ms", "weight"],
        toml_numbers,
    ),
    "at": toml_numbers,
    **dict.fromkeys(["txn_size", "size"], st.lists(toml_numbers, max_size=3)),
    "primary": st.lists(words, max_size=3),
    "nullable": st.booleans(),
    **dict.fromkeys(
        ["name", "description", "start", "keys", "schema", "type", "action", "table", "to"],
        words | st.sampled_from(["int", "varchar(99999999999)", "decimal(65,70)", "drop_column"]),
    ),
    "default": toml_scalars,
}
SCENARIO_KEYS = ["name", "description", "rows", "duration_s", "rate", "start", "txn_size"]
SCENARIO_KEYS += ["null_ratio", "keys", "zipf_s", "resolved_every_ms"]
TABLE_KEYS = ["schema", "name", "weight", "keys", "primary", "txn_size", "null_ratio", "zipf_s"]
COLUMN_KEYS = ["name", "type", "nullable", "size", "default", "null_ratio"]
DDL_KEYS = ["at", "table", "action", "name", "to"]


def _toml(value: Any) -> str:
    """``value`` as a TOML value (inline tables and arrays)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return "{" + ", ".join(f"{_toml(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"


@st.composite
def scenario_texts(draw: st.DrawFn) -> str:
    """The base scenario with hostile values put in at random places, unknown keys, a key
    written twice, or plain text that is no TOML."""
    doc = json.loads(json.dumps(BASE_SCENARIO))
    table = doc["tables"][0]
    places = [
        (doc, SCENARIO_KEYS),
        (table, TABLE_KEYS),
        *((column, COLUMN_KEYS) for column in table["columns"]),
        (doc["ddl"][0], DDL_KEYS),
    ]
    for _ in range(draw(st.integers(1, 4))):
        target, keys = draw(st.sampled_from(places))
        key = draw(st.sampled_from(keys) | words)
        if draw(st.booleans()) and key in target:
            del target[key]
        else:
            target[key] = draw(SCENARIO_VALUES.get(key, toml_values))
    lines = [f"{_toml(key)} = {_toml(value)}" for key, value in doc.items()]
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(lines)))  # a key given twice
    text = "\n".join(lines) + "\n"
    return draw(st.just(text) | st.text(max_size=80))


@FUZZ
@given(scenario_texts())
def test_a_scenario_is_read_or_refused_in_one_line(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.toml"
        path.write_text(text, encoding="utf-8")
        try:
            check_play(PlaySpec(workload=str(path), engine="inline"))
        except PlayRefused as err:
            _one_line(err)


@pytest.mark.parametrize(
    ("where", "key", "value"),
    [
        ("ddl", "at", []),
        ("table", "weight", {}),
        ("scenario", "zipf_s", [1]),
        ("scenario", "txn_size", ["a", "b"]),
        ("scenario", "transactions", 0),
        ("table", "columns", True),
    ],
)
def test_a_scenario_value_of_another_type_is_refused(
    tmp_path: Path, where: str, key: str, value: Any
) -> None:
    doc = json.loads(json.dumps(BASE_SCENARIO))
    target = {"scenario": doc, "table": doc["tables"][0], "ddl": doc["ddl"][0]}[where]
    target[key] = value
    path = tmp_path / "typed.toml"
    path.write_text("".join(f"{_toml(k)} = {_toml(v)}\n" for k, v in doc.items()))
    with pytest.raises(PlayRefused) as refused:
        check_play(PlaySpec(workload=str(path), engine="inline"))
    _one_line(refused.value)


# --- the command itself -----------------------------------------------------------------------


def _play(tmp: Path, *args: str) -> tuple[int, list[str]]:
    """``tisink play`` in process on a small workload into a file sink under ``tmp``: the exit
    code and the output's lines that are not log records."""
    out = tmp / "out"
    uri = f"file://{out}?protocol=simple&partition-num=2"
    base = ["play", "--engine", "inline", "--rows", "20", "--no-verify", "--sink-uri", uri]
    result = CliRunner().invoke(app, [*base, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if not line.startswith("{")]
    return result.exit_code, lines


def _refused_in_one_line(code: int, lines: list[str]) -> None:
    assert code == 2, lines
    assert len(lines) == 1 and lines[0].startswith("play refused: "), lines


@pytest.mark.parametrize(
    "faults",
    [
        "bab:every=" + "9" * 400 + "h",  # OverflowError and a traceback before issue 44
        "bab:seed=1\n2",
        "bab:every=1s,every=2s",
        "restart-replay:topic=",
        "producer-retry:p=nan",
        "\x00",
        "skew:partition=2",
    ],
)
def test_the_command_refuses_a_hostile_spec_in_one_line(tmp_path: Path, faults: str) -> None:
    _refused_in_one_line(*_play(tmp_path, "--faults", faults))
    assert not (tmp_path / "out").exists()


def test_the_command_refuses_a_hostile_scenario_in_one_line(tmp_path: Path) -> None:
    scenario = tmp_path / "w.toml"
    scenario.write_text('name = "x"\nname = "y"\nrows = nan\n\x00 = 1\n', encoding="utf-8")
    _refused_in_one_line(*_play(tmp_path, "--workload", str(scenario)))


@CLI_FUZZ
@given(fault_specs)
def test_the_command_plays_or_refuses_any_spec(spec: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        code, lines = _play(Path(folder), "--faults", spec)
        if code != 0:
            _refused_in_one_line(code, lines)
