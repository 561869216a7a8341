"""The ``tisink`` command line (Typer + Rich). Nothing imports this module."""

from __future__ import annotations

import logging
import os
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.markup import escape
from rich.table import Table

from tisink import replay_commands
from tisink.cli_group import TisinkGroup
from tisink.core.errors import TisinkError
from tisink.exits import FAILED, REFUSED, console, end_on, exit_with, fail, refuse
from tisink.feed.play_spec import ClockMode, Engine, PlaySpec
from tisink.logs import configure_logging
from tisink.options import (
    ReportDir,
    ReportJson,
    Rows,
    SchemaSql,
    Seed,
    SummaryJson,
    Workload,
    spec_of,
)
from tisink.run.console import fit_console, stdout_console
from tisink.run.embedded import DEFAULT_BROKER, BrokerKind

app = typer.Typer(
    name="tisink",
    help="Protocol-exact TiCDC change traffic: play change feeds through TiCDC's sink framework.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=TisinkGroup,
)
log = logging.getLogger("tisink")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tisink {dist_version('tisink')}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose",
            "-v",
            count=True,
            metavar="",
            show_default=False,
            help="-v: info logs and Spark's warnings; -vv: debug logs and Spark's info.",
        ),
    ] = 0,
    log_level: Annotated[
        str | None, typer.Option(help="Log level (default: WARNING, or as -v says).")
    ] = None,
    log_json: Annotated[
        bool | None, typer.Option("--log-json/--log-console", help="Force the log renderer.")
    ] = None,
) -> None:
    configure_logging(log_level, verbose=verbose, json_output=log_json)
    fit_console(console)


@app.command()
def sinks() -> None:
    """List the sink schemes: built-in ones and those plugins register (entry point group
    'tisink.sinks'), with what each declares (DDL sink, Spark partitions, verify)."""
    from tisink.core.errors import TisinkError
    from tisink.sink.capabilities import declared_capabilities
    from tisink.sink.registry import available_schemes, load_provider

    table = Table("scheme", "provided by", "capabilities")
    for scheme, origin in sorted(available_schemes().items()):
        try:
            declared = ", ".join(declared_capabilities(load_provider(scheme)))
        except TisinkError as err:  # a plugin that fails to load is listed, with why
            declared = f"failed to load: {err}"
        table.add_row(scheme, origin, declared)
    stdout_console().print(table)


@app.command()
def protocols(
    name: Annotated[
        str | None,
        typer.Argument(help="A protocol: show its parameters, defaults and encoding formats."),
    ] = None,
) -> None:
    """List the protocols, one line each; with a NAME, that protocol's parameters and defaults."""
    from tisink.catalog import parameters, protocol_rows, protocol_title
    from tisink.codec.registry import get_protocol

    out = stdout_console()  # keys never cut, the other columns wrap
    if name is None:
        listing = Table("protocol", "encoding-format", "carries", title_justify="left")
        for row in protocol_rows():
            listing.add_row(*(escape(cell) for cell in row))
        out.print(listing)
        out.print("tisink protocols NAME shows a protocol's parameters and defaults.")
        return
    try:
        spec = get_protocol(name)
    except TisinkError as err:
        refuse("protocols", str(err))
    params = parameters(spec)
    out.print(escape(f"{protocol_title(spec)}: {spec.summary}"))
    table = Table(expand=False)
    table.add_column("parameter", no_wrap=True, min_width=max(len(p.key) for p in params))
    for column in ("where", "default", "meaning"):
        table.add_column(column, overflow="fold")
    for p in params:
        default = "" if p.default is None else str(p.default)
        table.add_row(p.key, escape(p.where), escape(default), escape(p.help))
    out.print(table)


@app.command()
def schema(
    protocol: Annotated[str, typer.Argument(help="A protocol name (tisink protocols).")],
    out: Annotated[Path, typer.Option(help="Folder to write the schema files into.")],
    encoding_format: Annotated[
        str | None, typer.Option(help="Encoding format (default: the protocol's first).")
    ] = None,
) -> None:
    """Write the schema files a consumer needs to decode PROTOCOL."""
    from tisink.catalog import write_schema

    try:
        written = write_schema(protocol, encoding_format, out)
    except TisinkError as err:
        fail("schema", str(err), REFUSED)
    if not written:
        from tisink.catalog import no_schema_file

        typer.echo(f"{no_schema_file(protocol, encoding_format)} (wrote nothing)")
    for path in written:
        typer.echo(f"wrote {path}")


