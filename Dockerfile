# Production image: gunicorn serves the web app, the same image runs the Celery worker and the
# one-shot `migrate` service (docker-compose.yml). Migrations never run in the web command.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    TAXONOMIST_VAR_DIR=/app/var STATIC_ROOT=/app/staticfiles

WORKDIR /app
COPY requirements.txt .
RUN pip install --require-hashes -r requirements.txt && useradd --create-home --uid 10001 taxonomist
COPY . .
# collectstatic needs a key to import settings; the real one (SECRET_KEY, required with DEBUG off)
# comes from the environment at run time.
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput -v 0 \
    && mkdir -p /app/var && chown -R taxonomist /app/var
USER taxonomist
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--config", "gunicorn.conf.py", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
