"""The privacy property for every game with private state (issue 23, docs/development/privacy.md):
a few seeded self-played leagues each (``tests/privacy.py``); ``bench/privacy_fuzz.py``
runs many. A failure prints the mail or archive page and the token."""

from __future__ import annotations

import pytest

from tests.privacy import PRIVATE_GAMES, play


@pytest.mark.parametrize("kind", sorted(PRIVATE_GAMES))
def test_no_private_token_reaches_another_player(kind, tmp_path):
    runs = [play(kind, seed, tmp_path / str(seed), rounds=3) for seed in (1, 2)]
    for run in runs:
        assert run.rounds >= 1 and run.mails > 0 and run.pages > 0
        assert not run.leaks, "\n\n".join(str(x) for x in run.leaks[:3])


@pytest.mark.parametrize("kind", ["typdom", "crossword"])
def test_the_property_finds_a_leak_when_the_projection_is_off(kind, tmp_path, monkeypatch):
    """The detector itself: with every audience seeing the mover's whole data (the defect
    of issue 23), the same self-play reports leaks."""
    from bot.games.base import GM_ONLY, GameRules
    whole = GameRules.seen_by
    monkeypatch.setattr(GameRules, "seen_by",
                        lambda self, pl, audience, state, lang="de": whole(self, pl, GM_ONLY, state, lang))
    leaks = [leak for seed in (1, 2, 3) for leak in play(kind, seed, tmp_path / str(seed), rounds=3).leaks]
    assert leaks, f"{kind}: no leak found although every player sees every verdict"
