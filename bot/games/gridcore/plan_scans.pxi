# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's plan: the scans of a listing of Python records (the reference path's helpers).

# --- Typ-Dom's plan search (bot.games.typdom.movegen._best_plan): its scans of the listing


def usage_codes(list raws, dict inc, dict inc_blank):
    """Per raw search record the rack tiles it uses as one integer: the sum of ``inc[ch]``
    for a tile laid as itself and ``inc_blank[ch]`` for a Jolly laid as ``ch``
    (``movegen._multiset_code`` of its usage, with the increments ``1 << 6 * field``)."""
    cdef Py_ssize_t i, n = len(raws)
    out = [0] * n
    for i in range(n):
        code = 0
        for t in (<tuple>raws[i])[6]:
            code += inc_blank[t[1]] if t[2] else inc[t[1]]
        out[i] = code
    return out


def joining(list raws, int n_rack):
    """The raw records of joining placements that leave a tile in the rack: fewer than
    ``n_rack`` tiles, at least two table tiles in the word, in two or more groups
    (``movegen._raw_runs``)."""
    cdef Py_ssize_t i, n = len(raws)
    cdef int nt, start, L, p, runs, prev, old, j, np
    cdef char isnew[64]
    out = []
    for i in range(n):
        raw = <tuple>raws[i]
        nt = raw[1]
        word = raw[5]
        L = len(word)
        if nt >= n_rack or L - nt < 2 or L > 64:
            continue
        start = raw[4]
        for j in range(L):
            isnew[j] = 0
        for t in raw[6]:
            isnew[<int>t[0] - start] = 1
        runs = 0
        prev = 0
        for j in range(L):
            old = 0 if isnew[j] else 1
            if old and not prev:
                runs += 1
            prev = old
        if runs >= 2:
            out.append(raw)
    return out
