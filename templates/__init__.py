"""Package data (not code): the jinja templates, one folder per game. Installed as
``bot.templates``; found through ``bot.TEMPLATE_DIR``."""
