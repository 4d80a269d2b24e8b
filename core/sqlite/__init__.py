"""The embedded database: Django's SQLite backend, with the writers of one process queued on a lock.

settings.DATABASES uses this engine ("core.sqlite") whenever DATABASE_URL names SQLite.
"""
