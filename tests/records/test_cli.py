"""``jantaku verify`` and ``jantaku simulate``: exit codes, output lines, --json, bad input."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import pytest

from server.app.cli import main
from server.records.progress import Progress
from server.records.verify import find_records
from tests.records.corpus import MJLOG_DIR, needs_corpus


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two tenhou6 and two mjai records of seeded bot matches."""
    out = tmp_path_factory.mktemp("records")
    assert main(["simulate", "--games", "2", "--seed", "cli", "--out", str(out / "t6")]) == 0
    assert (
        main(["simulate", "--games", "2", "--seed", "cli", "--out", str(out / "mjai"), "--format", "mjai"])
        == 0
    )
    return out


def test_simulate_writes_one_file_per_match_deterministically(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["simulate", "--players", "greedy,random,greedy,random", "--games", "2", "--seed", "s/1"]
    code, out, err = run(capsys, *args, "--out", str(tmp_path / "a"))
    assert code == 0 and out == f"wrote 2 tenhou6 records to {tmp_path / 'a'}\n" and err == ""
    run(capsys, *args, "--out", str(tmp_path / "b"))
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == ["s_1-0000.json", "s_1-0001.json"]
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a" / names[0]).read_bytes() != (tmp_path / "a" / names[1]).read_bytes()
    doc = json.loads((tmp_path / "a" / names[0]).read_text())
    assert doc["name"] == ["greedy 0", "random 1", "greedy 2", "random 3"]


def test_simulate_rejects_bad_players(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "simulate", "--players", "greedy,nobody", "--out", str(tmp_path))
    assert code == 2 and "--players needs 4 of" in err
    sanma = ("simulate", "--ruleset", "tenhou-sanma", "--out", str(tmp_path))
    code, _, err = run(capsys, *sanma, "--players", "greedy,greedy,greedy,greedy")
    assert code == 2 and "--players needs 3 of" in err
    code, _, err = run(capsys, "simulate", "--games", "0", "--out", str(tmp_path))
    assert code == 2 and "--games" in err


def test_simulate_three_players(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Three greedy bots by default; they set norths aside and the records verify."""
    code, out, err = run(
        capsys, "simulate", "--ruleset", "tenhou-sanma", "--seed", "s3", "--out", str(tmp_path)
    )
    assert code == 0 and err == ""
    doc = json.loads((tmp_path / "s3-0000.json").read_text())
    assert doc["name"] == ["greedy 0", "greedy 1", "greedy 2", ""]
    assert doc["rule"]["disp"].startswith("三")
    assert any("f44" in hand[4 + 3 * s + 2] for hand in doc["log"] for s in range(3))
    code, out, _ = run(capsys, "verify", str(tmp_path))
    assert code == 0 and "0 mismatches" in out


def test_verify_clean_records(capsys: pytest.CaptureFixture[str], records: Path) -> None:
    code, out, err = run(capsys, "verify", str(records))
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0] == "rules: tenhou (the record's) 4 files"
    assert len(lines) == 2
    assert lines[1].endswith(" hands verified, 0 mismatches, 0 incomplete")


def test_verify_json_report(capsys: pytest.CaptureFixture[str], records: Path) -> None:
    code, out, _ = run(capsys, "verify", "--json", str(records / "mjai"), str(records / "t6"))
    report = json.loads(out)
    assert code == 0
    assert report["summary"]["files"] == 4 and report["summary"]["mismatches"] == 0
    assert report["summary"]["rules"] == [{"ruleset": "tenhou", "rules_from": "record", "files": 4}]
    assert {(f["ruleset"], f["rules_from"]) for f in report["files"]} == {("tenhou", "record")}
    assert report["summary"]["verified"] == sum(len(f["hands"]) for f in report["files"])
    first = report["files"][0]
    assert first["status"] == "read" and first["hands"][0]["outcome"] == "verified"
    assert set(first["hands"][0]) == {"index", "hand", "outcome", "reason", "mismatches"}


def test_verify_reports_a_mismatch_with_file_hand_and_step(
    capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path
) -> None:
    source = sorted((records / "t6").iterdir())[0]
    doc = json.loads(source.read_text())
    doc["log"][0][16][1] = [d * 2 for d in doc["log"][0][16][1]]  # double the first hand's deltas
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc, ensure_ascii=False))
    code, out, _ = run(capsys, "verify", str(bad))
    assert code == 1
    first, *_, summary = out.splitlines()
    assert first == f"{bad}: rules tenhou (the record's)"
    first = out.splitlines()[1]
    assert first.startswith(f"{bad}: E1-0 step ")
    assert "deltas" in first or "ends the hand" in first or "engine" in first
    assert ", 1 mismatches," in summary
    code, out, _ = run(capsys, "verify", "--json", str(bad))
    (hand,) = [h for h in json.loads(out)["files"][0]["hands"] if h["outcome"] == "mismatch"]
    assert hand["hand"] == "E1-0" and hand["mismatches"][0]["step"] >= 0


def test_verify_malformed_and_truncated_files_without_a_traceback(
    capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path
) -> None:
    (tmp_path / "junk.json").write_text("this is not a record")
    good = sorted((records / "t6").iterdir())[0].read_text()
    (tmp_path / "cut.json").write_text(good[: len(good) // 2])
    (tmp_path / "cut.xml.gz").write_bytes(gzip.compress(b"<mjloggm ver='2.3'>" * 50)[:40])
    (tmp_path / "ignored.txt").write_text("not looked at")
    code, out, err = run(capsys, "verify", str(tmp_path))
    assert code == 1 and "Traceback" not in out + err
    # an unreadable file is a failure, each on its line; records that stop early are only counted
    junk, *rest = out.splitlines()
    assert junk.startswith(f"{tmp_path / 'junk.json'}: unreadable: not a game record")
    assert rest == [
        "rules: none (no file was replayed)",
        "2 incomplete: records or hands that stop before their end are reported, not failed"
        " (--verbose lists them)",
        "0 hands verified, 0 mismatches, 2 incomplete, 1 unreadable files",
    ]
    code, out, err = run(capsys, "verify", "--verbose", str(tmp_path))
    lines = out.splitlines()
    assert any(line.startswith(f"{tmp_path / 'cut.json'}: incomplete: ") for line in lines)
    assert any(line.startswith(f"{tmp_path / 'cut.xml.gz'}: incomplete: ") for line in lines)
    assert lines[-1] == "0 hands verified, 0 mismatches, 2 incomplete, 1 unreadable files"


def test_verify_reads_gzip_of_any_format(
    capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path
) -> None:
    for path in sorted((records / "mjai").iterdir())[:1] + sorted((records / "t6").iterdir())[:1]:
        (tmp_path / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes()))
    code, out, _ = run(capsys, "verify", str(tmp_path))
    assert code == 0 and out.splitlines()[-1].endswith("0 mismatches, 0 incomplete")


def test_verify_usage_errors(capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path) -> None:
    code, _, err = run(capsys, "verify", str(tmp_path / "missing"))
    assert code == 2 and "no such file or directory" in err
    code, _, err = run(capsys, "verify", str(tmp_path))
    assert code == 2 and "no record files" in err
    code, _, err = run(capsys, "verify", "--rule", "no_such_option=1", str(records))
    assert code == 2 and "unknown ruleset option 'no_such_option'" in err
    code, _, err = run(capsys, "verify", "--rule", "justtext", str(records))
    assert code == 2 and "KEY=VALUE" in err


def test_verify_rule_overrides_apply(capsys: pytest.CaptureFixture[str], records: Path) -> None:
    """--rule values are JSON (else strings) and beat what the record says: without red fives the
    recorded tiles make no wall."""
    code, out, _ = run(capsys, "verify", "--rule", "red_fives=[0,0,0]", str(records / "t6"))
    assert code == 1 and "do not make a wall" in out
    code, out, _ = run(capsys, "verify", "--rule", "name=house", str(records / "t6"))
    assert code == 0


@needs_corpus
def test_verify_a_corpus_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", "--ruleset", "tenhou", str(MJLOG_DIR / "double-ron.xml"))
    assert code == 0 and out.splitlines()[-1].endswith("0 mismatches, 0 incomplete")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal_with_many_items() -> None:
    tty = _Tty()
    with Progress(10, "files", stream=tty) as bar:
        for _ in range(10):
            bar.advance("x.json")
    assert "[##############################] 10/10 files x.json" in tty.getvalue()
    quiet = _Tty()
    with Progress(3, "files", stream=quiet) as bar:
        bar.advance()
    assert quiet.getvalue() == ""
    pipe = io.StringIO()
    with Progress(100, "files", stream=pipe) as bar:
        bar.advance()
    assert pipe.getvalue() == ""


def test_verify_finds_mjson_files_in_folders(tmp_path: Path) -> None:
    """``.mjson`` is the mjai reference implementation's extension for its logs."""
    (tmp_path / "game.mjson").write_text("{}", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a record", encoding="utf-8")
    found, missing = find_records([tmp_path])
    assert [p.name for p in found] == ["game.mjson"] and missing == []


def test_play_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "--ruleset", "tenhou-sanma", "--seed", "x")
    assert code == 0 and "ranks [" in out and out.rstrip().endswith("]")
    final = out.strip().splitlines()[-1]
    assert final.startswith("final scores") and "ranks [1, 2, 3]" in final  # three seats
    code, out, _ = run(
        capsys, "play", "--ruleset", "tenhou-sanma", "--players", "greedy,greedy,greedy,greedy"
    )
    assert code == 2 and "needs 3 of" in out


def test_verify_names_the_rules_it_assumed_and_a_mismatchs_line(
    capsys: pytest.CaptureFixture[str], records: Path, tmp_path: Path
) -> None:
    """An mjai log without a ruleset (other tools' logs) is replayed under the Tenhou preset, and
    says so; a mismatch gives the line of the event besides the step."""
    source = sorted((records / "mjai").iterdir())[0]
    events = [json.loads(line) for line in source.read_text().splitlines()]
    del events[0]["ruleset"]
    hora = next(i for i, e in enumerate(events) if e["type"] in ("hora", "ryukyoku"))
    events[hora]["deltas"] = [d * 2 for d in events[hora]["deltas"]]
    bad = tmp_path / "other-tool.jsonl"
    bad.write_text("".join(json.dumps(e) + "\n" for e in events))
    code, out, _ = run(capsys, "verify", str(bad))
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == f"{bad}: rules tenhou (assumed: the record names none)"
    assert f"(line {hora + 1}): " in lines[1]
    assert lines[-2] == "rules: tenhou (assumed: the record names none) 1 file"
    code, out, _ = run(capsys, "verify", "--json", str(bad))
    (report,) = json.loads(out)["files"]
    assert (report["ruleset"], report["rules_from"]) == ("tenhou", "assumed")
    (hand,) = [h for h in report["hands"] if h["outcome"] == "mismatch"]
    assert hand["mismatches"][0]["where"] == f"line {hora + 1}"
    code, out, _ = run(capsys, "verify", "--ruleset", "tenhou", str(bad))
    assert out.splitlines()[0] == f"{bad}: rules tenhou (--ruleset/--rule)"


def test_simulate_help_gives_every_option_its_meaning_and_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "greedy takes every win" in out and "never calls (no chi, pon or kan)" in out
    for default in ("(default: greedy at every seat)", "(default: tenhou)", "(default: 1)"):
        assert default in out
    assert "(default: jantaku)" in out and "(default: tenhou6)" in out


@needs_corpus
def test_an_mjlog_mismatch_names_its_tag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (MJLOG_DIR / "double-ron.xml").read_text(encoding="utf-8")
    at = text.index('sc="', text.index("<AGARI ")) + 4
    scores = text[at : text.index('"', at)].split(",")
    scores[1] = str(int(scores[1]) + 10)  # the first win's score change for seat 0, off by 1,000
    bad = tmp_path / "bad.xml"
    bad.write_text(text[:at] + ",".join(scores) + text[text.index('"', at) :], encoding="utf-8")
    code, out, _ = run(capsys, "verify", str(bad))
    tags = re.findall(r"<[^>]*>", text[: text.index("<AGARI ")])
    assert code == 1
    assert f"(tag {len(tags) + 1} <AGARI>): " in out.splitlines()[1]
