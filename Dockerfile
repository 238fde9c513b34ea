# Jantaku server image: one process serving the hub (websocket + browser client) and the admin API.
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY server ./server
COPY client_protocol ./client_protocol
COPY migrations ./migrations
RUN pip install . && useradd --system --home /data jantaku && mkdir -p /data && chown jantaku /data
USER jantaku
VOLUME ["/data"]
EXPOSE 8765 8766
# DATABASE_URL (set by docker-compose.yml) selects PostgreSQL; without it the embedded SQLite in /data.
CMD ["jantaku", "serve", "--host", "0.0.0.0", "--port", "8765", "--data-dir", "/data"]
