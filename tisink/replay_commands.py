"""The ``tisink capture`` and ``tisink replay`` commands; ``cli.py`` registers them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from tisink.core.errors import TisinkError
from tisink.exits import console, end_on, refuse
from tisink.options import ReportDir, SummaryJson
from tisink.replay.routing import Routing


def capture(
    source: Annotated[
        str, typer.Option("--from", help="The topic to capture: kafka://host:port/topic?...")
    ],
    out: Annotated[Path, typer.Option(help="Capture folder (continued when it holds some).")],
    partition: Annotated[
        list[int] | None, typer.Option(help="Partition to capture (repeatable; default all).")
    ] = None,
    start_offset: Annotated[
        int | None, typer.Option(help="First offset of each partition.")
    ] = None,
    end_offset: Annotated[
        int | None, typer.Option(help="Stop before this offset (default: the end).")
    ] = None,
    start_time: Annotated[
        str | None, typer.Option(help="From the first record at or after this (ISO or ms).")
    ] = None,
    end_time: Annotated[
        str | None, typer.Option(help="Stop at the first record at or after this (ISO or ms).")
    ] = None,
    timeout: Annotated[
        float, typer.Option(help="Seconds without a new record before giving up.")
    ] = 30.0,
) -> None:
    """Record a Kafka topic's records (key, value, headers, timestamp, partition, offset).
    They go into a folder in the file sink's layout, for replay and verify; run it again to resume.
    """
    from tisink.progress import progress_display
    from tisink.replay.capture import CaptureStats
    from tisink.replay.capture_topic import parse_bound, run_capture

    try:
        start = parse_bound(start_offset, start_time, "start")
        end = parse_bound(end_offset, end_time, "end")
        with progress_display(console) as line:
            on_progress = None
            if line is not None:

                def on_progress(stats: CaptureStats) -> None:
                    line.phase(f"captured {stats.records:,} records, {stats.bytes / 1e6:,.1f} MB")

            stats, seconds = run_capture(
                source,
                out,
                partitions=partition,
                start=start,
                end=end,
                timeout_s=timeout,
                on_progress=on_progress,
            )
    except TisinkError as err:
        end_on("capture", err)
    resumed = "".join(
        f", partition {p} resumed at offset {o}" for p, o in sorted(stats.resumed.items())
    )
    typer.echo(
        f"captured {stats.records} records ({stats.bytes / 1e6:.2f} MB) of "
        f"{len(stats.partitions)} partition(s) into {out} in {seconds:.1f} s{resumed}"
    )
    if stats.short:
        ends = ", ".join(
            f"partition {p} ended at offset {o}" for p, o in sorted(stats.short.items())
        )
        console.print(
            f"[bold yellow]capture stopped short of --end-offset {end_offset}:[/] topic "
            f"{escape(stats.topic)} {ends} when the capture started; captured up to there",
            soft_wrap=True,
        )


def replay(
    source: Annotated[
        str, typer.Argument(help="A capture or file-sink folder, or kafka://host:port/topic.")
    ],
    sink_uri: Annotated[str, typer.Option(help="Where to send: kafka://... or file://...")],
    topic: Annotated[
        str | None, typer.Option(help="The source topic, for a folder holding several.")
    ] = None,
    routing: Annotated[
        Routing,
        typer.Option(help="same: each record to its partition number; key: murmur2 of the key."),
    ] = Routing.same,
    rate: Annotated[float | None, typer.Option(help="Messages a second.")] = None,
    speed: Annotated[
        str | None,
        typer.Option(help="X: the source's timestamp spacing X times faster; max: line rate."),
    ] = None,
    loop: Annotated[int, typer.Option(help="Send the source this many times.")] = 1,
    preload: Annotated[
        bool,
        typer.Option(
            help="Read the whole source into memory before the first send, so the sending "
            "rate is the producer's alone (the reading counts in startup_s)."
        ),
    ] = False,
    timeout: Annotated[
        float, typer.Option(help="A Kafka source: seconds without a record before giving up.")
    ] = 30.0,
    summary_json: SummaryJson = None,
    report: ReportDir = None,
) -> None:
    """Send recorded records again (keys, headers, partitions and order kept) at line rate,
    at --rate, or at the source's own pace (--speed); the summary is play's."""
    from tisink.progress import progress_display
    from tisink.replay.errors import ReplayRefused, ReplayStopped
    from tisink.replay.run import ReplayOptions, replay_progress, run_replay
    from tisink.replay.sender import ReplayStats
    from tisink.summary_view import print_summary

    try:
        pace = None if speed is None or speed == "max" else float(speed)
    except ValueError:
        refuse("replay", f"--speed {speed}: a number or max")
    options = ReplayOptions(
        source=source,
        sink_uri=sink_uri,
        topic=topic,
        routing=routing,
        rate=rate,
        speed=pace,
        loops=loop,
        timeout_s=timeout,
        preload=preload,
    )
    try:
        with progress_display(console) as line:
            on_progress = None
            if line is not None:

                def on_progress(stats: ReplayStats) -> None:
                    line.phase(replay_progress(stats))

            summary = run_replay(options, on_progress)
    except ReplayRefused as err:
        refuse("replay", str(err))
    except ReplayStopped as err:
        if summary_json:
            err.summary.write(summary_json)
        print_summary(console, err.summary.to_dict())
        end_on("replay", err)
    except TisinkError as err:
        end_on("replay", err)
    if summary_json:
        summary.write(summary_json)
    if report is not None:
        from tisink.run.report import write_play_report

        write_play_report(summary, report)
    print_summary(console, summary.to_dict())