@app.command()
def play(
    feed: Annotated[Path | None, typer.Option(help="Feed file or folder of feed files.")] = None,
    workload: Workload = None,
    schema_sql: SchemaSql = None,
    sink_uri: Annotated[
        str | None,
        typer.Option(help="Where to write; default: the embedded broker, Simple JSON."),
    ] = None,
    broker: Annotated[
        BrokerKind,
        typer.Option(
            help="The embedded broker when no --sink-uri: apache (Apache Kafka, 3 to 8 s to "
            "start, real end offsets) or tansu (in memory, instant; end offsets count batches)."
        ),
    ] = DEFAULT_BROKER,
    config_path: Annotated[
        Path | None, typer.Option("--config", help="Changefeed TOML (TiCDC keys).")
    ] = None,
    engine: Annotated[Engine, typer.Option(help="Where the players run.")] = "spark",
    master: Annotated[str, typer.Option(help="Spark master URL.")] = "local[*]",
    seed: Seed = 0,
    rows: Rows = None,
    rate: Annotated[
        str | None,
        typer.Option(
            help="Hold the play to this many rows/s, or to stages: "
            "'ramp:1000-5000/30s,hold:5000/60s,spike:20000/2s,idle:10s' (inline engine)."
        ),
    ] = None,
    duration_s: Annotated[
        float | None,
        typer.Option(
            "--duration", help="With --rate and a workload: play rate x duration rows (seconds)."
        ),
    ] = None,
    clock: Annotated[
        ClockMode, typer.Option(help="wall: real time for buildTs; feed: commit ts (reproducible).")
    ] = "wall",
    watermark_interval_s: Annotated[
        float,
        typer.Option(
            "--watermark-interval",
            help="Seconds of commit time between watermarks (TiCDC ticks every 1 s).",
        ),
    ] = 1.0,
    spark_archive: Annotated[
        str,
        typer.Option(
            help="Spark cluster: the executors' Python; auto packs this environment, none "
            "ships nothing (executors have tisink), or a packed venv .tar.gz (venv-pack)."
        ),
    ] = "auto",
    summary_json: SummaryJson = None,
    report: ReportDir = None,
    verify_after: Annotated[
        bool, typer.Option("--verify/--no-verify", help="Read a Kafka/file stream back after.")
    ] = True,
    append: Annotated[
        bool,
        typer.Option(
            help="Let a file sink continue the topics an earlier run left in its folder "
            "(verify is skipped); without it such a folder is refused."
        ),
    ] = False,
    faults: Annotated[
        str | None,
        typer.Option(
            help="Delivery faults of at-least-once CDC to inject: NAME[:key=value,...] items "
            "joined by ';' (restart-replay, bab, duplicate-ddl, duplicate-watermark, "
            "stale-watermark, producer-retry, skew, split-table, ts-regression, corrupt-checksum); "
            "listed in the summary's faults."
        ),
    ] = None,
) -> None:
    """Play a change feed or a generated workload through the sink framework to a sink.
    Ctrl-C (or SIGTERM) stops reading, lets sent messages finish, prints and writes the
    summary, and exits 130 (143); a second one stops at once."""
    given = dict(locals())  # the parameters: each named as the PlaySpec field it sets
    from tisink.play.errors import PlayFailed, PlayRefused
    from tisink.play.run import run_play
    from tisink.progress import progress_display
    from tisink.run.interrupt import StopRequest, stop_on_signals

    if summary_json is not None:
        _check_writable(summary_json)
    if report is not None:
        _check_writable(report / "summary.json", what="the report")
    _feed_not_sql(feed)
    if schema_sql is not None:
        if workload is not None or feed is not None:
            refuse("play", "give one of --feed, --workload, --schema-sql")
        workload = _sql_workload(schema_sql, "play")
    try:
        spec = spec_of(PlaySpec, given, workload=workload)
    except ValueError as err:
        refuse("play", str(err))
    stop = StopRequest()
    try:
        with stop_on_signals(stop), progress_display(console) as line:
            summary = run_play(spec, line, stop, line.phase if line else None)
    except PlayRefused as err:
        refuse("play", str(err))
    except PlayFailed as err:
        if summary_json:
            err.summary.write(summary_json)
        _print_summary(err.summary.to_dict())
        if stop.signum is not None:
            fail("play", str(err), stop.exit_code)
        end_on("play", err)
    except (TisinkError, ValueError) as err:
        end_on("play", err)
    if summary_json:
        summary.write(summary_json)
    if report is not None:
        from tisink.run.report import write_play_report

        write_play_report(summary, report)
    _print_summary(summary.to_dict())
    if summary.stopped_by is not None:
        exit_with(f"[bold yellow]play stopped by {summary.stopped_by}[/]", stop.exit_code)
    if summary.verified is False:
        raise typer.Exit(1)


