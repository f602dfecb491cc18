"""The service's ground floor: what every other floor of :mod:`bot.service` reads about a
league, with no mail sent and nothing rendered.

- :mod:`~bot.service.domain.league`: league lookups, the open round, the ZAT schedule, views of a Partie, the lexicon per league.
- :mod:`~bot.service.domain.names`: player names: stored, compared and refused."""
