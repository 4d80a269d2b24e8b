"""Django's SQLite backend whose write transactions queue on a lock shared by the process's threads.

Each transaction begins with BEGIN IMMEDIATE (settings), so SQLite grants its one write lock at the start
and a second writer waits. SQLite's own wait is a busy handler that sleeps and retries with growing sleeps
(up to 100 ms each): a writer can sleep on long after the lock was freed, and one unlucky writer can lose
the race again and again, for seconds, while a small team autosaves. Within one process (`make run` serves
every rater from threads of one process) the writers queue here instead: the next one is woken the moment
the transaction before it commits or rolls back. Writers of other processes still meet SQLite's own wait.

The wait is bounded by the connection's `timeout` option, as SQLite's is, and ends in the same
"database is locked" error.
"""

import threading

from django.db import OperationalError
from django.db.backends.sqlite3 import base

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def writer_lock(database_name: str) -> threading.Lock:
    """The lock the process's write transactions on one database file queue on."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(str(database_name), threading.Lock())


class DatabaseWrapper(base.DatabaseWrapper):
    _holds_writer_lock = False

    def _start_transaction_under_autocommit(self):
        lock = writer_lock(self.settings_dict["NAME"])
        if not lock.acquire(timeout=self.settings_dict["OPTIONS"].get("timeout", 5)):
            raise OperationalError("database is locked")
        self._holds_writer_lock = True
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_writer_lock()
            raise

    def _commit(self):
        try:
            super()._commit()
        finally:
            self._release_writer_lock()

    def _rollback(self):
        try:
            super()._rollback()
        finally:
            self._release_writer_lock()

    def _close(self):
        # Called whenever the SQLite connection really closes, inside an atomic block too (Django then skips
        # the rollback: SQLite rolls back by itself). An in-memory database is never closed, and keeps its lock.
        try:
            super()._close()
        finally:
            self._release_writer_lock()

    def _release_writer_lock(self):
        if self._holds_writer_lock:
            self._holds_writer_lock = False
            writer_lock(self.settings_dict["NAME"]).release()
