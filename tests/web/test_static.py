"""server.web.static: the page and its assets, their headers, and refused paths."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.bots import BOTS
from server.web.api.pages import games_page_response
from server.web.static import CONTENT_SECURITY_POLICY, STATIC_DIR, static_response


def _headers(path: str) -> dict[str, str]:
    found = static_response(path)
    assert found is not None, path
    status, headers, body = found
    assert status == 200
    names = [name.lower() for name, _ in headers]
    assert len(names) == len(set(names)), "no header twice"
    out = dict(headers)
    assert out["Content-Length"] == str(len(body))
    return out


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/", "text/html; charset=utf-8"),
        ("/index.html", "text/html; charset=utf-8"),
        ("/static/style.css", "text/css; charset=utf-8"),
        ("/static/js/app.js", "text/javascript; charset=utf-8"),
        ("/static/js/main.js", "text/javascript; charset=utf-8"),
        ("/static/js/view.js", "text/javascript; charset=utf-8"),
        ("/static/favicon.svg", "image/svg+xml"),
        ("/?ws=ws://elsewhere:1/ws", "text/html; charset=utf-8"),
    ],
)
def test_content_types(path: str, content_type: str) -> None:
    assert _headers(path)["Content-Type"] == content_type


def test_index_is_the_page() -> None:
    found = static_response("/")
    assert found is not None
    assert found[2] == (STATIC_DIR / "index.html").read_bytes()


def test_security_and_cache_headers() -> None:
    headers = _headers("/")
    csp = headers["Content-Security-Policy"]
    assert csp == CONTENT_SECURITY_POLICY
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["connect-src"] == "'self' ws: wss: http: https:"  # + the ranked API's port
    assert directives["frame-ancestors"] == "'none'"
    others = [v for k, v in directives.items() if k != "connect-src"]
    assert "unsafe" not in csp and not any("http" in v for v in others)
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-cache"
    assert re.fullmatch(r'"[0-9a-f]{32}"', headers["ETag"])
    assert _headers("/static/js/app.js")["Content-Security-Policy"] == csp


@pytest.mark.parametrize(
    "path",
    [
        "/static/../static.py",
        "/static/../../cli.py",
        "/static/%2e%2e/static.py",
        "/static/%2E%2E/%2E%2E/cli.py",
        "/static/js/../../static.py",
        "/static//etc/passwd",
        "/static/..%2fstatic.py",
        "/static/..%5cstatic.py",
        "/static/js%2f..%2f..%2fstatic.py",
        "/static/%00.js",
        "/static/%ff.js",
        "/static/",
        "/static/js",
        "/static/js/",
        "/static/.hidden.js",
        "/static/js/.app.js",
        "/static/index.html/",
        "/../server/web/static.py",
        "/etc/passwd",
        "/static/__init__.py",
        "/ws",
        "/healthz",
        "/index.htm",
        "",
        "static/style.css",
        "/static\\..\\static.py",
    ],
)
def test_refused(path: str) -> None:
    assert static_response(path) is None


def test_symlink_out_of_the_directory_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import server.web.static as module

    root = tmp_path / "static"
    root.mkdir()
    (root / "index.html").write_text("<!doctype html>")
    secret = tmp_path / "secret.js"
    secret.write_text("secret")
    (root / "leak.js").symlink_to(secret)
    monkeypatch.setattr(module, "STATIC_DIR", root)
    assert module.static_response("/") is not None
    assert module.static_response("/static/leak.js") is None


def _referenced(html: str) -> list[str]:
    return re.findall(r'(?:src|href)="(/[^"]*)"', html)


def test_index_references_existing_files() -> None:
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    refs = _referenced(html)
    assert "/static/js/main.js" in refs and "/static/style.css" in refs
    for ref in refs:  # the players' game pages (/games/) are served beside the client's files
        assert (static_response(ref) or games_page_response(ref)) is not None, ref


def test_the_games_pages_reference_existing_files() -> None:
    html = games_page_response("/games/")
    assert html is not None
    for ref in _referenced(html[2].decode()):  # "/" is the game page itself
        assert (static_response(ref) or games_page_response(ref)) is not None, ref


def test_modules_import_existing_files() -> None:
    """Every ES module import resolves to a served file (no bundler will catch a typo)."""
    imports = re.compile(r'^\s*(?:import|export)[^;]*?from\s+"([^"]+)"', flags=re.M | re.S)
    for file in (STATIC_DIR / "js").glob("*.js"):
        for target in imports.findall(file.read_text()):
            assert target.startswith("./"), (file.name, target)
            assert static_response(f"/static/js/{target[2:]}") is not None, (file.name, target)


def test_nothing_from_elsewhere() -> None:
    """No CDN, web font or remote image: the page works offline."""
    for file in STATIC_DIR.rglob("*"):
        if file.suffix in (".html", ".js", ".css"):
            text = file.read_text(encoding="utf-8")
            assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), file
            assert "@import" not in text and "@font-face" not in text, file
            assert not re.search(r"\sstyle=\"", text), f"inline style attribute in {file} (CSP)"
            assert "<script>" not in text and "onclick=" not in text, f"inline script in {file}"


def test_static_files_are_package_data() -> None:
    """The files live inside the ``server`` package, which the wheel ships whole."""
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert "server" in pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
    assert STATIC_DIR.is_relative_to(Path(__file__).resolve().parents[2] / "server")
    assert (STATIC_DIR.parent / "__init__.py").is_file()


def test_the_readme_names_the_pages_real_buttons() -> None:
    """The Quick start says which button to press: the page has a button with that very text."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    buttons = {
        re.sub(r"<[^>]+>", "", b).strip() for b in re.findall(r"<button[^>]*>(.*?)</button>", html, re.S)
    }
    pressed = re.findall(r"press\s+\*([^*]+)\*", readme.replace("\n", " "))
    assert pressed, "the README's Quick start names the button to press"
    for name in pressed:
        assert re.sub(r"\s+", " ", name) in buttons, (name, buttons)


def test_the_organizer_page_offers_the_servers_built_in_bots() -> None:
    """The substitutes the organizer's page suggests (``bot:NAME``) are the server's built-in bots."""
    text = (STATIC_DIR / "js" / "eventorg.js").read_text()
    found = re.search(r"export const BUILT_IN_BOTS = \[([^\]]*)\];", text)
    assert found is not None
    assert sorted(re.findall(r'"([^"]+)"', found.group(1))) == sorted(BOTS)
