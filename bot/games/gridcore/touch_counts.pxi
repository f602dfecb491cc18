# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's phase (b) over a GADDAG: the bit masks by which _gd_cut (touch_gaddag.pxi) counts the rack tiles a path can still take (issue 35, branch i35-big19).

cdef int *_GD_VMAX = NULL      # _gd_line: per GADDAG node, the most a path to a word's end is worth
cdef uint8_t *_GD_MOST = NULL  # (and per node and letter, the most times such a path holds it)
cdef int _GD_NL = 0
cdef uint64_t *_GD_GE2 = NULL  # (and _GdAux's ge2, ge3)
cdef uint64_t *_GD_GE3 = NULL
cdef uint64_t _GD_RM2 = 0      # _gd_line: the rack's letters it holds at least twice, three times
cdef uint64_t _GD_RM3 = 0      # (kept by _gd_lay as S.rmask is; valid while _GD_MASKS is 1)
cdef int _GD_MASKS = 0         # 1: the masks above are the current search's (set and cleared by _gd_line and _gd_listing; 0: the rack
                               # holds a letter more than three times: _gd_cut's loop)
cdef uint64_t _GD_KM[MAXK]     # per Jolly kind, the letters it can stand for (set by _gd_rack_masks)
cdef uint64_t _GD_JM = 0       # the letters a Jolly left can stand for (kept by _gd_lay as S.bl is)


cdef int _ge_node(CGraph G, int32_t node, uint64_t *ge2, uint64_t *ge3, uint8_t *done) noexcept:
    """Fill in ``ge2`` and ``ge3`` of ``node`` and below: a path from ``node`` holds a letter
    k times when a path from a child does, or when the edge to that child is the letter
    and a path from the child holds it k - 1 times (``reach``: once)."""
    cdef int32_t e, c
    cdef uint64_t m, bit, a = 0, b = 0
    cdef int li
    if done[node]:
        return 0
    m = G.mask[node]
    e = G.first[node]
    while m:
        li = sl_ctz(m)
        bit = (<uint64_t>1) << li
        m ^= bit
        c = G.child[e]
        e += 1
        _ge_node(G, c, ge2, ge3, done)
        a |= ge2[c] | (bit & G.reach[c])
        b |= ge3[c] | (bit & ge2[c])
    ge2[node] = a
    ge3[node] = b
    done[node] = 1
    return 0


cdef int _ge_masks(CGraph G, uint64_t *ge2, uint64_t *ge3) except -1:
    """Per node of ``G`` the letters a path from it to a word's end holds at least twice
    (``ge2``) and at least three times (``ge3``): ``most`` >= 2 and >= 3, in one pass over
    the edges."""
    cdef Py_ssize_t i
    cdef uint8_t *done = <uint8_t *>malloc(G.n)
    if done == NULL:
        raise MemoryError()
    memset(done, 0, G.n)
    for i in range(G.n):
        _ge_node(G, <int32_t>i, ge2, ge3, done)
    free(done)
    return 0


cdef int _gd_rack_masks(_Search S) noexcept:
    """Set ``_GD_RM2`` and ``_GD_RM3`` from the rack in ``S`` (its ``counts``;
    ``S.rmask`` holds the letters it holds at all) and ``_GD_MASKS`` to 1, or to 0 when
    it holds a letter more than three times; ``_GD_KM`` (per Jolly kind its letters) and
    ``_GD_JM`` (the letters of the kinds the rack holds a Jolly of, ``S.bl``), which
    :func:`_gd_lay` reads and keeps."""
    global _GD_RM2, _GD_RM3, _GD_MASKS, _GD_JM
    cdef int li, k
    _GD_RM2 = _GD_RM3 = 0
    _GD_MASKS = 1
    for k in range(MAXK):
        _GD_KM[k] = 0
    for li in range(S.g.nl):
        k = S.s.kind_of[li]
        if k >= 0:
            _GD_KM[k] |= (<uint64_t>1) << li
    _GD_JM = 0
    for k in range(MAXK):
        if S.bl[k]:
            _GD_JM |= _GD_KM[k]
    for li in range(S.g.nl):
        if S.counts[li] >= 2:
            _GD_RM2 |= (<uint64_t>1) << li
            if S.counts[li] >= 3:
                _GD_RM3 |= (<uint64_t>1) << li
                if S.counts[li] > 3:
                    _GD_MASKS = 0
    return 0
