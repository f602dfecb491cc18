"""The bot's stages, joined by the database: league setup, intake (store raw, read,
acknowledge), adjudication at the ZAT, outbox delivery and the scheduler.
No game rules here: the rules come from :mod:`bot.games`."""
