"""Which real server errors the dialects call retriable: a lock wait timeout and a deadlock on
MariaDB, a lock timeout, a deadlock and a serialization failure on PostgreSQL, each provoked
with two client connections; a constraint error is not retriable. (SQLite's busy database is
retried end to end in ``test_sqlite.py``.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import psycopg
import pymysql
import pytest

from tests.db_servers import mariadb_connect
from tisink.eventsink.sql.mysql import MySQLDialect
from tisink.eventsink.sql.postgresql import PostgreSQLDialect


def deadlock(one: Any, two: Any, lock: Callable[[Any, int], None]) -> Exception:
    """Two transactions lock rows 1 and 2 in opposite orders; the error the loser gets."""
    lock(one, 1)
    lock(two, 2)
    errors: list[Exception] = []

    def cross(conn: Any, row: int) -> None:
        try:
            lock(conn, row)
        except Exception as err:
            errors.append(err)
            conn.rollback()

    threads = [threading.Thread(target=cross, args=(one, 2)),
               threading.Thread(target=cross, args=(two, 1))]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    one.rollback()
    two.rollback()
    assert errors, "no deadlock"
    return errors[0]


def test_mariadb_lock_wait_timeout_and_deadlock_are_retriable(fresh_mariadb):
    setup = mariadb_connect(fresh_mariadb)
    with setup.cursor() as cur:
        cur.execute("CREATE DATABASE d")
        cur.execute("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO d.t VALUES (1, 0), (2, 0)")
    one, two = mariadb_connect(fresh_mariadb), mariadb_connect(fresh_mariadb)
    for conn in (one, two):
        conn.autocommit(False)
        conn.cursor().execute("SET SESSION innodb_lock_wait_timeout = 1")
    dialect = MySQLDialect("", 0, "", "")

    def lock(conn: Any, row: int) -> None:
        conn.cursor().execute("UPDATE d.t SET v = v + 1 WHERE id = %s", (row,))

    lock(one, 1)
    with pytest.raises(pymysql.err.OperationalError) as waited:
        lock(two, 1)
    assert waited.value.args[0] == 1205 and dialect.is_retriable(waited.value)
    one.rollback()
    two.rollback()
    with two.cursor() as cur:
        cur.execute("SET SESSION innodb_lock_wait_timeout = 20")
    with one.cursor() as cur:
        cur.execute("SET SESSION innodb_lock_wait_timeout = 20")
    err = deadlock(one, two, lock)
    assert getattr(err, "args", (0,))[0] == 1213 and dialect.is_retriable(err)
    with pytest.raises(pymysql.err.IntegrityError) as duplicate:
        setup.cursor().execute("INSERT INTO d.t VALUES (1, 0)")
    assert not dialect.is_retriable(duplicate.value)
    for conn in (setup, one, two):
        conn.close()


def test_postgresql_lock_timeout_deadlock_and_serialization_failure_are_retriable(
    fresh_postgresql,
):
    with psycopg.connect(fresh_postgresql, autocommit=True) as setup:
        setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
        setup.execute("INSERT INTO t VALUES (1, 0), (2, 0)")
    one, two = psycopg.connect(fresh_postgresql), psycopg.connect(fresh_postgresql)
    dialect = PostgreSQLDialect("", 0, "", "", "")

    def lock(conn: Any, row: int) -> None:
        conn.execute("UPDATE t SET v = v + 1 WHERE id = %s", (row,))

    lock(one, 1)
    two.execute("SET lock_timeout = '200ms'")
    with pytest.raises(psycopg.errors.LockNotAvailable) as waited:
        lock(two, 1)
    assert dialect.is_retriable(waited.value)
    one.rollback()
    two.rollback()
    assert dialect.is_retriable(deadlock(one, two, lock))
    for conn in (one, two):
        conn.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        conn.execute("SELECT sum(v) FROM t").fetchall()
    lock(one, 1)
    one.commit()
    with pytest.raises(psycopg.errors.SerializationFailure) as conflict:
        lock(two, 2)
        two.commit()
    assert dialect.is_retriable(conflict.value)
    two.rollback()
    with pytest.raises(psycopg.errors.UniqueViolation) as duplicate:
        one.execute("INSERT INTO t VALUES (1, 0)")
    assert not dialect.is_retriable(duplicate.value)
    for conn in (one, two):
        conn.close()
