"""What a person sees, checked in a real browser: Debian's headless Chromium driven over
the DevTools protocol by Playwright (``executable_path=/usr/bin/chromium``, no browser
download). The archive and the HTML Auswertungen of every game (the leagues of
``tests/leagues.py``: played Rondo and Monoscrabble leagues, and a running league of every
registered game) are opened at phone width (390 px) and desktop width, in light and dark
mode, and screenshots are kept under ``$SPIELLEITER_ARTIFACTS`` (default: the temp
folder) in ``spielleiter-browser/``. Asserted: no horizontal scrolling at phone width;
every board, row and table fully visible (inside the viewport, not clipped by a scrolling
box); the chart present with one line per player; German umlauts intact; text readable
against its background in light and dark mode; the round pages fit A4 when printed."""

from __future__ import annotations

import email
import email.policy
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.service.presentation.archive import build_archive, player_page, slug
from bot.service.presentation.chart import points_history
from bot.storage.models import League, OutboxMail

CHROMIUM = os.environ.get("SPIELLEITER_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-dev-shm-usage"]
PHONE, DESKTOP = 390, 1280
#: the best one text colour reaches against both white and Chromium's dark #121212 is
#: about 4.4:1, so a colour meant for both modes is held to 4:1 (black on white is 21:1)
MIN_CONTRAST = 4.0

# Every element that holds text: its colour against the first opaque background behind
# it (the canvas colour of the scheme when there is none); returns the worst offenders.
CONTRAST_JS = """([canvas, minimum]) => {
  const parse = c => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const bg = el => { for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0.5) return c; } return canvas; };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement; if (!n.textContent.trim() || seen.has(el)) continue; seen.add(el);
    if (['TITLE', 'DESC', 'STYLE', 'SCRIPT'].includes(el.tagName.toUpperCase())) continue;
    const st = getComputedStyle(el); const r = el.getBoundingClientRect();
    if (st.visibility === 'hidden' || st.display === 'none' || r.width === 0) continue;
    const fg = parse(el instanceof SVGElement ? st.fill : st.color); if (!fg) continue;
    const b = bg(el); const l1 = lum(fg), l2 = lum(b);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < minimum) bad.push(`${el.tagName} "${n.textContent.trim().slice(0, 30)}" ${st.color} on rgb(${b.r},${b.g},${b.b}): ${ratio.toFixed(2)}`);
  }
  return bad.slice(0, 10);
}"""

