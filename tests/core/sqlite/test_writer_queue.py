"""The embedded engine queues the writers of one process: the next one starts the moment the lock is free.

Each test opens its own connections to a scratch database file, so it runs the same on either CI database.
"""

import threading
import time

import pytest
from django.db import OperationalError, connections, transaction

from core.sqlite.base import DatabaseWrapper


def _connection(path, *, timeout: float = 20) -> DatabaseWrapper:
    settings = {
        "NAME": str(path),
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": timeout, "init_command": "PRAGMA journal_mode=WAL;"},
        "TIME_ZONE": None,
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
        "AUTOCOMMIT": True,
        "ATOMIC_REQUESTS": False,
        "USER": "",
        "PASSWORD": "",
        "HOST": "",
        "PORT": "",
        "TEST": {},
    }
    connection = DatabaseWrapper(settings, alias=f"scratch-{threading.get_ident()}-{time.monotonic_ns()}")
    connection.ensure_connection()
    return connection


@pytest.fixture
def database(tmp_path, django_db_blocker):
    """A scratch database file of its own (not the test database, which pytest-django guards)."""
    path = tmp_path / "queue.sqlite3"
    with django_db_blocker.unblock():
        setup = _connection(path)
        with setup.cursor() as cursor:
            cursor.execute("CREATE TABLE counter (n integer)")
            cursor.execute("INSERT INTO counter VALUES (0)")
        setup.close()
        yield path


def _increment(connection: DatabaseWrapper, *, hold: float = 0.0) -> None:
    connection.set_autocommit(True)
    connection._start_transaction_under_autocommit()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT n FROM counter")
            (n,) = cursor.fetchone()
            time.sleep(hold)
            cursor.execute("UPDATE counter SET n = %s", [n + 1])
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


def _count(path) -> int:
    connection = _connection(path)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT n FROM counter")
            return cursor.fetchone()[0]
    finally:
        connection.close()


def _late_start(database) -> float:
    """How long after the first writer's commit a waiting second writer had its transaction."""
    first = _connection(database)
    first._start_transaction_under_autocommit()
    started = threading.Event()
    done_at: list[float] = []

    def write():
        second = _connection(database)  # a connection belongs to its thread
        started.set()
        _increment(second)
        done_at.append(time.monotonic())
        second.close()

    thread = threading.Thread(target=write)
    thread.start()
    started.wait()
    time.sleep(0.35)  # the second writer is waiting now
    assert not done_at
    with first.cursor() as cursor:
        cursor.execute("UPDATE counter SET n = n + 10")
    committed_at = time.monotonic()
    first.commit()
    thread.join(timeout=10)
    first.close()
    assert done_at
    return done_at[0] - committed_at


def test_a_waiting_writer_starts_as_soon_as_the_first_commits(database):
    # SQLite's own busy handler sleeps in steps of up to 100 ms: with it the writer started some 80 ms late.
    lateness = [_late_start(database) for _ in range(5)]
    assert sorted(lateness)[2] < 0.03, lateness  # the median
    assert _count(database) == 5 * 11


def test_many_threads_read_then_write_without_a_lost_update(database):
    errors: list[BaseException] = []

    def work():
        connection = _connection(database)
        try:
            for _ in range(20):
                _increment(connection)
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert _count(database) == 100


def test_the_wait_is_bounded_by_the_timeout_and_ends_in_database_is_locked(database):
    holder, waiter = _connection(database), _connection(database, timeout=0.2)
    holder._start_transaction_under_autocommit()
    try:
        started = time.monotonic()
        with pytest.raises(OperationalError, match="database is locked"):
            waiter._start_transaction_under_autocommit()
        assert 0.15 < time.monotonic() - started < 5
    finally:
        holder.rollback()
    _increment(waiter)  # the lock is free again after the rollback, and the waiter holds nothing
    assert _count(database) == 1
    holder.close(), waiter.close()


def test_closing_a_connection_in_a_transaction_frees_the_queue(database):
    broken, next_writer = _connection(database), _connection(database, timeout=2)
    broken._start_transaction_under_autocommit()
    broken.close()
    _increment(next_writer)
    assert _count(database) == 1
    next_writer.close()


def test_a_connection_closed_inside_atomic_frees_the_queue(database):
    broken, next_writer = _connection(database), _connection(database, timeout=2)
    connections[broken.alias] = broken  # so that transaction.atomic(using=...) finds it
    try:
        with transaction.atomic(using=broken.alias):
            with broken.cursor() as cursor:
                cursor.execute("UPDATE counter SET n = 100")
            broken.close()  # Django leaves the rollback to SQLite and never calls it
        assert broken.connection is None
    finally:
        del connections[broken.alias]
    _increment(next_writer)
    assert _count(database) == 1  # the closed transaction's update was rolled back
    next_writer.close()
