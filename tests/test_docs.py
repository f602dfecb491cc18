"""The documentation (issue 27): a MkDocs site in docs/ (mkdocs.yml at the top) that builds
with ``mkdocs build --strict`` (a broken link or anchor between pages, or a page missing
from the nav, fails), a short README whose links into docs/ resolve, the player help of
every game quoted word for word as it is mailed, and the deploy examples as shipped."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot import TEMPLATE_DIR
from bot.games.registry import GAME_CLASSES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _load_sync():
    """scripts/sync-doc-quotes as a module: the one place that renders what the docs quote."""
    from importlib.machinery import SourceFileLoader
    from importlib.util import module_from_spec, spec_from_loader
    loader = SourceFileLoader("sync_doc_quotes", str(ROOT / "scripts" / "sync-doc-quotes"))
    module = module_from_spec(spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


SYNC = _load_sync()


def test_the_site_builds_strictly(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"   # installed by the test extra, next to this Python
    assert mkdocs.exists(), "mkdocs fehlt: scripts/setup --test installiert es (pyproject, Extra test)"
    proc = subprocess.run([str(mkdocs), "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "img" / "demo-archive.png").exists()


def test_readme_is_short_starts_with_the_two_commands_and_its_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 150
    head = "\n".join(lines[:6])
    assert "scripts/setup && .venv/bin/spielleiter demo --out demo-auswertungen" in head
    assert "scripts/setup --test && scripts/test" in head
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len(targets) > 30
    for target in targets:
        assert "://" not in target
        path = target.split("#", 1)[0]
        assert (ROOT / path).exists(), f"README links {target}, which does not exist"
    assert "docs/img/demo-archive.png" in targets


@pytest.mark.parametrize("game", sorted(GAME_CLASSES))
def test_every_game_has_its_player_help_quoted_as_mailed_and_a_rules_page(game):
    page = (DOCS / "player-help" / f"{game}.md").read_text(encoding="utf-8")
    for lang in SYNC.HELP_LANGUAGES.get(game, ("de",)):
        text = SYNC.player_help(game, lang)
        assert len(text) > 500 and "{" not in text, text[:200]
        assert f"```text\n{text}\n```" in page, f"the {lang} help of {game} not quoted (scripts/sync-doc-quotes)"
    assert (DOCS / "rules" / f"{game}.md").exists()


@pytest.mark.parametrize("example, page", [("spielleiter.toml.example", "operator/config.md"),
                                           ("ds-rondo.toml.example", "operator/leagues.md")])
def test_the_deploy_examples_are_quoted_as_shipped(example, page):
    text = (ROOT / "deploy" / example).read_text(encoding="utf-8").rstrip("\n")
    assert f"```toml\n{text}\n```" in (DOCS / page).read_text(encoding="utf-8")


def test_every_provider_page_has_hosts_and_the_places_for_quotas_and_oauth():
    for name in ("gmx", "webde", "t-online", "posteo", "gmail", "outlook"):
        page = (DOCS / "operator" / "providers" / f"{name}.md").read_text(encoding="utf-8")
        assert "| IMAP |" in page and "| SMTP |" in page and "993" in page
        assert "## Send quotas" in page and "## OAuth2" in page


#: a path into the docs as code, examples and pages name it (``docs/operator/oauth2.md``)
DOC_PATH = re.compile(r"(?<![\w/.-])docs/[\w./-]*?\.md\b")


def _doc_path_sources():
    """Every file whose text may name a docs page by path: the code, the deploy examples,
    the templates, the pages themselves, the README and the scripts."""
    yield from sorted((ROOT / "bot").rglob("*.py"))
    yield from sorted(p for p in (ROOT / "deploy").iterdir() if p.is_file())
    yield from sorted(p for p in TEMPLATE_DIR.rglob("*") if p.is_file())
    yield from sorted(DOCS.rglob("*.md"))
    yield ROOT / "README.md"
    yield from sorted(p for p in (ROOT / "scripts").iterdir() if p.is_file())


def test_every_docs_path_named_in_code_examples_and_pages_exists():
    """Issue 32: a message or comment that sends the reader to ``docs/X.md`` must name a page
    that exists (mkdocs --strict checks only the links between pages, not these paths)."""
    sources = list(_doc_path_sources())
    assert any(p.suffix == ".py" for p in sources) and any(p.parent.name == "deploy" for p in sources)
    missing, seen = [], 0
    for path in sources:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in DOC_PATH.finditer(line):
                seen += 1
                if not (ROOT / m.group(0)).is_file():
                    missing.append(f"{path.relative_to(ROOT)}:{n}: {m.group(0)}")
    assert seen > 10, "no docs/...md path found: the pattern no longer matches"
    assert not missing, "Seiten, die es nicht gibt:\n" + "\n".join(missing)


@pytest.mark.parametrize("page", sorted(p.name for p in (DOCS / "operator" / "providers").glob("*.md")
                                        if p.name != "index.md"))
def test_every_provider_example_loads_and_logs_in_the_way_the_provider_takes(page, tmp_path):
    """Issue 32: a provider page's configuration, copied as is, is a valid configuration,
    and Outlook.com's logs in with OAuth2 (Microsoft takes no password there), never with
    a password."""
    from bot.config import load_config
    text = (DOCS / "operator" / "providers" / page).read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    (tmp_path / "spielleiter.toml").write_text(example, encoding="utf-8")
    cfg = load_config(tmp_path / "spielleiter.toml")
    if page == "outlook.md":
        assert "password" not in cfg.imap and "password" not in cfg.smtp
        assert cfg.imap["auth"] == cfg.smtp["auth"] == "oauth2" and cfg.oauth is not None
