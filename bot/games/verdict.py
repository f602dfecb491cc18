"""Verdicts as data (issue 31): what a game says about a move, a note or a turn, as a
code with parameters, each parameter typed by who may see it; never a sentence.

A game's engine returns :class:`Verdict` values. The service renders them per recipient,
in the recipient's language, from the gettext catalogs (:mod:`bot.i18n`; German is the
source language, so the ``msgid`` is the German sentence with ``{name}`` fields):

>>> v = verdict("rack", N_("Nicht auf deiner Bank ({rack}): {missing}."),
...             rack=mover("JLLNNOU"), missing=mover("Q"))
>>> v.render("de", Audience(viewer="7"), owner="7")
'Nicht auf deiner Bank (JLLNNOU): Q.'
>>> v.render("de", PUBLIC, owner="7")
Traceback (most recent call last):
bot.games.visibility.PrivacyError: Urteil 'rack' ist nur für mover

Who may see a rendering is decided twice: the verdict's own ``seen`` (a sentence written
to the mover, "Nicht auf deiner Bank", is ``MOVER`` even without a parameter), and each
:class:`Param`'s ``seen``. :meth:`Verdict.render` for an audience that may not see one of
them raises :class:`~bot.games.visibility.PrivacyError`, as ``Sealed`` does: a public text can
only be built from public parameters. :meth:`Verdict.visible` asks first.

Stored as JSON (:meth:`Verdict.to_json`, :meth:`Verdict.from_json`) in a round's report,
so an Auswertung rendered later, in another language, or for the archive is rendered from
the data, not from a sentence written at the time. Reports stored before issue 31 carry
German sentences; :func:`legacy` reads them as verdicts seen by the mover alone.

A sentence written to the mover ("Nicht auf deiner Bank") reads about the mover in the
game master's copy ("Nicht auf der Bank") when the game wrote it with
:func:`about_mover`: the verdict carries both wordings, and so does its JSON.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, Mapping

from bot.games.visibility import GM_ONLY, PUBLIC, Audience, PrivacyError, Visibility
from bot.i18n import N_, translation

__all__ = ["Param", "Verdict", "verdict", "about_mover", "MoverSentence",
           "Plurals", "PLURALS", "public", "mover", "gm", "legacy", "as_verdict", "INVALID", "NOT_TRIED",
           "VALID_UNUSED", "VerdictText", "render_text", "N_", "PUBLIC", "GM_ONLY", "Audience", "Visibility", "PrivacyError"]

Scalar = Any  # str | int | Verdict | list of those


@dataclass(frozen=True)
class Param:
    """One parameter of a verdict: ``value`` (a ``str``, an ``int``, a nested
    :class:`Verdict`, or a list of those, joined by ``", "``) and who may see it."""

    value: Scalar
    seen: Visibility = Visibility.PUBLIC

    def to_json(self) -> dict[str, Any]:
        return {"v": _value_json(self.value), "s": self.seen.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Param":
        return cls(_value_from_json(data["v"]), Visibility(data.get("s", "mover")))


def public(value: Scalar) -> Param:
    """A parameter every player and the archive may see (the public table, a played word)."""
    return Param(value, Visibility.PUBLIC)


def mover(value: Scalar) -> Param:
    """A parameter only the mover (and the game master) may see: ``Private[mover]`` (a
    rack, a hand, a grid, the letters of a line that was not played)."""
    return Param(value, Visibility.MOVER)


def gm(value: Scalar) -> Param:
    """A parameter only the game master may see."""
    return Param(value, Visibility.GM)


def _value_json(value: Scalar) -> Any:
    if isinstance(value, Verdict):
        return {"verdict": value.to_json()}
    if isinstance(value, (list, tuple)):
        return [_value_json(v) for v in value]
    return value


def _value_from_json(data: Any) -> Scalar:
    if isinstance(data, dict) and "verdict" in data:
        return Verdict.from_json(data["verdict"])
    if isinstance(data, list):
        return [_value_from_json(v) for v in data]
    return data


@dataclass(frozen=True)
class Verdict:
    """A game's verdict: ``code`` (stable, for tests and the conformance cases, e.g.
    ``"rack"``), ``msgid`` (the German sentence with ``{name}`` fields, marked with
    :func:`~bot.i18n.N_` where it is written so Babel extracts it), ``params`` (name ->
    :class:`Param`), ``plural`` (the plural msgid when the sentence depends on the count
    ``params["n"]``: ``ngettext``), ``seen`` (who the sentence itself is for) and
    ``about`` (the game master's msgid and plural msgid for a sentence written to the
    mover, taken from a :class:`MoverSentence` msgid; ``None``: the game master reads
    ``msgid``)."""

    code: str
    msgid: str
    params: Mapping[str, Param] = field(default_factory=dict)
    plural: str | None = None
    seen: Visibility = Visibility.MOVER
    about: tuple[str, str | None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.about is None and isinstance(self.msgid, MoverSentence):
            object.__setattr__(self, "about", (self.msgid.gm, self.msgid.gm_plural))

    # -- who may see it -----------------------------------------------------------------
    def visible(self, audience: Audience, owner: str | None) -> bool:
        """Whether ``audience`` may see this verdict of the player ``owner`` whole: the
        sentence and every parameter (nested verdicts included)."""
        if not audience.sees(owner, self.seen):
            return False
        return all(audience.sees(owner, p.seen) and _nested_visible(p.value, audience, owner)
                   for p in self.params.values())

    def render(self, lang: str = "de", audience: Audience = GM_ONLY, owner: str | None = None) -> str:
        """The sentence in ``lang`` for ``audience`` (the verdict belongs to ``owner``, a
        player key). Raises :class:`PrivacyError` when the audience may not see the
        sentence or one of its parameters."""
        if not audience.sees(owner, self.seen):
            raise PrivacyError(f"Urteil {self.code!r} ist nur für {self.seen.value}")
        values = {}
        for name, p in self.params.items():
            if not audience.sees(owner, p.seen):
                raise PrivacyError(f"privater Parameter {name!r} des Urteils {self.code!r} in einer Ansicht, "
                                   "die ihn nicht zeigen darf")
            values[name] = _render_value(p.value, lang, audience, owner)
        t = translation(lang)
        msgid, plural = self.msgid, self.plural
        if audience.gm and owner is not None and audience.viewer != owner and self.about is not None:
            # the game master's copy: the sentence about the mover, not to them
            msgid, plural = self.about
        if plural is not None:
            n = self.params["n"].value
            text = t.ngettext(msgid, plural, int(n))
        else:
            text = t.gettext(msgid)
        return text.format(**values) if values else text

    def text(self, lang: str = "de") -> str:
        """The whole sentence as the mover and the game master read it (every parameter)."""
        return self.render(lang, GM_ONLY, None)

    # -- data ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "msgid": self.msgid, "seen": self.seen.value}
        if self.params:
            out["params"] = {k: p.to_json() for k, p in self.params.items()}
        if self.plural is not None:
            out["plural"] = self.plural
        if self.about is not None:
            out["about"] = list(self.about)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Verdict":
        return cls(code=data["code"], msgid=data["msgid"],
                   params={k: Param.from_json(v) for k, v in (data.get("params") or {}).items()},
                   plural=data.get("plural"), seen=Visibility(data.get("seen", "mover")),
                   about=tuple(data["about"]) if data.get("about") else None)

    def __str__(self) -> str:  # never rendered implicitly: a template must say for whom
        raise PrivacyError(f"Urteil {self.code!r} ohne Empfänger gerendert (render(lang, audience, owner))")

    __html__ = __str__


def _nested_visible(value: Scalar, audience: Audience, owner: str | None) -> bool:
    if isinstance(value, Verdict):
        return value.visible(audience, owner)
    if isinstance(value, (list, tuple)):
        return all(_nested_visible(v, audience, owner) for v in value)
    return True


def _render_value(value: Scalar, lang: str, audience: Audience, owner: str | None) -> str:
    if isinstance(value, Verdict):
        return value.render(lang, audience, owner)
    if isinstance(value, (list, tuple)):
        return ", ".join(_render_value(v, lang, audience, owner) for v in value)
    return str(value)


class MoverSentence(str):
    """A msgid written to the mover (the ``str`` itself) that carries the same sentence
    about the mover for the game master's copy: :attr:`gm` (a msgid with the same
    ``{fields}``) and :attr:`gm_plural` (the plural msgid, or ``None``). Made by
    :func:`about_mover`; :func:`verdict` and :class:`Verdict` take it as the msgid and
    keep the game master's wording with the verdict (:attr:`Verdict.about`)."""

    gm: str
    gm_plural: str | None

    def __new__(cls, msgid: str, gm: str, gm_plural: str | None = None) -> "MoverSentence":
        self = super().__new__(cls, msgid)
        self.gm, self.gm_plural = gm, gm_plural
        return self

    def __getnewargs__(self) -> tuple[str, str, str | None]:  # pickled and copied whole
        return str(self), self.gm, self.gm_plural


