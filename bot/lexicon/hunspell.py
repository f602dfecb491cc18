"""Reading hunspell dictionaries: the .aff flags that mark non-words, the .dic
entries, hunspell's own ``unmunch`` expansion, an affix expansion of our own for
dictionaries ``unmunch`` cannot read (two-character flags with morphological fields,
as in OpenTaal's ``nl.aff``), the check of expanded forms by hunspell itself, and which
expanded lines are words. Shared by every source dictionary (:mod:`bot.lexicon.sources`)."""

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


def install_hint(*packages: str) -> str:
    """The German/English sentence naming the apt packages to install."""
    return "Bitte installieren / please install: apt-get install " + " ".join(packages)


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
_HAS_VOWEL = re.compile(r"[aeiouyäöüAEIOUYÄÖÜàâéêèëîïôûñáíóúĳĲ]")  # ĳ: Dutch ligature IJ


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


# ---------------------------------------------------------------------------------------
# Our own affix expansion (for dictionaries unmunch misreads)


@dataclass(frozen=True)
class _Rule:
    """One PFX/SFX line: strip, add, continuation flags, condition (compiled)."""

    kind: str          # "PFX" or "SFX"
    cross: bool        # cross product allowed (the Y/N of the affix header)
    strip: str
    add: str
    cont: frozenset
    cond: "re.Pattern[str]"

    def apply(self, word: str) -> str | None:
        """The affixed form, or None when the condition or the strip does not match."""
        if not self.cond.search(word):
            return None
        if self.kind == "SFX":
            if self.strip and not word.endswith(self.strip):
                return None
            return (word[:len(word) - len(self.strip)] if self.strip else word) + self.add
        if self.strip and not word.startswith(self.strip):
            return None
        return self.add + word[len(self.strip):]


_MORPH = ("ts:", "st:", "po:", "is:", "ds:", "al:", "ph:", "sp:", "pa:", "dp:", "ip:", "tp:")


def _read_rules(aff: Path, info: _Aff) -> dict[str, list[_Rule]]:
    """Every PFX/SFX rule of ``aff`` by flag (hunspell(5): ``SFX flag strip add[/flags]
    [condition [morphology]]``; a missing condition is ``.``)."""
    rules: dict[str, list[_Rule]] = {}
    cross: dict[str, bool] = {}
    with open(aff, encoding=info.encoding, errors="replace") as fh:
        for line in fh:
            p = line.split()
            if len(p) < 4 or p[0] not in ("PFX", "SFX"):
                continue
            kind, flag = p[0], p[1]
            if flag not in cross:  # the header line: PFX flag Y|N count
                cross[flag] = p[2] == "Y"
                continue
            add, _, cont = p[3].partition("/")
            cond = p[4] if len(p) > 4 and not p[4].startswith(_MORPH) else "."
            pattern = ("^(?:%s)" if kind == "PFX" else "(?:%s)$") % cond
            rules.setdefault(flag, []).append(_Rule(
                kind, cross[flag], "" if p[2] == "0" else p[2], "" if add == "0" else add,
                frozenset(_split_flags(cont, info.flag_type)) if cont else frozenset(),
                re.compile(pattern)))
    return rules


def _expand_entry(stem: str, flags: set[str], rules: dict[str, list[_Rule]], out: set[str]) -> None:
    """Add ``stem`` and its affixed forms to ``out``: suffixes, a second suffix from a
    suffix's continuation flags (hunspell's two-fold suffixes), prefixes, and prefixes on
    suffixed forms where both allow the cross product. May produce forms hunspell would
    not accept (a continuation flag meant for compounding); :func:`_hunspell_accepts`
    removes them."""
    out.add(stem)
    suffixed: list[tuple[str, bool, frozenset]] = []
    for f in flags:
        for r in rules.get(f, ()):
            if r.kind != "SFX" or (w := r.apply(stem)) is None:
                continue
            out.add(w)
            suffixed.append((w, r.cross, r.cont))
            for f2 in r.cont:
                for r2 in rules.get(f2, ()):
                    if r2.kind == "SFX" and (w2 := r2.apply(w)) is not None:
                        out.add(w2)
                        suffixed.append((w2, r.cross and r2.cross, r2.cont))
    for f in flags:
        for r in rules.get(f, ()):
            if r.kind != "PFX":
                continue
            if (w := r.apply(stem)) is not None:
                out.add(w)
            if r.cross:
                for sw, scross, _ in suffixed:
                    if scross and (w := r.apply(sw)) is not None:
                        out.add(w)
    for sw, _, cont in suffixed:
        for f in cont:
            for r in rules.get(f, ()):
                if r.kind == "PFX" and (w := r.apply(sw)) is not None:
                    out.add(w)


def _expand(entries: list[str], aff: Path, info: _Aff) -> list[str]:
    """Every form of the dictionary ``entries`` (``stem/FLAGS`` lines) under the affix
    rules of ``aff``, by our own expansion (:func:`_expand_entry`); sorted."""
    rules = _read_rules(aff, info)
    out: set[str] = set()
    for entry in entries:
        parts = _ENTRY_SLASH.split(entry, 1)
        stem = parts[0].replace("\\/", "/")
        flags = _split_flags(parts[1], info.flag_type) if len(parts) > 1 else set()
        _expand_entry(stem, flags, rules, out)
    return sorted(out)


#: .aff keywords that switch on compounding; dropped for :func:`_hunspell_accepts`, so
#: a form counts only when a dictionary entry and its affixes make it (RULES.md:
#: "compounds only where the dictionary lists them").
_COMPOUND_KEYS = re.compile(r"^(COMPOUND\w*|ONLYINCOMPOUND|CHECKCOMPOUND\w*|FORCEUCASE)\b")


def _hunspell_accepts(forms: list[str], dic: Path, aff: Path, info: _Aff, tmp: Path, *,
                      packages: tuple[str, ...]) -> set[str]:
    """The ``forms`` that hunspell itself accepts with ``dic`` and ``aff`` when free
    compounding is switched off (``hunspell -G``: print the correct words). Raises
    :class:`LexiconError` naming ``packages`` when the ``hunspell`` program is missing."""
    exe = shutil.which("hunspell")
    if exe is None:
        raise LexiconError("hunspell nicht gefunden / hunspell not found. " + install_hint(*packages))
    base = tmp / "nocompound"
    text = aff.read_bytes().decode(info.encoding, errors="replace")
    kept = [ln for ln in text.splitlines() if not _COMPOUND_KEYS.match(ln)]
    (base.with_suffix(".aff")).write_text("\n".join(kept) + "\n", encoding=info.encoding, errors="replace")
    shutil.copyfile(dic, base.with_suffix(".dic"))
    proc = subprocess.run([exe, "-d", str(base), "-G", "-i", info.encoding],
                          input="\n".join(forms).encode(info.encoding, errors="replace"),
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    if proc.returncode != 0:
        raise LexiconError(f"hunspell ist fehlgeschlagen / hunspell failed (exit {proc.returncode}) for {aff}")
    accepted = set(proc.stdout.decode(info.encoding, errors="replace").split())
    # hunspell writes ĳ as ij on output (OCONV); keep the forms as the dictionary spells them
    return {f for f in forms if f in accepted or f.replace("ĳ", "ij").replace("Ĳ", "IJ") in accepted}
