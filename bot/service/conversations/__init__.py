"""The mail conversations with the players and the game master: what a mail may ask, who
may ask it, and how the bot answers without being made to send without bound.

- :mod:`~bot.service.conversations.registry`: the registry of mail commands (lists both tables) and ``find_command``.
- :mod:`~bot.service.conversations.table`: what a command is, one module's table of commands, the reply prefixes.
- :mod:`~bot.service.conversations.commands`: the player commands.
- :mod:`~bot.service.conversations.gm`: the game master's operations, by mail and by CLI.
- :mod:`~bot.service.conversations.identity`: personal codes, hashed and checked in constant time.
- :mod:`~bot.service.conversations.loops`: loops, floods and noise: answer caps, wrong-code notices, bounces.
- :mod:`~bot.service.conversations.mailctx`: the context of one incoming mail while it is read.
- :mod:`~bot.service.conversations.quoted`: lines of a player's mail that the bot itself wrote."""
