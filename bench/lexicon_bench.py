"""Benchmark of the shared lexicon (bot/lexicon/).

Measures, with a fresh temporary cache directory:

* ``build``: time of :func:`bot.lexicon.build` (s);
* ``load``: time to load the rondo lexicon in a fresh Python process (ms), so neither
  the in-process memo nor warm Python objects flatter it (the OS page cache may still
  hold the just-written files; ``load_cold`` drops nothing -- see the note printed);
* ``rss``: resident set size (``VmRSS`` from ``/proc/self/status``, MiB) of that process
  right after loading, of a baseline process that only imports the module, the delta,
  and the delta after iterating every word (the tries are mmapped, so pages come in on
  use).  ``resource.getrusage(...).ru_maxrss`` is printed too, but on Linux a child
  keeps its parent's peak across ``exec``, so after the build it shows the build's peak;
* ``lookups``: ``word in lexicon`` per second over 100k words (half real, half fake);
* ``has_prefix``: calls per second over 100k prefixes (half of real words, half random).

Run: ``python bench/lexicon_bench.py``.  Prints ``name: value unit`` lines.
No figure is asserted anywhere.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = r"""
import json, resource, sys, time
def status(key):  # kB, per address space (ru_maxrss survives exec on Linux)
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
t0 = time.perf_counter()
from bot import lexicon
t1 = time.perf_counter()
ms = touched = None
if sys.argv[2] == "load":
    lex = lexicon.load("rondo", sys.argv[1])
    ms = (time.perf_counter() - t1) * 1e3
    assert "MOND" in lex
    rss = status("VmRSS")
    for w in lex.words():  # touch every page of the word trie
        pass
    touched = status("VmRSS")
else:
    rss = status("VmRSS")
print(json.dumps({"load_ms": ms, "import_ms": (t1 - t0) * 1e3, "rss_kib": rss,
                  "rss_touched_kib": touched, "hwm_kib": status("VmHWM"),
                  "ru_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def _child(cache_dir: Path, what: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(cache_dir), what],
                         check=True, stdout=subprocess.PIPE, text=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    return json.loads(out.strip().splitlines()[-1])


def run(n: int = 100_000, seed: int = 0) -> dict:
    """Run the benchmark; return ``{name: (value, unit)}``."""
    from bot import lexicon

    results: dict[str, tuple[float, str]] = {}
    with tempfile.TemporaryDirectory(prefix="lexbench-") as tmp:
        cache = Path(tmp)
        t = time.perf_counter()
        stats = lexicon.build(cache)
        results["build"] = (time.perf_counter() - t, "s")
        results["words_rondo"] = (stats["alphabets"]["rondo"]["words"], "words")
        results["cache_size"] = (
            sum(p.stat().st_size for p in cache.iterdir()) / 2**20, "MiB")

        base = [_child(cache, "baseline") for _ in range(3)]
        loaded = [_child(cache, "load") for _ in range(3)]
        results["load"] = (min(x["load_ms"] for x in loaded), "ms")
        rss_base = min(x["rss_kib"] for x in base) / 1024
        rss_lex = min(x["rss_kib"] for x in loaded) / 1024
        rss_touched = min(x["rss_touched_kib"] for x in loaded) / 1024
        results["rss_baseline"] = (rss_base, "MiB")
        results["rss_with_lexicon"] = (rss_lex, "MiB")
        results["rss_delta"] = (rss_lex - rss_base, "MiB")
        results["rss_delta_after_full_scan"] = (rss_touched - rss_base, "MiB")
        results["ru_maxrss_child"] = (min(x["ru_maxrss_kib"] for x in loaded) / 1024,
                                      "MiB (inherits the parent's peak across exec)")

        lex = lexicon.load("rondo", cache)
        rng = random.Random(seed)
        real = rng.sample(list(lex.words()), n // 2)
        letters = lex.alphabet.letters
        fake = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10)))
                for _ in range(n - n // 2)]
        mix = real + fake
        rng.shuffle(mix)
        t = time.perf_counter()
        hits = sum(1 for w in mix if w in lex)
        results["lookups"] = (len(mix) / (time.perf_counter() - t), "1/s")
        results["lookup_hits"] = (hits, "words")

        prefixes = [w[: rng.randint(1, len(w))] for w in real] + [
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
            for _ in range(n - n // 2)]
        rng.shuffle(prefixes)
        has_prefix = lex.has_prefix
        t = time.perf_counter()
        for p in prefixes:
            has_prefix(p)
        results["has_prefix"] = (len(prefixes) / (time.perf_counter() - t), "1/s")

        league = lex.with_lists(allow=["WERKZEUG", "FREIZEIT"], deny=["TOR"])
        t = time.perf_counter()
        for w in mix:
            w in league  # noqa: B015
        results["lookups_league_view"] = (len(mix) / (time.perf_counter() - t), "1/s")
        lexicon._clear_memo()
    return results


def main() -> None:
    for name, (value, unit) in run().items():
        shown = f"{value:.0f}" if unit in ("1/s", "words") else f"{value:.3f}"
        print(f"{name}: {shown} {unit}")


if __name__ == "__main__":
    main()
