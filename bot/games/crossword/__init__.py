"""Crossword (seed 003): six private 6x6 grids, wished letters, verified word lists and
each grid's exact best score. Modules: :mod:`~bot.games.crossword.grid` (fields, grid,
lines, points), :mod:`~bot.games.crossword.notation` (parse/format),
:mod:`~bot.games.crossword.engine` (placement, claims, best score) and
:mod:`~bot.games.crossword.game` (the game interface)."""
