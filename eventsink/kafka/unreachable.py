"""One line for a Kafka cluster that does not answer, the same from every client (play's
aiokafka, verify's and capture's librdkafka): the addresses, what each said when last tried,
and for how long, instead of a library's repr and its log lines."""

from __future__ import annotations

import logging
import os
import re
from contextvars import ContextVar

from confluent_kafka import Consumer, KafkaError, KafkaException

log = logging.getLogger(__name__)

_LIBRDKAFKA_FAILURE = re.compile(
    r"(?:\w+://)?(?P<address>[^/\s]+)/\S+: (?:Connect to \S+ failed: )?(?P<why>.*?)"
    r"(?: \(after \d+ms in state \w+.*\))?(?:, \d+ identical error\(s\) suppressed)?"
)
#: librdkafka's error codes of a broker it cannot connect to (it keeps retrying them)
CONNECTION_ERRORS = frozenset(
    {KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._RESOLVE}
)
#: what a broker said that a request failing for want of one is explained by
_BROKER_FAILURES = CONNECTION_ERRORS | {KafkaError._AUTHENTICATION}
#: aiokafka's bootstrap messages, one per address it could not use (logged at ERROR)
_AIOKAFKA_BOOTSTRAP = frozenset(
    {'Unable connect to "%s:%s": %s', 'Unable to request metadata from "%s:%s": %s'}
)


class ConnectionFailures:
    """The last failure of each broker address a client tried."""

    def __init__(self) -> None:
        self.by_address: dict[str, str] = {}

    def add(self, address: str, why: str) -> None:
        self.by_address[address] = why

    def add_librdkafka(self, error: KafkaError) -> None:
        """An ``error_cb`` event: a broker's connection or authentication failure is kept,
        others are not."""
        if error.code() not in _BROKER_FAILURES:
            return
        found = _LIBRDKAFKA_FAILURE.fullmatch(error.str())
        if found is not None:
            self.add(found["address"], found["why"])

    def describe(self) -> str:
        if not self.by_address:
            return "no broker answered"
        return "; ".join(f"{address}: {why}" for address, why in self.by_address.items())


def unreachable(servers: str, failures: ConnectionFailures, seconds: float, setting: str) -> str:
    """``cannot reach Kafka at ...``: the servers, how long they were tried (measured, and
    the sink URI parameter that bounds it) and each address's last failure."""
    return (
        f"cannot reach Kafka at {servers}: tried for {seconds:.1f}s (the sink URI's "
        f"{setting}); {failures.describe()}"
    )


def os_reason(err: BaseException) -> str:
    """A socket error as its reason alone (``Connection refused``, ``Name or service not
    known``), without errno and address decorations."""
    if isinstance(err, TimeoutError):
        return "no answer"
    if isinstance(err, OSError):
        if err.errno is not None and err.errno > 0:
            return os.strerror(err.errno)
        if err.strerror:
            return err.strerror
    return str(err) or type(err).__name__


dialing: ContextVar[ConnectionFailures | None] = ContextVar("dialing", default=None)
"""Set while an aiokafka client is being started: where its bootstrap failures go."""


class _BootstrapFailures(logging.Filter):
    """Takes aiokafka's per-address bootstrap errors while a dial collects them: the dial's
    own error names them, so they are not printed (at debug level only)."""

    def filter(self, record: logging.LogRecord) -> bool:
        failures = dialing.get()
        if failures is None or record.msg not in _AIOKAFKA_BOOTSTRAP:
            return True
        args = record.args
        if not isinstance(args, tuple) or len(args) != 3:
            return True
        host, port, err = args
        why = os_reason(err) if isinstance(err, BaseException) else str(err)
        failures.add(f"{host}:{port}", why)
        log.debug("Kafka bootstrap %s:%s: %s", host, port, why)
        return False


def watch_aiokafka_bootstrap() -> None:
    """Install the filter on aiokafka's logger (once; it acts only while ``dialing`` is set)."""
    logger = logging.getLogger("aiokafka")
    if not any(isinstance(f, _BootstrapFailures) for f in logger.filters):
        logger.addFilter(_BootstrapFailures())


def librdkafka_failure(
    consumer: Consumer,
    err: KafkaException,
    what: str,
    *,
    servers: str,
    failures: ConnectionFailures,
    seconds: float,
) -> str:
    """A failed librdkafka request as one line: ``cannot reach Kafka ...`` when no broker
    could be connected to (the ``error_cb`` events it queued are served first, so
    ``failures`` holds them), else ``what`` and librdkafka's own words."""
    consumer.poll(0)
    error = err.args[0] if err.args and isinstance(err.args[0], KafkaError) else None
    if error is None:
        return f"Kafka {servers}: {what}: {err}"
    if error.code() in _BROKER_FAILURES or (
        error.code() == KafkaError._TIMED_OUT and failures.by_address
    ):
        return unreachable(servers, failures, seconds, "read-timeout")
    return f"Kafka {servers}: {what}: {error.str()}"
