"""docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so their structure is
checked: the services exist and depend on each other correctly, every command is a valid ``jantaku``
invocation, secrets come from the env file (``.env``, ignored by git; ``.env.example`` committed),
the admin port is published on localhost only, the healthcheck asks ``/readyz``, and the Dockerfile
and the Makefile install from the hashed dependency locks in ``requirements/``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.version import Version

from server.app.cli import build_parser

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_compose_has_postgres_migrate_and_server(compose: dict[str, Any]) -> None:
    default = {name for name, service in compose["services"].items() if "profiles" not in service}
    assert default == {"postgres", "migrate", "server"}


def test_the_cluster_profile_runs_redis_nodes_and_a_round_robin_balancer(compose: dict[str, Any]) -> None:
    services = compose["services"]
    cluster = {name for name, service in services.items() if service.get("profiles") == ["cluster"]}
    assert cluster == {"redis", "node", "lb"}
    assert "--save" in services["redis"]["command"]  # and nothing on disk
    node = services["node"]
    assert node["deploy"]["replicas"] >= 2
    assert node["environment"]["DATABASE_URL"] == compose["x-database-url"]
    assert node["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert node["depends_on"]["redis"]["condition"] == "service_healthy"
    line, _, advertised = node["command"][-1].partition(" --advertise-url ")
    assert line.split()[:3] == ["exec", "jantaku", "serve"] and advertised.startswith('"ws://$$(hostname')
    args = build_parser().parse_args(line.split()[2:])
    assert args.redis_url == "redis://redis:6379/0" and getattr(args, "handler", None) is not None
    haproxy = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert "balance roundrobin" in haproxy and "mode tcp" in haproxy and "GET /readyz" in haproxy
    assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in services["lb"]["volumes"]


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
def test_both_use_the_same_postgres_database_url_without_a_written_password(
    compose: dict[str, Any], service: str
) -> None:
    url = compose["services"][service]["environment"]["DATABASE_URL"]
    assert url == compose["x-database-url"]
    assert re.fullmatch(
        r"postgresql\+asyncpg://\$\{POSTGRES_USER:-jantaku\}:\$\{POSTGRES_PASSWORD:\?[^}]+\}"
        r"@postgres:5432/\$\{POSTGRES_DB:-jantaku\}",
        url,
    ), url


def test_no_secret_is_written_in_the_compose_file(compose: dict[str, Any]) -> None:
    """Every password is a variable that must come from the env file (``:?`` stops compose without it)."""
    postgres = compose["services"]["postgres"]["environment"]
    assert postgres["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    for service in compose["services"].values():
        for key, value in service.get("environment", {}).items():
            if re.search(r"PASSWORD|SECRET|TOKEN", key):
                assert re.fullmatch(r"\$\{\w+:\?[^}]+\}", value), (key, value)
    assert ":jantaku@" not in (ROOT / "docker-compose.yml").read_text()


def test_env_example_is_committed_and_the_real_env_file_ignored(compose: dict[str, Any]) -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    required = set(re.findall(r"\$\{(\w+):\?", text))
    optional = set(re.findall(r"\$\{(\w+):-", text))
    example = (ROOT / ".env.example").read_text()
    keys = set(re.findall(r"^#?(\w+)=", example, flags=re.MULTILINE))
    assert required == {"POSTGRES_PASSWORD"}
    assert required | optional <= keys, (required | optional) - keys
    assert re.search(r"^POSTGRES_PASSWORD=$", example, flags=re.MULTILINE), "the example holds no password"
    assert compose["services"]["server"]["env_file"] == ".env"
    gitignore = (ROOT / ".gitignore").read_text().split()
    assert ".env" in gitignore and ".env.example" not in gitignore


def test_server_ports_and_healthcheck(compose: dict[str, Any]) -> None:
    server = compose["services"]["server"]
    assert "${PLAYERS_BIND:-0.0.0.0}:8765:8765" in server["ports"]
    assert "${ADMIN_BIND:-127.0.0.1}:8766:8766" in server["ports"], "the admin port is for this host only"
    assert not any(str(p).startswith(("8766", "0.0.0.0:8766")) for p in server["ports"])
    check = " ".join(server["healthcheck"]["test"])
    assert "/readyz" in check and "/healthz" not in check
    assert server["stop_signal"] == "SIGTERM"


def test_dockerfile_copies_existing_paths_and_runs_serve() -> None:
    text = (ROOT / "Dockerfile").read_text()
    for line in text.splitlines():
        if line.startswith("COPY ") and not line.startswith("COPY --from="):
            for src in line.split()[1:-1]:
                assert (ROOT / src).exists(), f"Dockerfile copies missing {src}"
    cmd = re.search(r"^CMD \[(.*)\]$", text, re.MULTILINE)
    assert cmd is not None
    argv = [part.strip().strip('"') for part in cmd.group(1).split(",")]
    assert argv[:2] == ["jantaku", "serve"]
    assert build_parser().parse_args(argv[1:]).handler is not None


def _pins(name: str) -> dict[str, tuple[Version, int]]:
    """``requirements/NAME``: package -> (pinned version, number of hashes)."""
    pins: dict[str, tuple[Version, int]] = {}
    text = (ROOT / "requirements" / name).read_text()
    for block in re.split(r"\n(?=[a-z0-9])", text):
        first = block.split()[0] if block.strip() else ""
        match = re.fullmatch(r"([a-z0-9._-]+)==([^\s;\\]+)", first)
        if match:
            pins[match.group(1)] = (Version(match.group(2)), block.count("--hash=sha256:"))
    return pins


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.parametrize(("lock", "extras"), [("serve.txt", ()), ("dev.txt", ("dev",))])
def test_locks_pin_every_dependency_with_hashes(lock: str, extras: tuple[str, ...]) -> None:
    """The locks are complete and fresh: every dependency of pyproject.toml (and of the extras) is
    pinned to a version it allows, and every pin carries hashes (pip --require-hashes)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        wanted += [Requirement(r) for r in project["optional-dependencies"][extra]]
    pins = {_norm(k): v for k, v in _pins(lock).items()}
    assert pins and all(hashes > 0 for _, hashes in pins.values())
    for req in wanted:
        assert _norm(req.name) in pins, f"{req.name} is not in requirements/{lock}: run make lock"
        version, _ = pins[_norm(req.name)]
        assert req.specifier.contains(version, prereleases=True), (req, version)
    if lock == "serve.txt":
        dev_tools = {_norm(Requirement(r).name) for r in project["optional-dependencies"]["dev"]}
        assert not dev_tools & set(pins), "serving installs no test or lint tool"


