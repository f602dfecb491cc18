# Part of bot/games/_gridcore.pyx (included there: one compilation unit). can_lay: can a rack lay a word of at least min_tiles tiles (Typ-Dom's plans), with the words that proved it kept.

#: How many racks that said no ``can_lay`` keeps per cache (the most recently useful first).
cdef int _NO_KEEP = 2048
cdef object _CANLAY_S = None  # can_lay's _Search, kept between calls


cdef int _can_lay(_Search S, int32_t node, int depth, int used, int extra, int need_extra) noexcept:
    """Whether some word of the graph, read on from ``node`` (``depth`` letters so far,
    ``used`` of them rack tiles, ``extra`` other letters), holds at least ``S.min_tiles``
    tiles of the rack left in ``S`` (``counts``, ``bl``) and, with ``need_extra``, at
    least one letter that is no rack tile (a table tile).  Ignores the board: a
    necessary condition for a move laying ``min_tiles`` tiles.  A letter the rack holds
    is taken from the rack before a Jolly, and once a word has a letter from elsewhere,
    a letter is taken from elsewhere only when neither rack nor Jolly has it (any word
    the other choices find is found with the same count or more)."""
    global _LAY_STEPS
    _LAY_STEPS += 1
    cdef CGraph g = S.g
    cdef int li, k, took
    cdef int32_t e, ch
    cdef uint64_t m, bit
    if g.term[node] and depth >= 2 and used >= S.min_tiles and (extra or not need_extra):
        S.wlen = depth  # (the word: S.wpath[:depth])
        return 1
    if depth >= S.size:
        return 0
    if used + S.usable(node) < S.min_tiles:
        return 0
    m = g.mask[node]
    e = g.first[node]
    while m:
        li = sl_ctz(m)
        bit = (<uint64_t>1) << li
        m ^= bit
        ch = g.child[e]
        e += 1
        took = 0
        S.wpath[depth] = li
        if S.counts[li]:
            took = 1
            S.counts[li] -= 1
            if S.counts[li] == 0:
                S.rmask ^= bit
            k = _can_lay(S, ch, depth + 1, used + 1, extra, need_extra)
            S.counts[li] += 1
            S.rmask |= bit
            if k:
                return 1
        else:
            k = S.s.kind_of[li]
            if k >= 0 and S.bl[k]:
                took = 1
                S.bl[k] -= 1
                S.nbl -= 1
                k = _can_lay(S, ch, depth + 1, used + 1, extra, need_extra)
                S.nbl += 1
                S.bl[S.s.kind_of[li]] += 1
                if k:
                    return 1
        if not took or (need_extra and not extra):
            if _can_lay(S, ch, depth + 1, used, extra + 1, need_extra):
                return 1
    return 0


def can_lay(root, rack, int min_tiles, spec, cache=None):
    """Whether some word of the graph holds at least ``min_tiles`` tiles of ``rack`` and a
    letter more (a table tile; ``spec.require_old``): :func:`search` on a table with
    tiles finds no move laying ``min_tiles`` tiles when this is False.  Memoised in
    ``cache`` under the key :func:`search` uses (Typ-Dom's plan search asks before it
    builds the table a second placement is searched on)."""
    return _can_lay_q(root, rack, min_tiles, spec, cache)


