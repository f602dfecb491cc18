"""Non-interference (issue 31, item 2; ``tests/noninterference.py``): for every game with
private state, change what of one player the rules have not made public (their rack, hand
or grid, the lines they did not play and why each failed, the private parameters of their
verdicts) and every text another player or the archive gets must stay byte-identical.
``bench/privacy_fuzz.py`` runs many more seeds."""

from __future__ import annotations

import pytest

from tests.noninterference import check
from tests.privacy import PRIVATE_GAMES


@pytest.mark.parametrize("kind", sorted(PRIVATE_GAMES))
@pytest.mark.parametrize("seed", [1, 2])
def test_what_others_read_does_not_depend_on_a_players_secrets(kind, seed, tmp_path):
    result = check(kind, seed, tmp_path, rounds=3)
    assert result.rounds >= 1 and result.texts > 10
    assert result.changed_fields > 0, f"{kind}: nothing of a player was changed, the test proves nothing"
    assert not result.differences, "\n\n".join(str(d) for d in result.differences[:3])
    assert not result.leaks, "\n\n".join(str(x) for x in result.leaks[:3])


@pytest.mark.parametrize("kind", ["typdom", "rondonl-de", "crossword"])
def test_non_interference_fails_when_the_projection_is_off(kind, tmp_path, monkeypatch):
    """The property itself (a mutation test): with every audience seeing the mover's whole
    round data, the same check reports differences."""
    from bot.games.base import GM_ONLY, GameRules
    whole = GameRules.seen_by
    monkeypatch.setattr(GameRules, "seen_by",
                        lambda self, pl, audience, state, lang="de": whole(self, pl, GM_ONLY, state, lang))
    found = []
    for seed in (1, 2, 3):
        found += check(kind, seed, tmp_path / str(seed), rounds=3).differences
        if found:
            break
    assert found, f"{kind}: no difference found although every player sees every verdict"
