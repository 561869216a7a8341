"""Session fixtures ``mariadb_url`` and ``postgresql_url``: real database servers for the tests.

Each starts one server for the whole session, as ``broker_fixture`` starts the broker: on a free
loopback port, its data directory in a temporary folder, stopped (and the folder removed) at the
end. MariaDB comes from Debian's ``mariadb-server`` (``mariadb-install-db`` + ``mariadbd``, run as
root with ``--user=root``); PostgreSQL 15 from ``/usr/lib/postgresql/15/bin``, run as the
``postgres`` system user since it refuses root. Both get a user ``tisink`` with a password, so the
sinks connect as a real client would. A server that cannot start fails the test with its log's
tail: nothing is skipped.

The URLs are sink URIs: ``mysql://tisink:pw@127.0.0.1:port/`` and
``postgresql://tisink:pw@127.0.0.1:port/postgres``. Tests take a clean database with the
function fixtures ``fresh_mariadb`` (every database but the system ones dropped: TiDB schemas map
to MariaDB databases, so the server itself is the unit) and ``fresh_postgresql`` (a new database
per test, its URL returned)::

    from tests.db_servers import fresh_mariadb, fresh_postgresql   # in a conftest, or use
    def test_x(fresh_postgresql): ...                               # the root conftest's
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

import psycopg
import pymysql
import pytest

USER, PASSWORD = "tisink", "cdc-pass"
HOST = "127.0.0.1"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
PG_SYSTEM_USER = "postgres"
START_TIMEOUT_S = 60.0
SYSTEM_DATABASES = ("information_schema", "mysql", "performance_schema", "sys")


class ServerStartError(RuntimeError):
    """A database server did not come up; the message holds its log's tail."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def log_tail(path: Path, lines: int = 30) -> str:
    if not path.exists():
        return f"(no log at {path})"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _run(argv: list[str], log: Path, what: str) -> None:
    with log.open("ab") as out:
        done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, timeout=120)
    if done.returncode != 0:
        raise ServerStartError(f"{what} failed ({done.returncode}):\n{log_tail(log)}")


