"""Typ-Dom (seed 002, Piatnik 6350) by mail: the Kreuzwort-Spiel and Point-Typ-Dom.

Modules: :mod:`.tiles` (the 80 tiles, colours, Jollys, values), :mod:`.table` (the
25 x 25 table on the shared grid of :mod:`bot.games.grid`), :mod:`.notation` (turn lines),
:mod:`.engine` (validation and scoring), :mod:`.outcome` (a judgement as data),
:mod:`.movegen` (the best turn of a rack, over the shared generator
:mod:`bot.games.gridgen`), :mod:`.game` (the game: rounds and views), :mod:`.deal` (deal,
seat order, purchases), :mod:`.scoring` (end scoring), :mod:`.reports` (what a judged turn
shows). Board, tiles, Jolly rules and word rules are meant for the race variants (Presto,
"Wer behält recht?") too. Listed in :mod:`bot.games.registry`.
"""

from bot.games.typdom.tiles import (LETTERS, VOWELS, CONSONANTS, COUNTS, VALUES, RED_JOLLY, BLACK_JOLLY, full_set,
                                    colour, jolly_for, sort_rack, rack_text)
from bot.games.typdom.table import CENTRE, SIZE, Table, coord_name
from bot.games.typdom.notation import Placement, Turn, parse_turn, format_turn, format_placement
from bot.games.typdom.engine import VARIANTS, evaluate, old_groups
from bot.games.typdom.outcome import REASONS, Laid, Outcome

__all__ = [
    "LETTERS", "VOWELS", "CONSONANTS", "COUNTS", "VALUES", "RED_JOLLY", "BLACK_JOLLY", "full_set", "colour",
    "jolly_for", "sort_rack", "rack_text", "CENTRE", "SIZE", "Table", "coord_name", "Placement", "Turn",
    "parse_turn", "format_turn", "format_placement", "REASONS", "VARIANTS", "Laid", "Outcome", "evaluate",
    "old_groups",
]
