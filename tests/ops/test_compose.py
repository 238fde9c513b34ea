"""docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so their structure is
checked: the services exist and depend on each other correctly, every command is a valid ``jantaku``
invocation, and the Dockerfile copies files that exist."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from server.app.cli import build_parser

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_compose_has_postgres_migrate_and_server(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"postgres", "migrate", "server"}


def test_migrations_wait_for_a_healthy_postgres_and_the_server_for_the_migrations(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    assert "healthcheck" in services["postgres"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert services["server"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


@pytest.mark.parametrize("service", ["migrate", "server"])
def test_service_commands_are_valid_jantaku_invocations(compose: dict[str, Any], service: str) -> None:
    command = compose["services"][service]["command"]
    assert command[0] == "jantaku"
    args = build_parser().parse_args(command[1:])
    assert getattr(args, "handler", None) is not None


@pytest.mark.parametrize("service", ["migrate", "server"])
def test_both_use_the_same_postgres_database_url(compose: dict[str, Any], service: str) -> None:
    url = compose["services"][service]["environment"]["DATABASE_URL"]
    assert re.fullmatch(r"postgresql\+asyncpg://jantaku:jantaku@postgres:5432/jantaku", url)


def test_server_ports_and_healthcheck(compose: dict[str, Any]) -> None:
    server = compose["services"]["server"]
    assert "8765:8765" in server["ports"]
    assert "/healthz" in " ".join(server["healthcheck"]["test"])
    assert server["stop_signal"] == "SIGTERM"


def test_dockerfile_copies_existing_paths_and_runs_serve() -> None:
    text = (ROOT / "Dockerfile").read_text()
    for line in text.splitlines():
        if line.startswith("COPY "):
            for src in line.split()[1:-1]:
                assert (ROOT / src).exists(), f"Dockerfile copies missing {src}"
    cmd = re.search(r"^CMD \[(.*)\]$", text, re.MULTILINE)
    assert cmd is not None
    argv = [part.strip().strip('"') for part in cmd.group(1).split(",")]
    assert argv[:2] == ["jantaku", "serve"]
    assert build_parser().parse_args(argv[1:]).handler is not None
