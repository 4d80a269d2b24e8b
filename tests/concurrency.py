"""Run database work in threads that start at the same moment, to test what a race leaves behind.

Tests that use these need `django_db(transaction=True)`: each thread opens its own connection and
must see what the test committed.
"""

import threading
from collections.abc import Callable

from django.db import connections


def run_together(*calls: Callable[[], object], timeout: float = 30) -> list:
    """Call each callable in its own thread, all released at once; return what each returned or raised."""
    barrier = threading.Barrier(len(calls))
    outcomes: list = [None] * len(calls)

    def worker(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            outcomes[index] = call()
        except Exception as exc:  # the outcome is what the test asserts on
            outcomes[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    return outcomes


def run_in_thread(call: Callable[[], object], timeout: float = 30) -> object:
    """Call it in another thread (its own database connection); return what it returned or raised."""
    return run_together(call, timeout=timeout)[0]


def raised(outcomes: list) -> list[Exception]:
    """The exceptions among run_together's outcomes, in call order."""
    return [outcome for outcome in outcomes if isinstance(outcome, Exception)]
