"""The table of mail commands: what a command is, the decorator that enters a handler in
its module's table, and the reply prefixes stripped before the command word. Each module
of commands has its own :class:`CommandTable` (:mod:`~bot.service.conversations.commands`
the players', :mod:`~bot.service.conversations.gm` the game master's);
:mod:`~bot.service.conversations.registry` lists the tables and finds a mail's command."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from bot.service.conversations.mailctx import Incoming

Handler = Callable[[Incoming, str], None]


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    needs_player: bool = True
    gm: bool = False
    help: str = ""
    #: the help line in a game of turns (``GameRules.turn_rounds``), where it names the
    #: period; "" when :attr:`help` fits every game
    help_turns: str = ""

    def help_for(self, turns: bool) -> str:
        """The help line's msgid for a game of turns (``turns``) or of rounds."""
        return self.help_turns if turns and self.help_turns else self.help


#: ``Re:``, ``AW:``, ``Fwd:``, ``WG:`` (repeated) before a command in a subject or first line
REPLY_PREFIX = re.compile(r"^((re|aw|fwd?|wg)\s*:\s*)+", re.I)


class CommandTable(dict[str, Command]):
    """The mail commands of one module, name -> :class:`Command` in the order they are
    defined, and :attr:`aliases` (upper-case word -> name); :meth:`command` is the
    decorator that enters a handler."""

    def __init__(self) -> None:
        super().__init__()
        self.aliases: dict[str, str] = {}

    def command(self, name: str, *aliases: str, needs_player: bool = True, gm: bool = False, help: str = "",
                help_turns: str = ""):
        """Register a mail command under ``name`` and its ``aliases`` (upper case)."""
        def deco(fn: Handler) -> Handler:
            self[name] = Command(name, fn, needs_player, gm, help, help_turns)
            for a in (name, *aliases):
                self.aliases[a.upper()] = name
            return fn
        return deco
