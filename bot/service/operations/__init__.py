"""Running and operating the service: the long-running process and its passes, how it
lives with failing servers, the configuration and league files the game master edits.

- :mod:`~bot.service.operations.runner`: one pass (poll, read, deliver) and the long-running service.
- :mod:`~bot.service.operations.health`: backoff, few log lines and the GM's alarm while a server fails.
- :mod:`~bot.service.operations.check`: ``spielleiter check``, is the configuration usable?
- :mod:`~bot.service.operations.league`: league files and league creation (the start mails).
- :mod:`~bot.service.operations.activity`: quiet logs, one line per poll only when something happened.
- :mod:`~bot.service.operations.mailer`: the transports chosen from the config, and the IMAP poll state."""
