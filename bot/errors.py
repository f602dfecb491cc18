"""Errors every floor may raise and catch, in a module that imports nothing of the bot (so
:mod:`bot.config` and :mod:`bot.mail` both import it without importing each other)."""

from __future__ import annotations


class ConfigError(ValueError):
    """The configuration file is missing a key or has a wrong value (message names it)."""
