"""The registry of mail commands: the table of every module of commands, listed here (not
entered by an import for its side effect), and :func:`find_command`, which finds the
command a mail asks for. The top of :mod:`bot.service.conversations`: it imports the
modules of commands, none of them imports it."""

from __future__ import annotations

import re

from bot.service.conversations import commands, gm
from bot.service.conversations.table import REPLY_PREFIX, Command

#: the tables of mail commands: the players' first (HILFE lists them in this order), then
#: the game master's (the GM's start mail lists them)
TABLES = (commands.COMMANDS, gm.GM_COMMANDS)
#: every mail command by name
COMMANDS: dict[str, Command] = {name: c for table in TABLES for name, c in table.items()}
#: every command word (name and aliases, upper case) -> the command's name
ALIASES: dict[str, str] = {word: name for table in TABLES for word, name in table.aliases.items()}

#: ``ADRESSE [<Liga>] OK|NEIN <Spieler>``: the game master's decision on a waiting address
#: change, not a player's ``ADRESSE neu@...`` or ``ADRESSE NEIN``
_GM_ADRESSE = re.compile(r"^[^@]*?(?:^|\s)(ok|ja|nein|nee|no)\s+\S[^@]*$", re.I)


def find_command(subject: str, text: str) -> tuple[Command, str] | None:
    """(command, the rest of its line) written as the subject or the first line."""
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    for cand in (subject or "", first):
        line = REPLY_PREFIX.sub("", cand.strip()).strip()
        word, _, rest = line.partition(" ")
        name = ALIASES.get(word.upper().rstrip(".!:"))
        if name == "ADRESSE" and _GM_ADRESSE.search(rest) and "ADRESSE-GM" in COMMANDS:
            name = "ADRESSE-GM"  # the game master's ADRESSE <Liga> OK|NEIN <Spieler> (gm.py)
        if name:
            return COMMANDS[name], rest.strip()
    return None