def test_serve_and_dev_locks_agree() -> None:
    serve, dev = _pins("serve.txt"), _pins("dev.txt")
    assert set(serve) <= set(dev)
    assert all(serve[name][0] == dev[name][0] for name in serve)


def test_dockerfile_installs_from_the_locks_only() -> None:
    text = (ROOT / "Dockerfile").read_text()
    installs = [line.strip() for line in text.splitlines() if "pip install" in line or "pip wheel" in line]
    assert installs
    for line in installs:
        assert "--require-hashes -r requirements/" in line or "--no-deps" in line, line
    assert "pip install --require-hashes -r requirements/serve.txt" in text
    assert "requirements/dev.txt" not in text


def test_makefile_serve_installs_only_the_serving_lock() -> None:
    text = (ROOT / "Makefile").read_text()
    rules = dict(re.findall(r"^([$()A-Z_a-z-]+):[^=\n]*\n((?:\t.*\n?)*)", text, flags=re.MULTILINE))
    assert re.search(r"^serve: \$\(SERVE_STAMP\)$", text, flags=re.MULTILINE)
    assert re.search(r"^test: \$\(DEV_STAMP\)$", text, flags=re.MULTILINE)
    assert "-r requirements/serve.txt" in rules["$(SERVE_STAMP)"]
    assert "requirements/dev.txt" not in rules["$(SERVE_STAMP)"]
    assert "-r requirements/dev.txt" in rules["$(DEV_STAMP)"]
    for recipe in (rules["$(SERVE_STAMP)"], rules["$(DEV_STAMP)"]):
        assert "--require-hashes" in recipe
