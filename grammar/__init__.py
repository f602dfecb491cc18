"""Package data (not code): the lark grammars. Installed as ``bot.grammar``; found
through ``bot.GRAMMAR_DIR``."""