# Tables (boards, rows, standings) that do not lie fully inside the viewport or are cut
# by a scrolling or clipping box around them.
CLIPPED_JS = """() => {
  const out = []; const w = document.documentElement.clientWidth;
  for (const t of document.querySelectorAll('table, svg')) {
    const r = t.getBoundingClientRect(); if (r.width === 0) continue;
    if (r.left < -0.5 || r.right > w + 0.5) out.push(`${t.tagName} ${t.getAttribute('aria-label') || ''}: ${r.left.toFixed(0)}..${r.right.toFixed(0)} of ${w}`);
    for (let e = t.parentElement; e && e !== document.body; e = e.parentElement) {
      const st = getComputedStyle(e);
      if (st.overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1) { out.push(`${t.tagName} clipped by ${e.tagName}.${e.className}`); break; }
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - installed by scripts/setup --test
        if os.environ.get("CI"):
            raise
        pytest.skip("playwright not installed (scripts/setup --test)")
    if not Path(CHROMIUM).exists():  # pragma: no cover
        if os.environ.get("CI"):
            raise RuntimeError(f"{CHROMIUM} missing: scripts/setup --test installs Debian's chromium")
        pytest.skip("chromium not installed (scripts/setup --test)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)  # a fresh, empty profile
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots():
    root = Path(os.environ.get("SPIELLEITER_ARTIFACTS", tempfile.gettempdir())) / "spielleiter-browser"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    return root


@pytest.fixture(scope="module")
def pages(played, tmp_path_factory):
    """``[(label, path, players)]``: every page to look at, with the number of players
    whose line the chart must show (None: no chart on that page, or nobody has points)."""
    root = tmp_path_factory.mktemp("browser")
    site = root / "archiv"
    build_archive(played.db, site)
    out = [("archiv-index", site / "index.html", None)]
    with played.db.session() as s:
        for league in s.scalars(select(League).order_by(League.id)):
            d, active = site / slug(league.name), [p for p in league.players if p.active]
            drawn = any(v for x in points_history(s, league).series for v in x.values)
            rounds = sorted(d.glob("runde-*.html"))
            out += [(f"{d.name}-liga", d / "index.html", len(active) if drawn else None),
                    (f"{d.name}-runde", rounds[-1], len(active) if drawn else None),
                    (f"{d.name}-spieler", d / player_page(active[0].id, active[0].name), None)]
            rows = s.scalars(select(OutboxMail).where(OutboxMail.league_id == league.id,
                                                      OutboxMail.kind == "auswertung")
                             .order_by(OutboxMail.round_number.desc(), OutboxMail.id)).all()
            for r in (rows[0], next(x for x in rows if x.key.endswith(":gm"))):
                msg = email.message_from_bytes(r.raw, policy=email.policy.default)
                f = root / f"{d.name}-mail-{r.key.rsplit(':', 1)[1]}.html"
                f.write_text(msg.get_body(("html",)).get_content(), encoding="utf-8")
                joined = [p for p in active if p.joined_round <= r.round_number]
                out.append((f.stem, f, len(joined) if drawn else None))
    return out


@pytest.fixture(scope="module")
def tab(browser):
    """One browser tab for every look (a new context per page costs a second each)."""
    ctx = browser.new_context(viewport={"width": PHONE, "height": 900})
    page = ctx.new_page()
    yield page
    ctx.close()


def _look(page, path: Path, width: int, scheme: str, shot: Path):
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(media="screen", color_scheme=scheme)
    page.goto(path.as_uri())
    page.screenshot(path=str(shot), full_page=True)
    return page


def test_pages_at_phone_and_desktop_width(tab, pages, shots):
    problems = []
    for width, scheme in ((PHONE, "light"), (PHONE, "dark"), (DESKTOP, "light")):
        for label, path, players in pages:
            page = _look(tab, path, width, scheme, shots / f"{label}-{width}-{scheme}.png")
            where = f"{label} @{width} {scheme}"
            sw, iw = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if sw > iw:
                problems.append(f"{where}: scrolls sideways ({sw} > {iw})")
            problems += [f"{where}: {c}" for c in page.evaluate(CLIPPED_JS)]
            canvas = {"r": 255, "g": 255, "b": 255, "a": 1} if scheme == "light" else \
                {"r": 18, "g": 18, "b": 18, "a": 1}
            problems += [f"{where}: contrast {c}" for c in page.evaluate(CONTRAST_JS, [canvas, MIN_CONTRAST])]
            text = page.inner_text("body")
            if "Ã" in text or "\ufffd" in text or not any(u in text for u in "äöüÄÖÜß"):
                problems.append(f"{where}: umlauts broken")
            if players is not None:
                lines = page.locator("figure svg g.linie polyline")
                if lines.count() != players:
                    problems.append(f"{where}: chart has {lines.count()} lines, expected {players}")
                elif not page.locator("figure svg").first.is_visible():
                    problems.append(f"{where}: chart not visible")
                else:
                    box = page.locator("figure svg").first.bounding_box()
                    if box["height"] < 120 or box["width"] > width:
                        problems.append(f"{where}: chart {box}")
    assert problems == [], "\n".join(problems)


def test_board_and_row_fully_visible_on_a_phone(tab, pages, shots):
    """The board (Monoscrabble, 15 x 15) and the row (Rondo, 9 fields), and any game's
    board table labelled "Brett ..."/"Auslage ...": its fields inside the screen at 390 px
    (first, last and every few in between), none cut off or too small to read."""
    seen = 0
    for label, path, _ in pages:
        if "-runde" not in label and "-mail-" not in label:
            continue
        page = _look(tab, path, PHONE, "light", shots / f"{label}-felder.png")
        for table in page.locator("table[aria-label^='Brett'], table[aria-label^='Auslage']").all():
            cells = table.locator("td")
            n = cells.count()
            assert n >= 9, (label, n)  # Rondo's row has 9 fields, a board more
            boxes = [cells.nth(i).bounding_box() for i in range(0, n, max(1, n // 16))] + \
                [cells.nth(n - 1).bounding_box()]
            assert all(b and b["x"] >= 0 and b["x"] + b["width"] <= PHONE and b["width"] >= 14 for b in boxes), label
            seen += 1
    assert seen >= 4


def test_round_pages_print_on_a4(browser, pages, shots):
    """Printed (print stylesheet, A4): no navigation, nothing wider than the page."""
    for label, path, _ in pages:
        if "-runde" not in label:
            continue
        ctx = browser.new_context(viewport={"width": 718, "height": 1000})  # A4 minus margins at 96 dpi
        page = ctx.new_page()
        page.goto(path.as_uri())
        page.emulate_media(media="print")
        assert not page.locator("nav").is_visible(), label
        sw, iw = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert sw <= iw, (label, sw, iw)
        pdf = page.pdf(format="A4", print_background=True)
        (shots / f"{label}-druck.pdf").write_bytes(pdf)
        assert pdf.startswith(b"%PDF")
        ctx.close()
