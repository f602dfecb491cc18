"""Who may see what a game returns (docs/development/privacy.md): the visibility of a
piece of text, the audience of a rendering, and the error raised when a private text is
about to reach someone who may not see it. The ground floor of :mod:`bot.games.base` and
:mod:`bot.games.verdict`; no I/O."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Visibility(enum.Enum):
    """Who may see a piece of what a game returns for display (docs/development/privacy.md):
    ``PUBLIC`` every player and the archive, ``MOVER`` the player it belongs to (and the
    game master), ``GM`` the game master alone."""

    PUBLIC = "public"
    MOVER = "mover"
    GM = "gm"


class PrivacyError(RuntimeError):
    """A private text was about to be rendered for someone who may not see it: a bug in
    the service or a template, never a player's fault (the mail is not sent)."""


@dataclass(frozen=True)
class Audience:
    """Who a rendering is for: ``viewer`` the player key (None: no player, e.g. the
    archive or ``AUSWERTUNG n ALLE`` for others), ``gm`` the game master's copy or view
    (sees everything). :data:`PUBLIC` and :data:`GM_ONLY` are the two fixed ones."""

    viewer: str | None = None
    gm: bool = False

    def sees(self, owner: str | None, visibility: Visibility) -> bool:
        """Whether this audience may see something of ``owner`` (a player key, None for
        the Partie) with ``visibility``."""
        if visibility is Visibility.PUBLIC or self.gm:
            return True
        if visibility is Visibility.MOVER:
            return owner is not None and owner == self.viewer
        return False


#: Every player and the archive.
PUBLIC = Audience()
#: The game master.
GM_ONLY = Audience(gm=True)
