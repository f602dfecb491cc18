"""The gallery of every mail (tests/gallery.py, issue 24): rendered afresh from the seeded
leagues and compared with the golden files in ``tests/gallery/``, so every change of
wording is a reviewed diff; the Dutch league's mails hold no German; and every HTML mail
fits a phone (390 px) and a narrow desktop (800 px) in headless Chromium.

Each golden file is checked by pytest-regressions' ``file_regression`` (a failure shows the
diff). After a deliberate change of wording:

    .venv/bin/python -m tests.gallery      # or: scripts/test tests/test_gallery.py --force-regen

then review ``git diff tests/gallery/`` like any other change (``python -m tests.gallery``
also adds and removes files when a kind of mail comes or goes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.gallery import GALLERY, build

@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("galerie") / "gallery"
    build(out)
    return out


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}


def test_no_mail_added_or_gone(fresh):
    """The rendered mails are the golden ones: a new kind of mail or a lost one fails."""
    assert sorted(_files(fresh)) == sorted(_files(GALLERY)), \
        "mails added or gone: update the gallery (python -m tests.gallery) and review the diff"


@pytest.mark.parametrize("name", sorted(_files(GALLERY)))
def test_every_mail_is_as_reviewed(fresh, name, file_regression):
    """Each rendered mail equals its golden file (pytest-regressions shows the diff)."""
    got = fresh / name
    assert got.is_file(), f"{name} is no longer rendered"
    file_regression.check(got.read_text(encoding="utf-8"), fullpath=GALLERY / name, encoding="utf-8", newline="\n")


def test_the_gallery_has_every_kind_of_mail():
    """Issue 32's coverage matrix: every game variant in every language it has, and every
    kind of mail (tests.gallery.KINDS) - start, acknowledgements (valid, invalid, out of
    turn, after the end, player out, late), Auswertung (text and HTML), final Auswertung,
    reminder, the GM's notices, the player commands - unless tests.gallery.SKIPPED says
    why the game has no such mail."""
    from tests.gallery import KINDS, SKIPPED
    from tests.wording_terms import TERMS, variant
    names = list(_files(GALLERY))
    by_key: dict[tuple, list[str]] = {}
    for n in names:
        by_key.setdefault(variant(n), []).append("/" + n)
    assert set(by_key) == set(TERMS) == set(SKIPPED), "every variant and language, and no other"
    missing = []
    for key, files in sorted(by_key.items()):
        for kind, patterns in KINDS.items():
            hits = [f for f in files if any(p in f for p in patterns)]
            if kind == "auswertung html":
                hits = [f for f in hits if f.endswith(".html")]
            if kind == "final auswertung":  # the last Auswertung of a league that has ended
                ended = {f.rsplit("/", 1)[0] for f in files if "-probe-nach-dem-ende." in f}
                hits = [f for f in hits if f.rsplit("/", 1)[0] in ended]
            if kind == "ack out of turn":  # the answer says so
                hits = [f for f in hits if re.search(r"nicht am Zug|niet aan de beurt",
                                                     (GALLERY / f[1:]).read_text(encoding="utf-8"))]
            skipped = kind in SKIPPED[key]
            assert not (hits and skipped), f"{key} {kind}: in the gallery, yet listed as skipped"
            if not hits and not skipped:
                missing.append(f"{key} {kind}")
    assert not missing, f"kinds of mail missing: {missing}"


def test_no_html_mail_is_kept_twice():
    """A resent Auswertung (AUSWERTUNG n) whose HTML is byte-equal to an Auswertung kept
    already is kept as text only (tests.gallery.build); no HTML file of the gallery is a
    copy of another in its league."""
    seen: dict[tuple[str, str], str] = {}
    dupes = []
    for name, path in _files(GALLERY).items():
        if name.endswith(".html"):
            key = (name.rsplit("/", 1)[0], path.read_text(encoding="utf-8"))
            if key in seen:
                dupes.append(f"{name} = {seen[key]}")
            seen.setdefault(key, name)
    assert not dupes, dupes


#: German words that no Dutch sentence contains (the wording check's list, tests/wording_terms.py)
from tests.test_wording import KNOWN  # noqa: E402
from tests.wording_terms import GERMAN  # noqa: E402


def test_dutch_league_mails_hold_no_german():
    """A Dutch league's mails to its players contain no message that is not from the Dutch
    catalog: no German word of the templates or the code (the GM's copies are German,
    gm_language)."""
    from babel.messages.pofile import read_po

    from bot.i18n import locale_dir
    with (locale_dir() / "nl" / "LC_MESSAGES" / "messages.po").open("rb") as fh:
        catalog = read_po(fh, locale="nl")
    # every German msgid fragment of more than one word that the Dutch catalog changes
    fragments = set()
    for m in catalog:
        if not m.id or not m.string:
            continue
        for msgid, msgstr in zip(m.id if isinstance(m.id, tuple) else (m.id,),
                                 m.string if isinstance(m.string, tuple) else (m.string,)):
            for frag in re.split(r"%\(\w+\)s|\{[^}]*\}|\n", msgid):
                frag = frag.strip(" .,:;()–-")
                if " " in frag and len(frag) >= 10 and frag not in msgstr:
                    fragments.add(frag)
    checked = 0
    for name, path in _files(GALLERY).items():
        if not name.startswith("rondonl-nl/") or "-gm-" in name:
            continue
        if "German in Dutch" in KNOWN.get(name, ()):  # being fixed in another branch (tests/test_wording.py)
            continue
        text = path.read_text(encoding="utf-8")
        body = re.sub(r"<[^>]+>", " ", text)
        hits = sorted({f for f in fragments if f in body})
        assert not hits, f"{name}: German messages {hits[:5]}"
        words = sorted(set(GERMAN.findall(body)))
        assert not words, f"{name}: German words {words}"
        checked += 1
    assert checked >= 8


@pytest.mark.parametrize("width", [390, 800])
def test_every_html_mail_fits(width, browser):
    """Every HTML mail of the gallery in headless Chromium: no horizontal scrolling and
    every board, row and table fully visible (tests/test_browser.py's checks)."""
    from tests.test_browser import CLIPPED_JS
    pages = [p for n, p in _files(GALLERY).items() if n.endswith(".html")]
    assert len(pages) >= 10
    page = browser.new_page(viewport={"width": width, "height": 900})
    bad = []
    try:
        for path in pages:
            page.goto(path.as_uri())
            wide = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
            clipped = page.evaluate(CLIPPED_JS)
            if wide > 1 or clipped:
                bad.append(f"{path.relative_to(GALLERY)}: {wide}px zu breit {clipped}")
    finally:
        page.close()
    assert not bad, "\n".join(bad)


from tests.test_browser import browser  # noqa: E402,F401  (the Chromium fixture)