cdef object _can_lay_q(root, rack, int min_tiles, spec, cache):
    """:func:`can_lay` (the core's callers call it without the Python call)."""
    cdef CGraph g
    cdef CSpec s
    cdef _Search S
    cdef int i, li, nv
    cdef Py_UCS4 uc
    # (the memo first: most calls of a plan ask again; the key's last two are the
    # CSpec's require_old and size, read from spec as _cspec reads them)
    fkey = ("can_lay", rack, min_tiles, bool(spec.require_old), spec.size)
    if cache is None:
        can = None
    elif type(cache) is dict:
        can = (<dict>cache).get(fkey)  # (a plain dict: no method call)
    else:
        can = cache.get(fkey)
    if can is not None:
        return can
    g = compiled_graph(root)
    s = _cspec(g, spec)
    # one _Search for every call (its allocation zeroed about 70 KB, 39,000 instructions:
    # more than the rest of an answer from the kept words); every field the walk reads is
    # set below, and the walk gives back what it takes. Taken while in use, as search()
    # takes its _SPARE: a call meanwhile (another thread) makes its own
    global _CANLAY_S
    S = <_Search>_CANLAY_S if _CANLAY_S is not None else _Search()
    _CANLAY_S = None
    S.g = g
    S.s = s
    S.size = s.size
    memset(S.counts, 0, sizeof(S.counts))
    for i in range(MAXK):
        S.bl[i] = 0
    n = 0
    for rch in rack:
        # (an ASCII character by the CSpec's tables: a Jolly, or a capital the graph
        # holds, as the general branches below would take it)
        uc = rch
        if uc < 128:
            if s.bkind[uc] >= 0:
                S.bl[s.bkind[uc]] += 1
                n += 1
                continue
            if u'A' <= uc <= u'Z' and g.cpidx[uc] != NOLETTER:
                S.counts[g.cpidx[uc]] += 1
                n += 1
                continue
        if rch in s.blank_chars:
            S.bl[s.blank_chars[rch]] += 1
        elif rch == "*" and s.nkinds:
            S.bl[0] += 1
        elif rch.isalpha():
            li = _letter_index(g, rch.upper())
            if li != NOLETTER:
                S.counts[li] += 1
        else:
            continue
        n += 1
    S.rmask = 0
    S.nbl = 0
    for i in range(g.nl):
        if S.counts[i]:
            S.rmask |= (<uint64_t>1) << i
    for i in range(MAXK):
        S.nbl += S.bl[i]
    S.min_tiles = min_tiles
    if min_tiles > n:
        can = False
    elif min_tiles <= 0:
        can = True
    else:
        _ensure_most(g)
        # words that said yes before (in this cache) first: the racks asked about in a
        # plan differ by a few tiles, so one word often answers many of them
        wl = None
        can = False
        if cache is not None:
            wkey = ("can_lay witnesses", bool(s.require_old), s.size)
            wl = cache.get(wkey)
            if wl is None:
                wl = cache[wkey] = []
            for i in range(len(wl)):
                if _witness_fits(S, wl[i], min_tiles, s.require_old):
                    can = True
                    if i:
                        wl.insert(0, wl.pop(i))
                    break
        if not can:
            # a no for a sub-rack with at least this slack first (see _no_implies): the
            # racks a plan asks about are the rack less each first placement's tiles, so
            # most of them hold one that said no before (issue 35)
            nos = None
            code = None
            implied = False
            nv = S.nbl
            for i in range(g.nl):
                nv += S.counts[i]
            if cache is not None and nv >= min_tiles:
                nkey = ("can_lay nos", bool(s.require_old), s.size)
                nos = cache.get(nkey)
                if nos is None:
                    nos = cache[nkey] = []
                code = _no_code(S, nv, nv - min_tiles)
                for i in range(len(nos)):
                    if _no_implies(nos[i], code, g.nl):
                        implied = True
                        if i:
                            nos.insert(0, nos.pop(i))
                        break
            if not implied:
                can = _can_lay(S, 0, 0, 0, 0, s.require_old) != 0
                if can and wl is not None:
                    wl.insert(0, _witness_code(S))
                    if len(wl) > 64:
                        wl.pop()
                elif not can and nos is not None:
                    nos.insert(0, code)
                    if len(nos) > _NO_KEEP:
                        nos.pop()
    if cache is not None:
        cache[fkey] = can
    _CANLAY_S = S  # (given back; an exception above only loses it)
    return can


