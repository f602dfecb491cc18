"""Reading hunspell dictionaries: the .aff flags that mark non-words, the .dic
entries, hunspell's own ``unmunch`` expansion, and which expanded lines are words.
Shared by every source dictionary (:mod:`bot.lexicon.sources`)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from bot.lexicon.errors import LexiconError

_INSTALL_HINT = (
    "Bitte installieren / please install: apt-get install hunspell-de-de hunspell-tools"
)


@dataclass
class _Aff:
    encoding: str = "UTF-8"
    flag_type: str = "char"
    excluded: set[str] = field(default_factory=set)  # ONLYINCOMPOUND, NEEDAFFIX
    forbidden: set[str] = field(default_factory=set)  # FORBIDDENWORD


def _read_aff(aff: Path) -> _Aff:
    info = _Aff()
    with open(aff, "rb") as fh:
        raw = fh.read()
    for line in raw.decode("latin-1").splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        key, val = parts[0], parts[1]
        if key == "SET":
            info.encoding = val
        elif key == "FLAG":
            info.flag_type = val.lower()
    text = raw.decode(info.encoding, errors="replace")
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        if parts[0] in ("ONLYINCOMPOUND", "NEEDAFFIX"):
            info.excluded.add(parts[1])
        elif parts[0] == "FORBIDDENWORD":
            info.forbidden.add(parts[1])
    return info


def _split_flags(flags: str, flag_type: str) -> set[str]:
    if flag_type == "long":
        return {flags[i:i + 2] for i in range(0, len(flags), 2)}
    if flag_type == "num":
        return set(flags.split(","))
    return set(flags)  # "char" and "utf-8"


_ENTRY_SLASH = re.compile(r"(?<!\\)/")


def _read_dic(dic: Path, aff: _Aff) -> tuple[str | None, list[str], list[str], list[str]]:
    """Return (version, kept entries, forbidden entries, kept stems)."""
    with open(dic, encoding=aff.encoding, errors="replace") as fh:
        lines = fh.read().splitlines()
    version = None
    kept: list[str] = []
    forbidden: list[str] = []
    stems: list[str] = []
    for i, line in enumerate(lines):
        if i == 0 and line.strip().isdigit():
            continue
        if not line.strip() or line[0] in "\t #":
            m = re.search(r"Version:\s*(\S+)", line)
            if m and version is None:
                version = m.group(1)
            continue
        entry = line.split("\t", 1)[0].rstrip()  # drop morphological fields
        parts = _ENTRY_SLASH.split(entry, 1)
        stem = parts[0].replace("\\/", "/")
        flags = _split_flags(parts[1], aff.flag_type) if len(parts) > 1 else set()
        if flags & aff.forbidden:
            forbidden.append(entry)
        elif flags & aff.excluded:
            continue
        else:
            kept.append(entry)
            stems.append(stem)
    return version, kept, forbidden, stems


def _unmunch(entries: list[str], aff: Path, encoding: str, tmp: Path, name: str) -> list[str]:
    exe = shutil.which("unmunch")
    if exe is None:
        raise LexiconError(
            "unmunch nicht gefunden / unmunch not found. " + _INSTALL_HINT)
    if not entries:
        return []
    dic = tmp / f"{name}.dic"
    with open(dic, "w", encoding=encoding, errors="replace") as fh:
        fh.write(f"{len(entries)}\n")
        fh.write("\n".join(entries))
        fh.write("\n")
    proc = subprocess.run([exe, str(dic), str(aff)], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=False)
    out = proc.stdout.decode(encoding, errors="replace").splitlines()
    if proc.returncode != 0 and not out:
        raise LexiconError(
            f"unmunch ist fehlgeschlagen / unmunch failed (exit {proc.returncode}) "
            f"for {aff}")
    return out


_JUNK = re.compile(r"[-/|.\d\s]")
_HAS_VOWEL = re.compile(r"[aeiouyäöüAEIOUYÄÖÜàâéêèëîïôûñáíóú]")


def _form_reason(line: str) -> str | None:
    """Why an unmunch output line is not a word (a short key), or ``None`` if it is."""
    if not line or line[0] in "\t ":
        return "header"
    if line[0] == "-":
        return "fragment"
    if "." in line:
        return "abbreviation"
    if _JUNK.search(line):
        return "fragment"
    if not line[1:].islower():  # also catches one-letter lines
        return "acronym" if len(line) > 1 else "abbreviation"
    if not _HAS_VOWEL.search(line):
        return "abbreviation"
    return None