def _wait(
    ready: Callable[[], None], process: subprocess.Popen[bytes], log: Path, what: str
) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    last: Exception | None = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerStartError(f"{what} exited ({process.returncode}):\n{log_tail(log)}")
        try:
            ready()
            return
        except Exception as err:
            last = err
            time.sleep(0.2)
    raise ServerStartError(f"{what} not ready in {START_TIMEOUT_S} s ({last!r}):\n{log_tail(log)}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@contextmanager
def start_mariadb() -> Iterator[str]:
    """A MariaDB server with user ``tisink``; yields its sink URI."""
    mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    install = shutil.which("mariadb-install-db")
    if not Path(mariadbd).exists() or install is None:
        raise ServerStartError("mariadbd is missing: apt-get install -y mariadb-server")
    with tempfile.TemporaryDirectory(prefix="tisink-mariadb-") as scratch:
        root = Path(scratch)
        data, log, sock = root / "data", root / "mariadbd.log", str(root / "mysqld.sock")
        _run(
            [install, "--no-defaults", f"--datadir={data}", "--user=root",
             "--auth-root-authentication-method=normal", "--skip-test-db"],
            log, "mariadb-install-db",
        )  # fmt: skip
        port = free_port()
        process = subprocess.Popen(
            [mariadbd, "--no-defaults", f"--datadir={data}", "--user=root", f"--port={port}",
             f"--bind-address={HOST}", f"--socket={sock}", f"--log-error={log}",
             f"--pid-file={root / 'mariadbd.pid'}", "--skip-name-resolve", "--skip-log-bin",
             "--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=0",
             "--innodb-doublewrite=0", "--character-set-server=utf8mb4",
             "--collation-server=utf8mb4_bin"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            _wait(lambda: pymysql.connect(unix_socket=sock, user="root").close(), process, log,
                  "mariadbd")  # fmt: skip
            conn = pymysql.connect(unix_socket=sock, user="root", autocommit=True)
            with conn.cursor() as cur:
                cur.execute(f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
                cur.execute(f"GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'%'")
            conn.close()
            yield f"mysql://{USER}:{PASSWORD}@{HOST}:{port}/"
        finally:
            _stop(process)


def _as_postgres(argv: list[str]) -> list[str]:
    return ["runuser", "-u", PG_SYSTEM_USER, "--", *argv]


@contextmanager
def start_postgresql() -> Iterator[str]:
    """A PostgreSQL 15 server with superuser ``tisink``; yields the sink URI of its
    ``postgres`` database."""
    if not (PG_BIN / "postgres").exists():
        raise ServerStartError(f"PostgreSQL 15 is missing: no {PG_BIN / 'postgres'}")
    account = pwd.getpwnam(PG_SYSTEM_USER)
    with (
        tempfile.TemporaryDirectory(prefix="tisink-postgresql-") as scratch,
        ExitStack() as stack,
    ):
        root = Path(scratch)
        os.chown(root, account.pw_uid, account.pw_gid)
        data, log, secret = root / "data", root / "postgres.log", root / "pw"
        secret.write_text(PASSWORD)
        os.chown(secret, account.pw_uid, account.pw_gid)
        log.touch()
        os.chown(log, account.pw_uid, account.pw_gid)
        _run(
            _as_postgres([str(PG_BIN / "initdb"), "-D", str(data), "-U", USER,
                          f"--pwfile={secret}", "-A", "scram-sha-256", "-E", "UTF8",
                          "--locale=C.UTF-8"]),
            log, "initdb",
        )  # fmt: skip
        port = free_port()
        output = stack.enter_context(log.open("ab"))
        process = subprocess.Popen(
            _as_postgres([str(PG_BIN / "postgres"), "-D", str(data), "-p", str(port),
                          "-k", str(root), "-c", f"listen_addresses={HOST}", "-c", "fsync=off",
                          "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
            stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"postgresql://{USER}:{PASSWORD}@{HOST}:{port}/postgres"
        try:
            _wait(lambda: psycopg.connect(url, connect_timeout=2).close(), process, log,
                  "postgres")  # fmt: skip
            yield url
        finally:
            _stop(process)


@pytest.fixture(scope="session")
def mariadb_url() -> Iterator[str]:
    try:
        with start_mariadb() as url:
            yield url
    except ServerStartError as err:
        pytest.fail(str(err), pytrace=False)


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    try:
        with start_postgresql() as url:
            yield url
    except ServerStartError as err:
        pytest.fail(str(err), pytrace=False)


def mariadb_connect(url: str) -> pymysql.Connection:  # type: ignore[type-arg]
    """A client connection to the server of a ``mysql://`` URL (autocommit)."""
    hostport = url.split("@", 1)[1].strip("/")
    host, port = hostport.rsplit(":", 1)
    return pymysql.connect(
        host=host, port=int(port), user=USER, password=PASSWORD, autocommit=True,
        charset="utf8mb4",
    )  # fmt: skip


def wipe_mariadb(url: str) -> None:
    """Drop every database but the system ones."""
    conn = mariadb_connect(url)
    with conn.cursor() as cur:
        cur.execute("SHOW DATABASES")
        for (name,) in cur.fetchall():
            if name not in SYSTEM_DATABASES:
                cur.execute(f"DROP DATABASE `{name}`")
    conn.close()


@pytest.fixture
def fresh_mariadb(mariadb_url: str) -> str:
    """The MariaDB URL, the server emptied of every database the tests made."""
    wipe_mariadb(mariadb_url)
    return mariadb_url


_numbers = itertools.count(1)


def new_postgresql_database(url: str) -> str:
    """A new empty database on the server of ``url``; its URL."""
    name = f"test_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def fresh_postgresql(postgresql_url: str) -> Iterator[str]:
    """The URL of a new database for this test, dropped afterwards."""
    url = new_postgresql_database(postgresql_url)
    yield url
    with suppress(psycopg.Error), psycopg.connect(postgresql_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')
