"""The stages: the one-way data flow, each stage its own room joined by the database, so
a crash between two stages loses nothing (mail in -> stored raw -> read and acknowledged
-> adjudicated at the ZAT -> outbox sent with retries).

- :mod:`~bot.service.operations.ingest`: ``spielleiter ingest``, raw mails fed exactly as the poller would.
- :mod:`~bot.service.conversations.intake`: mail in: stored raw first, then read and acknowledged.
- :mod:`~bot.service.stages.readpool`: the MIME of stored mails read in worker processes.
- :mod:`~bot.service.stages.rounds`: adjudication at the ZAT, one transaction per league round.
- :mod:`~bot.service.stages.reminders`: reminders a set time before each ZAT.
- :mod:`~bot.service.stages.outbox`: the transactional outbox, sent afterwards with retries.
- :mod:`~bot.service.stages.quota`: sending within the mail provider's quotas.
- :mod:`~bot.service.stages.idle`: IMAP IDLE, which wakes the inbox stage as a mail arrives."""
