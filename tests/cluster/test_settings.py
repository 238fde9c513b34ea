"""Cluster mode's settings: flags, environment (JANTAKU_REDIS_URL, JANTAKU_NODE_ID) and TOML keys
like every other setting; a store other than PostgreSQL is refused with a clear error (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.app.cli import main
from server.app.serve import cluster_settings
from server.hub.metrics import HubMetrics
from server.hub.settings import HubSettings
from tests.ops.test_config import serve_args

PG = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


def test_cluster_settings_come_from_flags_environment_and_file(tmp_path: Path) -> None:
    conf = tmp_path / "jantaku.toml"
    conf.write_text('redis_url = "redis://file:6379/0"\nnode_id = "from-file"\ncluster_prefix = "jx"\n')
    env = {"JANTAKU_REDIS_URL": "redis://env:6379/1", "JANTAKU_NODE_ID": "from-env"}
    args = serve_args(["--config", str(conf), "--node-id", "from-flag"], env)
    cluster = cluster_settings(args, HubSettings(port=9000), PG)
    assert cluster is not None
    assert (cluster.redis_url, cluster.node_id, cluster.key_prefix) == (
        "redis://env:6379/1",
        "from-flag",
        "jx",
    )
    assert cluster.advertise_url == "ws://127.0.0.1:9000"
    assert cluster_settings(serve_args([], {}), HubSettings(), PG) is None  # no Redis: one process
    defaulted = cluster_settings(serve_args(["--redis-url", "redis://r:6379/0"], {}), HubSettings(), PG)
    assert defaulted is not None and "-" in defaulted.node_id  # HOSTNAME-PID
    assert defaulted.queue_local_wait_s == 1.0


def test_the_quick_match_local_wait_comes_from_flag_environment_and_file(tmp_path: Path) -> None:
    conf = tmp_path / "jantaku.toml"
    conf.write_text('redis_url = "redis://file:6379/0"\nqueue_local_wait = 2.5\n')
    from_file = cluster_settings(serve_args(["--config", str(conf)], {}), HubSettings(), PG)
    assert from_file is not None and from_file.queue_local_wait_s == 2.5
    env = {"JANTAKU_REDIS_URL": "redis://env:6379/1", "JANTAKU_QUEUE_LOCAL_WAIT": "0"}
    from_env = cluster_settings(serve_args([], env), HubSettings(), PG)
    assert from_env is not None and from_env.queue_local_wait_s == 0.0  # 0: hand over at once
    flagged = serve_args(["--config", str(conf), "--queue-local-wait", "0.25"], env)
    assert (cluster_settings(flagged, HubSettings(), PG) or from_env).queue_local_wait_s == 0.25
    with pytest.raises(ValueError, match="queue_local_wait_s"):
        cluster_settings(serve_args(["--queue-local-wait", "-1"], env), HubSettings(), PG)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--database-url", "memory:"], "memory: is the store of one process"),
        ([], "SQLite is the store of one process"),
        (["--database-url", PG, "--node-id", "bad id"], "node_id must be"),
    ],
)
def test_cluster_mode_refuses_what_it_cannot_run_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    code = main(["serve", "--redis-url", "redis://127.0.0.1:6379/0", "--data-dir", str(tmp_path), *argv])
    assert code == 2
    err = capsys.readouterr().err
    assert expected in err
    if "store of one process" in err:
        assert "needs PostgreSQL" in err


def test_a_cluster_node_labels_every_metric_with_its_node() -> None:
    metrics = HubMetrics()
    metrics.watch(tables=lambda: 3, connections=lambda: 5)
    metrics.actions.labels("player").inc()
    plain, _ = metrics.expose()
    assert b"node=" not in plain
    metrics.label_node("node-a")
    body, _ = metrics.expose()
    samples = [line for line in body.decode().splitlines() if line and not line.startswith("#")]
    assert samples and all('node="node-a"' in line for line in samples)
    assert 'jantaku_tables{node="node-a"} 3.0' in samples
    assert 'jantaku_actions_total{node="node-a",source="player"} 1.0' in samples
