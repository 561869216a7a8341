"""Session fixtures ``mariadb_url`` and ``postgresql_url``: real database servers for the tests.

Each starts one server for the whole session, as ``broker_fixture`` starts the broker: on a free
loopback port, its data directory in a temporary folder, stopped (and the folder removed) at the
end. The programs are found, not assumed: MariaDB's ``mariadbd`` and ``mariadb-install-db`` on
PATH (or the sbin folders, where Debian's ``mariadb-server`` puts the daemon); PostgreSQL's
``postgres`` and ``initdb`` on PATH, else ``pg_config --bindir``, else the newest
``/usr/lib/postgresql/<version>/bin`` (Debian's layout, which keeps them off PATH). As root,
MariaDB runs with ``--user=root`` and PostgreSQL as the ``postgres`` system user, since it refuses
root. Both get a user ``tisink`` with a password, so the sinks connect as a real client would.

A server that is not installed skips its tests with one line naming what is missing and how to
get it, unless ``TISINK_REQUIRE_SERVERS=1`` (``.ci/run`` sets it): then the test fails, so CI
never passes with database tests skipped. A server that is installed but cannot start fails the
test with its log's tail.

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
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from pathlib import Path

import psycopg
import pymysql
import pytest

USER, PASSWORD = "tisink", "cdc-pass"
HOST = "127.0.0.1"
PG_SYSTEM_USER = "postgres"
START_TIMEOUT_S = 60.0
SYSTEM_DATABASES = ("information_schema", "mysql", "performance_schema", "sys")
REQUIRE_ENV = "TISINK_REQUIRE_SERVERS"
SBIN = ("/usr/local/sbin", "/usr/sbin", "/sbin")
DEBIAN_PG_ROOT = Path("/usr/lib/postgresql")


class ServerStartError(RuntimeError):
    """A database server did not come up; the message holds its log's tail."""


class ServerMissing(RuntimeError):
    """A database server is not installed; the message says what to install."""


def _which(name: str) -> str | None:
    """``name`` on PATH or in the sbin folders, which a non-root PATH often lacks."""
    path = os.pathsep.join([os.environ.get("PATH", ""), *SBIN])
    return shutil.which(name, path=path)


def mariadb_programs() -> tuple[str, str]:
    """(mariadbd, mariadb-install-db), wherever the system put them."""
    daemon, install = _which("mariadbd"), _which("mariadb-install-db")
    if daemon is None or install is None:
        raise ServerMissing(
            "MariaDB server not installed (no mariadbd / mariadb-install-db): "
            "apt-get install mariadb-server"
        )
    return daemon, install


def postgresql_bindir() -> Path:
    """The folder holding ``postgres`` and ``initdb``: PATH, pg_config, then Debian's layout."""
    postgres, initdb = _which("postgres"), _which("initdb")
    if postgres and initdb:
        return Path(postgres).resolve().parent
    pg_config = _which("pg_config")
    if pg_config:
        with suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=10
            )
            folder = Path(out.stdout.strip())
            if (folder / "postgres").exists() and (folder / "initdb").exists():
                return folder
    versions = sorted(
        (p for p in DEBIAN_PG_ROOT.glob("*/bin") if (p / "postgres").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else -1,
    )
    if versions:
        return versions[-1]
    raise ServerMissing(
        "PostgreSQL server not installed (no postgres / initdb): apt-get install postgresql"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def log_tail(path: Path, lines: int = 30) -> str:
    """The log's error lines, then its last ``lines``: a failed bootstrap's reason sits above
    the advice its tool prints last."""
    if not path.exists():
        return f"(no log at {path})"
    text = path.read_text(errors="replace").splitlines()
    errors = [line for line in text[:-lines] if "ERROR" in line or "[Error]" in line]
    return "\n".join([*errors[-10:], *text[-lines:]])


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


def _root_user() -> list[str]:
    """MariaDB runs as root only when told to; another user runs it as itself."""
    return ["--user=root"] if os.geteuid() == 0 else []


@contextmanager
def start_mariadb() -> Iterator[str]:
    """A MariaDB server with user ``tisink``; yields its sink URI."""
    mariadbd, install = mariadb_programs()
    with tempfile.TemporaryDirectory(prefix="tisink-mariadb-") as scratch:
        root = Path(scratch)
        data, log, sock = root / "data", root / "mariadbd.log", str(root / "mysqld.sock")
        # a temporary folder of its own: two servers bootstrapping at once in one /tmp clash
        # on their temporary tables ("Unknown table 'mysql.tmp_user_sys'")
        tmp = root / "tmp"
        tmp.mkdir()
        _run(
            [install, "--no-defaults", f"--datadir={data}", *_root_user(),
             "--auth-root-authentication-method=normal", "--skip-test-db", f"--tmpdir={tmp}"],
            log, "mariadb-install-db",
        )  # fmt: skip
        port = free_port()
        process = subprocess.Popen(
            [mariadbd, "--no-defaults", f"--datadir={data}", *_root_user(), f"--port={port}",
             f"--tmpdir={tmp}",
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
    """PostgreSQL refuses to run as root: as root, run it as the ``postgres`` system user."""
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", PG_SYSTEM_USER, "--", *argv]


@contextmanager
def start_postgresql() -> Iterator[str]:
    """A PostgreSQL server with superuser ``tisink``; yields the sink URI of its
    ``postgres`` database."""
    pg_bin = postgresql_bindir()
    with (
        tempfile.TemporaryDirectory(prefix="tisink-postgresql-") as scratch,
        ExitStack() as stack,
    ):
        root = Path(scratch)
        data, log, secret = root / "data", root / "postgres.log", root / "pw"
        secret.write_text(PASSWORD)
        log.touch()
        if os.geteuid() == 0:
            account = pwd.getpwnam(PG_SYSTEM_USER)
            for path in (root, secret, log):
                os.chown(path, account.pw_uid, account.pw_gid)
        _run(
            _as_postgres([str(pg_bin / "initdb"), "-D", str(data), "-U", USER,
                          f"--pwfile={secret}", "-A", "scram-sha-256", "-E", "UTF8",
                          "--locale=C.UTF-8"]),
            log, "initdb",
        )  # fmt: skip
        port = free_port()
        output = stack.enter_context(log.open("ab"))
        process = subprocess.Popen(
            _as_postgres([str(pg_bin / "postgres"), "-D", str(data), "-p", str(port),
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


def _server(start: Callable[[], AbstractContextManager[str]]) -> Iterator[str]:
    """The URL of a started server; a missing one skips (fails under TISINK_REQUIRE_SERVERS)."""
    try:
        with start() as url:
            yield url
    except ServerMissing as err:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{err} ({REQUIRE_ENV}=1)", pytrace=False)
        pytest.skip(str(err))
    except ServerStartError as err:
        pytest.fail(str(err), pytrace=False)


@pytest.fixture(scope="session")
def mariadb_url() -> Iterator[str]:
    yield from _server(start_mariadb)


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    yield from _server(start_postgresql)


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