cdef bytes _witness_code(_Search S):
    """The word ``_can_lay`` said yes with (``S.wpath[:S.wlen]``) as bytes: its length,
    then per letter index how often it holds the letter."""
    cdef unsigned char buf[65]
    cdef int i
    memset(buf, 0, sizeof(buf))
    buf[0] = <unsigned char>S.wlen
    for i in range(S.wlen):
        buf[1 + S.wpath[i]] += 1
    return PyBytes_FromStringAndSize(<char *>buf, 1 + S.g.nl)


cdef int _witness_fits(_Search S, bytes code, int need, int need_extra) except -1:
    """Whether the word of ``code`` (:func:`_witness_code`) holds at least ``need`` tiles
    of the rack in ``S`` (``counts``, ``bl``) and, with ``need_extra``, a letter more:
    each of its letters taken from the rack if it holds the letter, else from a Jolly of
    the letter's kind while there is one (the most tiles such a word can hold; the
    answer :func:`_can_lay` would give for this one word)."""
    cdef const unsigned char *w = code
    cdef int n = w[0], li, x, k, used = 0
    cdef int rem[MAXK]
    for k in range(MAXK):
        rem[k] = 0
    for li in range(S.g.nl):
        x = w[1 + li]
        if x == 0:
            continue
        if x <= S.counts[li]:
            used += x
        else:
            used += S.counts[li]
            k = S.s.kind_of[li]
            if k >= 0:
                rem[k] += x - S.counts[li]
    for k in range(MAXK):
        used += rem[k] if rem[k] < S.bl[k] else S.bl[k]
    if need_extra and used > n - 1:
        used = n - 1  # (one letter must come from the table)
    return 1 if (n >= 2 and used >= need) else 0


cdef bytes _no_code(_Search S, int n, int slack):
    """The rack in ``S`` (``counts``, ``bl``: ``n`` tiles, letters the graph lacks left
    out) with the ``slack`` of a query (``n - min_tiles``) as bytes for :func:`_no_implies`: the slack, ``n``, the mask of the
    letters held (8 bytes), the count per letter index, the Jollys per kind."""
    cdef unsigned char buf[10 + 64 + MAXK]
    cdef int i, nl = S.g.nl
    cdef uint64_t mask = S.rmask
    buf[0] = <unsigned char>slack
    buf[1] = <unsigned char>n
    memcpy(&buf[2], &mask, 8)
    for i in range(nl):
        buf[10 + i] = <unsigned char>S.counts[i]
    for i in range(MAXK):
        buf[10 + nl + i] = <unsigned char>S.bl[i]
    return PyBytes_FromStringAndSize(<char *>buf, 10 + nl + MAXK)


cdef int _no_implies(bytes known, bytes query, int nl) except -1:
    """Whether ``can_lay`` saying no for the rack of ``known`` (:func:`_no_code`) means
    no for the rack of ``query``: ``known``'s tiles lie within ``query``'s (each letter
    and each Jolly kind at most as often) and its slack (tiles a word may leave out) is at
    least ``query``'s.

    Why: say a word holds ``query``'s tiles but at most ``s_q`` of them (and a letter
    more). Each of ``known``'s tiles is one of ``query``'s, so the word holds all of
    ``known``'s but at most ``s_q`` (the tiles it leaves out lie among ``query``'s), and
    the letters it took from the other tiles of ``query`` only add to its letters from
    elsewhere. With ``s_q <= s_k`` that is a yes for ``known``. So a no for ``known``
    is a no for ``query``. (The Kreuzwort-Spiel's plans ask about the rack less each
    first placement's tiles with one slack; on the ``--big`` racks 91-96 % of the racks
    that say no hold one that said no before.)"""
    cdef const unsigned char *k = known
    cdef const unsigned char *q = query
    cdef uint64_t km, qm
    cdef int i
    if k[0] < q[0] or k[1] > q[1]:
        return 0
    memcpy(&km, &k[2], 8)
    memcpy(&qm, &q[2], 8)
    if km & ~qm:
        return 0
    for i in range(10, 10 + nl + MAXK):
        if k[i] > q[i]:
            return 0
    return 1
