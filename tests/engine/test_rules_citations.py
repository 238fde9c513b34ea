"""Comments and docstrings cite the rules by ``docs/rules.md`` anchors that exist, never by the
reference files outside the repository (docs/rules.md cites those as its sources)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
CITED = re.compile(r"docs/rules\.md#([A-Za-z0-9_-]+)")
# Built from parts so that this file does not match itself.
REFERENCE_FILE = re.compile("shared/" + "rules|" + r"\b00[0-4]_[0-9a-f]{16}\.txt")
BARE_NUMBER = re.compile(r"(?<![\w,.\-/#])00[0-4](?![\w.])")


def _sources() -> list[Path]:
    return sorted(p for d in ("server", "tests") for p in (ROOT / d).rglob("*.py"))


def _anchors() -> set[str]:
    text = RULES.read_text(encoding="utf-8")
    explicit = set(re.findall(r'<a id="([^"]+)"></a>', text))
    headings = {
        re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", text, flags=re.M)
    }
    return explicit | headings


def test_every_cited_rules_anchor_exists() -> None:
    anchors = _anchors()
    missing = {
        f"{path.relative_to(ROOT)}: #{anchor}"
        for path in _sources()
        for anchor in CITED.findall(path.read_text(encoding="utf-8"))
        if anchor not in anchors
    }
    assert not missing, sorted(missing)


def test_no_source_cites_the_reference_files_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _sources()
        if path.name != Path(__file__).name
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if REFERENCE_FILE.search(line) or BARE_NUMBER.search(line)
    ]
    assert not found, found
