"""Package data (not code): the gettext catalogs, ``<lang>/LC_MESSAGES/messages.po`` (and
the ``.mo`` compiled from it when the wheel is built). Installed as ``bot.translations``; found
through ``bot.i18n.locale_dir``."""
