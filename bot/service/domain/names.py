"""Player names: identities only with an id (issue 31): how a name is stored, compared and
refused."""

from __future__ import annotations

import unicodedata

from bot.service.domain.league import LeagueError


def normal_name(name: str) -> str:
    """A player's name as it is stored: NFC-normalised (Unicode TR15), every run of white
    space one blank, no blank at either end (``" Anna\u00a0 Albers "`` -> ``"Anna Albers"``)."""
    return " ".join(unicodedata.normalize("NFC", str(name)).split())


def name_key(name: str) -> str:
    """What two names are compared by: :func:`normal_name`, case-folded (``"ANNA ALBERS"``
    and ``"Anna Albers"`` are the same name; so are ``"Zoë"`` composed and decomposed)."""
    return normal_name(name).casefold()


def bad_name_chars(name: str) -> list[str]:
    """The characters of ``name`` a name may not have, as ``U+XXXX`` codes (in order, each
    once): every character of a Unicode general category ``C`` (``Cc`` control characters,
    ``Cf`` format characters such as the bidirectional overrides and isolates
    U+202A-U+202E, U+2066-U+2069, the marks U+200E/U+200F and the zero-width U+200B-U+200D;
    ``Co``, ``Cs``, ``Cn``). Such characters make a name look like another, or turn the
    text around it (Trojan Source, CVE-2021-42574). Empty for a good name."""
    bad = [c for c in unicodedata.normalize("NFC", str(name)) if unicodedata.category(c).startswith("C")]
    return list(dict.fromkeys(f"U+{ord(c):04X}" for c in bad))


def free_name(name: str, taken: set[str]) -> str:
    """A suggestion for ``name`` when it is taken (``taken``: :func:`name_key` of the names
    in the league): ``"Anna Albers 2"``, ``"Anna Albers 3"``, ... the first that is free."""
    n = 2
    while name_key(f"{name} {n}") in taken:
        n += 1
    return f"{normal_name(name)} {n}"


def check_player_names(names: list[str], where: str = "") -> None:
    """Refuse a list of player names for one league (a league file): raises
    :class:`LeagueError` (German) for an empty name, a name with a character of
    :func:`bad_name_chars`, a name with ``@`` (an address: names are public, addresses
    never), or two names that are the same after :func:`name_key`."""
    seen: dict[str, str] = {}
    prefix = f"{where}: " if where else ""
    for name in names:
        if bad := bad_name_chars(name):
            raise LeagueError(f"{prefix}der Name {normal_name(name)!r} enthält Steuer- oder Formatzeichen "
                              f"({', '.join(bad)}); bitte nur sichtbare Zeichen.")
        if not normal_name(name):
            raise LeagueError(f"{prefix}ein Spieler hat einen leeren Namen.")
        if "@" in name:
            raise LeagueError(f"{prefix}der Name {normal_name(name)!r} sieht aus wie eine Mail-Adresse; Namen "
                              f"stehen in jeder Auswertung und im Archiv, Adressen nie.")
        key = name_key(name)
        if key in seen:
            raise LeagueError(f"{prefix}der Name {normal_name(name)!r} kommt doppelt vor (wie {seen[key]!r}); "
                              f"jeder Spieler einer Liga braucht einen eigenen Namen, z. B. "
                              f"{free_name(seen[key], set(seen))!r} oder mit Initiale.")
        seen[key] = normal_name(name)
