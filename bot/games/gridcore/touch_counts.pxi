# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's phase (b) over a GADDAG: the bit masks by which _gd_cut (touch_gaddag.pxi) counts the rack tiles a path can still take (issue 35, branch i35-big19).

cdef uint64_t *_GD_GE2 = NULL  # (and _GdAux's ge2, ge3)
cdef uint64_t *_GD_GE3 = NULL
cdef uint64_t _GD_RM2 = 0      # _gd_line: the rack's letters it holds at least twice, three times
cdef uint64_t _GD_RM3 = 0      # (kept by _gd_lay as S.rmask is; valid while _GD_RBIG is 0)
cdef int _GD_RBIG = 0          # 1: the rack holds a letter more than three times (_gd_cut counts by its loop)


cdef int _ge_masks(CGraph G, uint64_t *ge2, uint64_t *ge3) noexcept:
    """Per node of ``G`` the letters its ``most`` holds at least twice (``ge2``) and at
    least three times (``ge3``)."""
    cdef Py_ssize_t i
    cdef int li, nl = G.nl
    cdef uint8_t *row
    cdef uint64_t a, b, m
    for i in range(G.n):
        row = &G.most[i * nl]
        a = b = 0
        m = G.reach[i]  # (a letter a path holds at all)
        while m:
            li = sl_ctz(m)
            m &= m - 1
            if row[li] >= 2:
                a |= (<uint64_t>1) << li
                if row[li] >= 3:
                    b |= (<uint64_t>1) << li
        ge2[i] = a
        ge3[i] = b
    return 0


cdef int _gd_rack_masks(_Search S) noexcept:
    """Set ``_GD_RM2``, ``_GD_RM3`` and ``_GD_RBIG`` from the rack in ``S`` (its
    ``counts``; ``S.rmask`` holds the letters it holds at all)."""
    global _GD_RM2, _GD_RM3, _GD_RBIG
    cdef int li
    _GD_RM2 = _GD_RM3 = 0
    _GD_RBIG = 0
    for li in range(S.g.nl):
        if S.counts[li] >= 2:
            _GD_RM2 |= (<uint64_t>1) << li
            if S.counts[li] >= 3:
                _GD_RM3 |= (<uint64_t>1) << li
                if S.counts[li] > 3:
                    _GD_RBIG = 1
    return 0
