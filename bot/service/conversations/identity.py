"""Personal codes: hashed with scrypt (stdlib), checked in constant time, never stored,
echoed or logged in clear. Source: issue "nobody impersonated"; a league may require a
code on every submission (``Code: ...``), and game-master commands need the GM's code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re

_N, _R, _P = 2 ** 14, 8, 1
CODE_LINE = re.compile(r"^\s*(?:code|kennwort|passwort|pin)\s*[:=]\s*(\S.*?)\s*$", re.I | re.M)


def hash_code(code: str) -> str:
    """``scrypt$<salt>$<hash>`` for ``code`` (base64, 16-byte random salt)."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(code.strip().encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return "scrypt$" + base64.b64encode(salt).decode() + "$" + base64.b64encode(digest).decode()


def check_code(code: str | None, stored: str | None) -> bool:
    """True when ``code`` matches the hash ``stored`` (False for a missing code or hash)."""
    if not code or not stored or not stored.startswith("scrypt$"):
        return False
    _, salt, digest = stored.split("$", 2)
    got = hashlib.scrypt(code.strip().encode(), salt=base64.b64decode(salt), n=_N, r=_R, p=_P, dklen=32)
    return hmac.compare_digest(got, base64.b64decode(digest))


def take_code(text: str) -> tuple[str | None, str]:
    """(the code written in ``text`` or None, ``text`` without any code line)."""
    m = CODE_LINE.search(text)
    return (m.group(1) if m else None), CODE_LINE.sub("", text)