def _sql_workload(schema_sql: Path, command: str) -> str:
    """``--schema-sql FILE``: the workload path (a ``.sql`` path loads as a dump)."""
    if schema_sql.suffix.lower() != ".sql":
        refuse(command, f"--schema-sql needs a .sql file (a MySQL CREATE TABLE dump): {schema_sql}")
    if not schema_sql.exists():
        refuse(command, f"--schema-sql {schema_sql}: the file does not exist")
    if not schema_sql.is_file():
        refuse(command, f"--schema-sql {schema_sql} is a folder, not a .sql file")
    return str(schema_sql)


def _feed_not_sql(feed: Path | None) -> None:
    """A .sql file given as ``--feed`` is a CREATE TABLE dump, not JSON lines: say which
    option takes it before the reader fails on its first line."""
    if feed is not None and feed.suffix.lower() == ".sql" and feed.is_file():
        refuse(
            "play",
            f"--feed {feed}: a feed is JSON lines (one change record a line, as tisink "
            f"generate writes); for a CREATE TABLE dump use --schema-sql {feed}",
        )


def _check_writable(path: Path, *, command: str = "play", what: str = "the summary") -> None:
    """Fail before a long run, not after it, when its output file cannot be written."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if path.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
        refuse(command, f"cannot write {what} to {path}")


@app.command()
def generate(
    out: Annotated[Path, typer.Option(help="The feed file to write.")],
    workload: Workload = None,
    schema_sql: SchemaSql = None,
    seed: Seed = 0,
    rows: Rows = None,
    checksum_version: Annotated[
        int | None,
        typer.Option(
            help="Give every row TiCDC's row checksum of this TiDB version (0: V1, 1: v8.3's, "
            '2: V2), as a play with [integrity] integrity-check-level = "correctness" writes.'
        ),
    ] = None,
    corrupt_nth: Annotated[
        int,
        typer.Option(
            help="With --checksum-version: mark every Nth row corrupted, as TiCDC marks a row "
            "whose data did not match TiDB's checksum (0: none)."
        ),
    ] = 0,
) -> None:
    """Write a seeded workload as a change feed file."""
    from tisink.codec.checksum import VERSIONS
    from tisink.feed.workload import ScenarioError, generate_feed

    if rows is not None and rows <= 0:
        refuse("generate", f"--rows must be positive, got {rows}")
    if checksum_version is not None and checksum_version not in VERSIONS:
        refuse("generate", f"--checksum-version must be one of {list(VERSIONS)}")
    if corrupt_nth < 0 or (corrupt_nth and checksum_version is None):
        refuse("generate", "--corrupt-nth needs --checksum-version and must not be negative")
    if schema_sql is not None and workload is None:
        workload = _sql_workload(schema_sql, "generate")
    elif (workload is None) == (schema_sql is None):
        refuse("generate", "give --workload or --schema-sql")
    assert workload is not None
    _check_writable(out, command="generate", what="the feed")
    try:
        counts = generate_feed(
            workload, seed, rows, out, checksum_version=checksum_version, corrupt_nth=corrupt_nth
        )
    except ScenarioError as err:
        refuse("generate", str(err))
    except TisinkError as err:
        fail("generate", str(err))
    console.print(f"wrote {escape(str(out))}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


@app.command()
def verify(
    sink_uri: Annotated[str, typer.Option(help="The kafka:// or file:// sink URI to read back.")],
    protocol: Annotated[
        str | None,
        typer.Option(help="Protocol of the stream (default: the URI's, else simple)."),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(help="Seconds without a new record before the rest is given up."),
    ] = 30.0,
    topic: Annotated[
        list[str] | None, typer.Option(help="Extra topic to read (repeatable).")
    ] = None,
    topic_pattern: Annotated[
        str | None, typer.Option(help="Also read existing topics matching this regex.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="Changefeed TOML (dispatcher topics).")
    ] = None,
    max_violations: Annotated[int, typer.Option(help="Violations to list.")] = 20,
    summary_json: SummaryJson = None,
    allow_empty: Annotated[
        bool,
        typer.Option(
            "--allow-empty", help="Pass a stream with nothing to read (it fails by default)."
        ),
    ] = False,
) -> None:
    """Read a stream back with its protocol's decoder and check what consumers rely on;
    exit 1 on a violation, or when nothing was read (unless --allow-empty)."""
    from tisink.verify import render_text
    from tisink.verify import verify as run_verify

    try:
        report = run_verify(
            sink_uri,
            protocol=protocol,
            timeout_s=timeout,
            topics=topic or (),
            topic_pattern=topic_pattern,
            config_path=config,
            max_violations=max_violations,
            allow_empty=allow_empty,
        )
    except TisinkError as err:
        fail("verify", str(err), REFUSED)
    typer.echo(render_text(report))
    if summary_json:
        summary_json.parent.mkdir(parents=True, exist_ok=True)
        summary_json.write_bytes(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2))
    raise typer.Exit(0 if report.ok else 1)


app.command()(replay_commands.capture)
app.command()(replay_commands.replay)


@app.command()
def check(
    actual: Annotated[
        str,
        typer.Option(
            help="The consumer's database: sqlite:///rel.db, sqlite:////abs.db, "
            "mysql://user:pw@host:port/, postgresql://user:pw@host:port/db."
        ),
    ],
    expected: Annotated[
        str | None,
        typer.Option(help="The expected database URL, or a feed file to apply (temporary SQLite)."),
    ] = None,
    workload: Workload = None,
    seed: Seed = 0,
    rows: Rows = None,
    table: Annotated[
        list[str] | None, typer.Option(help="Compare only schema.table (wildcards; repeatable).")
    ] = None,
    ignore_table: Annotated[
        list[str] | None, typer.Option(help="Leave out schema.table (wildcards; repeatable).")
    ] = None,
    schema_map: Annotated[
        list[str] | None, typer.Option(help="SRC=DST: schema SRC is DST on the actual side.")
    ] = None,
    table_map: Annotated[
        list[str] | None, typer.Option(help="SRC=DST: table s.t is s2.t2 on the actual side.")
    ] = None,
    max_differences: Annotated[int, typer.Option(help="Differences to list.")] = 20,
    summary_json: SummaryJson = None,
    report_json: ReportJson = None,
    strict_column_order: Annotated[
        bool,
        typer.Option(
            "--strict-column-order",
            help="Columns in another order differ (default: matched by name, a note).",
        ),
    ] = False,
) -> None:
    """Compare a consumer's database with the state a change feed implies: the --expected
    database or feed, or a --workload applied as play does. Exit 0 when equal, 1 when
    different, 2 when a database cannot be opened or read."""
    from tisink.check import CheckError, command_options, render_text, write_json
    from tisink.check import check as run_check

    summary_json = summary_json or report_json
    if summary_json is not None:
        _check_writable(summary_json, command="check", what="the report")
    try:
        options = command_options(
            expected=expected,
            workload=workload,
            seed=seed,
            rows=rows,
            actual=actual,
            tables=table or (),
            ignore_tables=ignore_table or (),
            schema_map=schema_map or (),
            table_map=table_map or (),
            max_differences=max_differences,
            strict_column_order=strict_column_order,
        )
        report = run_check(options)
    except (CheckError, ValueError) as err:
        fail("check", str(err), REFUSED)
    typer.echo(render_text(report))
    if summary_json is not None:
        write_json(report, summary_json)
    raise typer.Exit(0 if report.ok else 1)


@app.command()
def bench(
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Fewer rows and repeats: about a minute and a half on two cores.",
        ),
    ] = False,
    out: Annotated[
        Path, typer.Option(help="Folder for bench.json, bench.md and bench.png.")
    ] = Path("bench-results"),
    bootstrap: Annotated[
        str | None,
        typer.Option(help="HOST:PORT of a Kafka for the broker groups (default: embedded)."),
    ] = None,
    broker: Annotated[
        BrokerKind,
        typer.Option(
            help="The Kafka sink group's broker, embedded or what --bootstrap is: apache "
            "(Apache Kafka, beside Kafka's own producer tool) or tansu (no producer tool). "
            "The engine and replay groups use a Tansu per contender."
        ),
    ] = DEFAULT_BROKER,
) -> None:
    """Run the standard benchmark suite: encoders against their libraries alone, the Kafka
    sink against raw aiokafka sends, inline against Spark; medians of repeats. Ctrl-C (or
    SIGTERM) stops it at once, writes the groups that finished (the others listed as not run)
    and exits 130 (143)."""
    from tisink.bench.output import print_tables
    from tisink.bench.stoppable import run_suite_stoppable
    from tisink.bench.suite import SuiteSettings, write_outputs
    from tisink.run.interrupt import StopRequest, stop_on_signals

    _check_writable(out / "bench.json", command="bench", what="the results")
    settings = (SuiteSettings.quick if quick else SuiteSettings.full)(bootstrap, broker)
    stop = StopRequest()
    with stop_on_signals(stop), console.status("benchmarking") as status:
        run, meta = run_suite_stoppable(
            settings, stop, lambda name: status.update(f"benchmarking: {name}")
        )
    results = run.results
    paths = write_outputs(results, meta, out, chart=run.stopped_by is None)
    print_tables(results)
    wrote = ", ".join(str(p) for p in paths)
    ended = (
        f"after {meta['wall_s']} s: {len(run.finished)} group(s) finished, "
        f"{len(run.not_run)} not run; wrote {wrote}"
    )
    if run.stopped_by is not None:
        exit_with(
            f"[bold yellow]bench stopped by {run.stopped_by}[/] {escape(ended)}", stop.exit_code
        )
    if run.failed is not None:
        fail("bench", f"{run.failed} {ended}")
    console.print(f"{meta['wall_s']} s; wrote {wrote}")
    failed = [r for r in results if r.error]
    if failed:
        exit_with(f"[bold red]{len(failed)} case(s) failed[/]", FAILED)


@app.command()
def broker(
    port: Annotated[int, typer.Option(help="Loopback port to listen on.")] = 9092,
    kind: Annotated[
        BrokerKind,
        typer.Option(
            help="tansu: in memory, starts in milliseconds, end offsets count batches; apache: "
            "Apache Kafka 4.x (one KRaft node, jars from Maven Central on first use), a few "
            "seconds to start, real end offsets and idempotent producers."
        ),
    ] = DEFAULT_BROKER,
) -> None:
    """Run an embedded Kafka broker in the foreground until interrupted; exit 2 when it
    cannot start (a busy port, no broker binary, no jars)."""
    from tisink.run.broker import BrokerStartError
    from tisink.run.embedded import serve_embedded_broker

    # where it listens is this command's output, not a diagnostic
    logging.getLogger("tisink.run").setLevel(logging.INFO)
    try:
        code = serve_embedded_broker(kind, port)
    except BrokerStartError as err:
        fail("broker", str(err), REFUSED)
    raise typer.Exit(code)


@app.command()
def registry(
    port: Annotated[int, typer.Option(help="Loopback port to listen on.")] = 8081,
) -> None:
    """Run an embedded Confluent-compatible schema registry (Apicurio Registry, in memory; built
    with Maven from Maven Central on first use) in the foreground until interrupted; exit 2
    when it cannot start (a busy port, no Java, no Maven)."""
    from tisink.run.errors import SchemaRegistryError
    from tisink.run.schema_registry import run_schema_registry_foreground

    # where it listens is this command's output, not a diagnostic
    logging.getLogger("tisink.run").setLevel(logging.INFO)
    try:
        code = run_schema_registry_foreground(port)
    except SchemaRegistryError as err:
        fail("registry", str(err), REFUSED)
    raise typer.Exit(code)


def _print_summary(summary: dict[str, object]) -> None:
    from tisink.summary_view import print_summary

    print_summary(console, summary)


def main() -> None:
    app()