def about_mover(msgid: str, gm_msgid: str, plural: str | None = None, gm_plural: str | None = None) -> MoverSentence:
    """The sentence ``msgid`` written to the mover, carrying ``gm_msgid`` (and
    ``gm_plural``, for a verdict with ``plural``) as what the game master reads ("Nicht
    auf deiner Bank" -> "Nicht auf der Bank"); both marked with ``N_`` where they are
    written. A game keeps the result as a module constant and builds its verdicts from
    it. Raises ``ValueError`` when the two sentences do not have the same ``{fields}``.

    >>> s = about_mover(N_("Nicht auf deiner Bank ({rack})."), N_("Nicht auf der Bank ({rack})."))
    >>> verdict("rack", s, rack=mover("QX")).render("de", GM_ONLY, owner="7")
    'Nicht auf der Bank (QX).'
    """
    def fields(m: str | None) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(m or "") if f}

    if fields(msgid) != fields(gm_msgid) or (plural is None) != (gm_plural is None):
        raise ValueError(f"about_mover: {msgid!r} und {gm_msgid!r} passen nicht zueinander")
    return MoverSentence(msgid, gm_msgid, gm_plural)


def verdict(code: str, msgid: str, *, plural: str | None = None, seen: Visibility = Visibility.MOVER,
            **params: Param | Scalar) -> Verdict:
    """A :class:`Verdict`; a parameter given as a plain value takes the verdict's own
    ``seen`` (a public sentence's plain parameters are public, a mover's are the mover's)."""
    typed = {k: v if isinstance(v, Param) else Param(v, seen) for k, v in params.items()}
    return Verdict(code, msgid, typed, plural, seen)


