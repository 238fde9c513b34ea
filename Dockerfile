# Jantaku server image: one process serving the hub (websocket + browser client) and the admin API.
# Every Python package comes from the hashed locks in requirements/ (docs/operations.md, "Dependency
# locks"): the same versions on every build, and pip refuses a file whose hash differs.

# Stage 1: build the project's wheel with the locked build backend.
FROM python:3.11-slim AS build
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY requirements/build.txt ./requirements/build.txt
RUN pip install --require-hashes -r requirements/build.txt
COPY pyproject.toml README.md alembic.ini ./
COPY server ./server
COPY client_protocol ./client_protocol
COPY migrations ./migrations
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .

# Stage 2: the runtime: only what serving needs (requirements/serve.txt), then the wheel itself.
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY requirements/serve.txt ./requirements/serve.txt
RUN pip install --require-hashes -r requirements/serve.txt
COPY --from=build /wheels /wheels
RUN pip install --no-deps /wheels/*.whl && rm -rf /wheels \
    && useradd --system --home /data jantaku && mkdir -p /data && chown jantaku /data
USER jantaku
VOLUME ["/data"]
EXPOSE 8765 8766
# DATABASE_URL (set by docker-compose.yml) selects PostgreSQL; without it the embedded SQLite in /data.
CMD ["jantaku", "serve", "--host", "0.0.0.0", "--port", "8765", "--data-dir", "/data"]
