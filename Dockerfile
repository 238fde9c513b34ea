# Jantaku server image: one process serving the hub (websocket + browser client) and the admin API.
# Every Python package comes from the hashed locks in requirements/ (docs/operations.md, "Dependency
# locks"): the same versions on every build, and pip refuses a file whose hash differs.

# Stage 1: build the project's wheel with the locked build backend. A C compiler is installed here
# (only here) so that the wheel carries the mypyc-compiled engine (hatch_build.py); the runtime
# stage needs nothing extra to run it. `docker build --build-arg JANTAKU_PURE=1` builds pure Python.
FROM python:3.11-slim AS build
ARG JANTAKU_PURE=
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 JANTAKU_PURE=${JANTAKU_PURE}
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY requirements/build.txt ./requirements/build.txt
RUN pip install --require-hashes -r requirements/build.txt
COPY pyproject.toml README.md alembic.ini hatch_build.py ./
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
