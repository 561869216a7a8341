"""structlog and Rich setup for the command line; library code only uses stdlib logging.

Records from ``logging.getLogger(__name__)`` in every layer go through structlog's
ProcessorFormatter, so one renderer (console on a terminal, JSON lines otherwise) shows both.
Rich lays tables out at the terminal's width; on a pipe or a file there is no terminal, and
Rich's fallback of 80 columns would wrap summary rows and cut bench headers, so output that
is not a terminal gets ``COLUMNS`` when set and otherwise a width no line reaches.
"""

from __future__ import annotations

import logging
import sys

import structlog

VERBOSITY = ("WARNING", "INFO", "DEBUG")
"""The log level of no -v, -v and -vv: by default a terminal shows the progress line, the
summary, warnings and errors."""
SPARK_VERBOSITY = (logging.CRITICAL, logging.WARNING, logging.INFO)
"""Spark's own (log4j) lines by -v count: quiet unless asked (a failed play names Spark's
error in its own one line; -v shows Spark's errors with their stack traces)."""
PY4J_VERBOSITY = (logging.WARNING, logging.WARNING, logging.DEBUG)
SINK_OUTPUT = ("tisink.eventsink.log", "tisink.ddlsink.log")
"""The ``log://`` sink's loggers: their lines are that sink's output, shown at any verbosity."""


def configure_logging(
    level: str | None = None, *, verbose: int = 0, json_output: bool | None = None
) -> None:
    """Route stdlib logging and structlog to stderr with one renderer, at ``level`` (default:
    the one ``verbose``, the -v count, picks)."""
    verbose = max(0, min(verbose, len(VERBOSITY) - 1))
    level = level or VERBOSITY[verbose]
    if json_output is None:
        json_output = not sys.stderr.isatty()
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.ExtraAdder(),
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer()
        if json_output
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("aiokafka").setLevel(max(root.level, logging.WARNING))
    logging.getLogger("py4j").setLevel(max(root.level, PY4J_VERBOSITY[verbose]))
    logging.getLogger("tisink.feed.spark.log4j").setLevel(SPARK_VERBOSITY[verbose])
    for name in SINK_OUTPUT:
        logging.getLogger(name).setLevel(min(root.level, logging.INFO))
