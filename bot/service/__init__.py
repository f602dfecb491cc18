"""The bot's service: everything between the mailbox and the games, in five folders.

- :mod:`bot.service.stages`: the one-way data flow, each stage its own room joined by
  the database (mail stored raw, read and acknowledged, adjudicated at the ZAT, the
  reminders, the outbox sent within the provider's quotas);
- :mod:`bot.service.conversations`: the mail conversations with the players and the game
  master (commands, the GM's operations, codes, loops and floods, quoted lines);
- :mod:`bot.service.presentation`: what players and the GM read (the Auswertung, the
  standings and their chart, the league as data, the static archive);
- :mod:`bot.service.operations`: running and operating the service (the long-running
  service and its passes, backoff and alarms, ``spielleiter check``, league files, the
  transports, quiet logs);
- :mod:`bot.service.domain`: the ground floor every other folder reads (league lookups,
  the open round, the ZAT schedule, views of a Partie, the lexicon per league, player
  names). The layers and what each may import: docs/development/architecture.md.

No game rules here: the rules come from :mod:`bot.games`."""