class Plurals:
    """Marks a singular/plural pair of msgids for Babel (its ``ngettext`` keyword: one
    catalog entry with both forms) without translating it: ``PLURALS.ngettext(one,
    many)`` returns the pair for :func:`verdict`'s ``msgid`` and ``plural``;
    :meth:`Verdict.render` picks the form with the count ``n``."""

    @staticmethod
    def ngettext(singular: str, plural: str) -> tuple[str, str]:
        return singular, plural


#: The one :class:`Plurals` the games mark their plural msgids with.
PLURALS = Plurals()


def legacy(text: str, seen: Visibility = Visibility.MOVER) -> Verdict:
    """A German sentence stored before issue 31 (or a text without fields) as a verdict
    seen by ``seen``; it is rendered as it is in every language."""
    return Verdict("legacy", text, {}, None, seen)


def as_verdict(value: Verdict | str | Mapping[str, Any] | None, seen: Visibility = Visibility.MOVER) -> Verdict | None:
    """``value`` as a :class:`Verdict`: a verdict as it is, its JSON read, a sentence as
    :func:`legacy`; None stays None."""
    if value is None or isinstance(value, Verdict):
        return value
    if isinstance(value, str):
        return legacy(value, seen)
    return Verdict.from_json(value)


def render_text(value: Verdict | str | Mapping[str, Any] | None, lang: str = "de",
                audience: Audience = GM_ONLY, owner: str | None = None) -> str:
    """:meth:`Verdict.render` of ``value`` read by :func:`as_verdict` ("" for None)."""
    v = as_verdict(value)
    return v.render(lang, audience, owner) if v is not None else ""


class VerdictText:
    """For an engine's outcome with ``verdict`` (a :class:`Verdict` or None) and ``notes``
    (Verdicts): their German text as the mover reads it, for tests and logs."""

    verdict: Verdict | None
    notes: list[Verdict]

    @property
    def message(self) -> str:
        """The verdict as the mover reads it, in German ("" for none)."""
        return self.verdict.text("de") if self.verdict is not None else ""

    @property
    def note_texts(self) -> list[str]:
        """The notes as the mover reads them, in German."""
        return [n.text("de") for n in self.notes]


#: What others see of a line that was tried and failed, in a game with private state.
INVALID = verdict("invalid", N_("ungültig"), seen=Visibility.PUBLIC)
#: What others see of a line after the counted one (an Ersatzzug never tried).
NOT_TRIED = verdict("not_tried", N_("nicht mehr probiert"), seen=Visibility.PUBLIC)
#: A valid line that was not needed, as every player may read it.
VALID_UNUSED = verdict("valid_unused", N_("gültig, nicht gebraucht"), seen=Visibility.PUBLIC)
