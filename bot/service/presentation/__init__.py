"""What players and the game master read: rendered from the stored data and the games'
templates and views, with no game rules of its own.

- :mod:`~bot.service.presentation.report`: the Auswertung of a league round, put together from parts.
- :mod:`~bot.service.presentation.archive`: the league archive, a static HTML site.
- :mod:`~bot.service.presentation.chart`: the standings chart, an inline SVG.
- :mod:`~bot.service.presentation.standings`: the combined standings of a league.
- :mod:`~bot.service.presentation.view`: the league as data (``spielleiter show NAME --json``)."""
