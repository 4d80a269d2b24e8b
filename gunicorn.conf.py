"""gunicorn's settings and hooks for the web service (docker-compose and the image: `--config gunicorn.conf.py`).

A worker loads the app (settings, apps, the admin, every view) once and keeps it for its whole life: about a hundred
thousand objects that the cyclic garbage collector would otherwise walk and count. Python runs a full collection only
when the objects that reached its oldest generation have grown by a quarter since the last one, so with the app
counted there, the cycles that requests leave behind (request and view, model instances and their state) pile up by
the tens of thousands before anything frees them, and the worker's memory grows with them. Frozen, the app is out of
the count: full collections come as often as requests leave garbage, and a worker's memory no longer grows with it.
"""

import gc

# gunicorn's runtime control socket (worker count, reload, shutdown for any process of the same user) is not how the
# service is run: compose starts, stops and scales it. Off, the master runs no thread for it.
control_socket_disable = True


def post_worker_init(worker) -> None:
    """After the worker has loaded the app (config.wsgi also loads the URLconf and every view): collect what loading
    left as garbage, then freeze the rest. Each worker loads the app itself (no --preload), so this is the moment;
    with --preload the master would have to freeze before it forks, or the workers' collections would copy the
    pages they share with it."""
    gc.collect()
    gc.freeze()
    worker.log.info("Worker %s loaded the app: %d objects frozen", worker.pid, gc.get_freeze_count())
