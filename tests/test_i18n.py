"""Languages of the mails (bot/i18n.py, bot/render.py): league language, one template per
mail with the gettext catalog of the language, Dutch ZATs, the service's own sentences,
and the catalogs complete (every message of the code and the templates translated)."""

from __future__ import annotations

from datetime import datetime, timezone

from bot.i18n import gm_language, language, league_language, tr
from bot.render import format_zat, render


def test_language_codes():
    assert language("nl") == language("NL") == language("Nederlands") == language("dutch") == "nl"
    assert language(None) == language("de") == language("fr") == "de"
    assert league_language({"language": "nl"}) == "nl" and league_language(None) == "de"
    assert gm_language({"language": "nl"}) == "de" and gm_language({"gm_language": "nl"}) == "nl"


def test_every_message_is_in_every_catalog():
    """CI fails on a message missing from a catalog: Babel extracts every message of the
    code and the templates (babel.cfg, scripts/i18n) and each one is translated in every
    ``translations/<lang>/LC_MESSAGES/messages.po``."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "scripts" / "i18n"
    loader = importlib.machinery.SourceFileLoader("i18n_script", str(path))
    spec = importlib.util.spec_from_loader("i18n_script", loader)
    script = importlib.util.module_from_spec(spec)
    loader.exec_module(script)
    template = script.extract()
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    assert "Hallo %(name)s," in ids and "Montag" in ids and "{n} Strich" in ids  # templates and code
    assert script.languages() == ["nl"]
    assert script.problems("nl", template) == []


def test_sentences_in_both_languages():
    assert tr("nl", "not_your_turn", who="").startswith("je bent nu niet aan de beurt")
    assert tr("de", "not_your_turn", who="") == "du bist jetzt nicht am Zug; dein Zug wurde nicht gespeichert."


def test_zat_in_dutch_and_german():
    when = datetime(2026, 12, 6, 19, 0, tzinfo=timezone.utc)
    assert format_zat(when, "Europe/Amsterdam", "nl") == "zondag 06-12-2026, 20:00 uur (UTC+01:00)"
    assert format_zat(when, "Europe/Berlin") == "Sonntag, 06.12.2026, 20:00 Uhr (UTC+01:00)"


def test_one_template_for_every_language():
    nl = render("notice.txt.j2", "nl", name="Bram", body="x")
    de = render("notice.txt.j2", name="Bram", body="x")
    assert "Spelleider-bot" in nl and "Spielleiter-Bot" in de
    from bot import TEMPLATE_DIR
    assert not (TEMPLATE_DIR / "nl").exists()
    assert "Zo speel je RONDO" in render("rondonl/hilfe.txt", "nl")
    assert "So spielst du RONDO" in render("rondonl/hilfe.txt")


def test_every_unreadable_reason_has_dutch():
    """Each one-line reason bot.mail.message gives for an unreadable mail reads in Dutch
    for a Dutch league (nothing German left in the sentence)."""
    from bot.i18n import unreadable_reason
    from bot.mail.message import MAX_CONTAINERS, MAX_ENTITIES
    reasons = [f"sie besteht aus zu vielen ineinander verschachtelten Teilen (mehr als {MAX_CONTAINERS})",
               f"sie besteht aus zu vielen Teilen (mehr als {MAX_ENTITIES})",
               "sie ist zu tief verschachtelt (zu viele ineinander steckende Teile)",
               "ihr Aufbau (MIME) ist fehlerhaft (HeaderParseError)",
               "ihr Text ließ sich nicht entschlüsseln (LookupError)",
               "ihr Text ließ sich nicht lesen (ValueError)",
               "sie ist sehr groß (977 KB), und ihr Anfang enthält keinen Text"]
    src = (__import__("pathlib").Path(__file__).parents[1] / "bot" / "mail" / "message.py").read_text(encoding="utf-8")
    for r in reasons:  # the reasons as message.py writes them
        assert r.split(" (")[0].split(",")[0] in src, r
        nl = unreadable_reason(r, "nl")
        assert nl != r and not any(w in nl for w in ("sie ", "ihr ", "Teile", "Text")), nl
        assert unreadable_reason(r, "de") == r


def test_plural_forms_from_the_catalogs():
    from bot.i18n import texts
    assert texts("de").ngettext("{n} Strich", "{n} Striche", 1) == "1 Strich"
    assert texts("de").ngettext("{n} Strich", "{n} Striche", 0) == "0 Striche"
    assert texts("nl").ngettext("{n} Strich", "{n} Striche", 1) == "1 streep"
    assert texts("nl").ngettext("{n} Strich", "{n} Striche", 2) == "2 strepen"
    assert render("rondonl/situation.txt.j2", "nl", phase="play", turn=2, word="", mine=None) == "beurt 3, rij leeg"


def test_wrap_never_splits_a_letter_list_a_parenthesis_or_a_field():
    from bot.render import wrap
    text = "ungültig: X ist nicht unter den Buchstaben dieser Runde (C E K R U Z), bitte noch einmal"
    for width in range(20, 60):
        out = wrap(text, width)
        assert "(C E K R U Z)" in out, out
    out = wrap("Gelegt: A2 B, A6 E, B6 R, C6 E, F2 D, F3 H. 20 Wörter gelistet", 24)
    assert all(pair in out for pair in ("A2 B", "A6 E", "B6 R", "C6 E", "F2 D", "F3 H")), out
    assert wrap("  HAUS A1-A4      von links nach rechts, eine lange eingerückte Zeile", 20).startswith("  HAUS A1-A4      von")


def test_wrap_keeps_a_short_last_word_a_command_and_a_nobreak_together():
    from bot.render import nobreak, wordwrap, wrap
    assert wrap("Bram Jansen begint en legt een woord van drie letters op de vakken 4 tot 6.", 72).endswith(
        "\ntot 6.")
    out = wrap("Ohne Zug gibt es ein NMR. Wer nicht erinnert werden will: URLAUB von-bis.", 72)
    assert "URLAUB von-bis." in out.splitlines()[-1], out
    line = "Steine auf der Bank: " + ", ".join(nobreak(f"{n} {k}") for n, k in
                                              [("Clara Conrad", 1), ("Anna Albers", 0), ("Bernd Becker", 1)])
    for width in range(30, 70):
        out = wordwrap(line, width, wrapstring="\n    ")
        assert all(x in out for x in ("Clara Conrad 1", "Anna Albers 0", "Bernd Becker 1")), out
        assert "\u00a0" not in out
