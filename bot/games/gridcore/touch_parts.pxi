# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's phase (b), the TouchSearcher's helpers: the letters a word can hold at each depth (_ReachAt) and the racks a failed search dominates.


cdef class _ReachAt:
    """Per node of a graph and depth ``j`` (below the node's height): the letters a path
    from the node to a word's end holds as its ``j``-th letter (``j`` = 0: the next one),
    ``m``, and as its ``j``-th letter or a later one, ``ge``; a node's entries start at
    ``off[node]``."""
    cdef uint64_t *m
    cdef uint64_t *ge
    cdef Py_ssize_t *off
    cdef object graph

    def __dealloc__(self):
        free(self.m)
        free(self.ge)
        free(self.off)


cdef int _fill_reach(CGraph g, uint64_t *R, Py_ssize_t *off, uint8_t *state, int32_t node) noexcept:
    """Fill ``R`` for ``node`` and below; 1 when a word's end is reachable from it."""
    cdef int32_t e, c
    cdef uint64_t mm
    cdef int li, j, alive
    if state[node]:
        return state[node] == 2
    alive = g.term[node]
    mm = g.mask[node]
    e = g.first[node]
    while mm:
        li = sl_ctz(mm)
        mm &= mm - 1
        c = g.child[e]
        e += 1
        if _fill_reach(g, R, off, state, c):
            alive = 1
            R[off[node]] |= (<uint64_t>1) << li
            for j in range(1, g.height[c] + 1):  # (a node is higher than its children)
                R[off[node] + j] |= R[off[c] + j - 1]
    state[node] = 2 if alive else 1
    return alive


_REACH = {}


cdef _ReachAt _reach_for(CGraph g):
    """The :class:`_ReachAt` of ``g`` (built on first use, memoised per graph)."""
    hit = _REACH.get(id(g))
    if hit is not None and (<_ReachAt>hit).graph is g:
        return hit
    cdef _ReachAt out = _ReachAt()
    cdef uint8_t *state = <uint8_t *>malloc(g.n)
    cdef int32_t i
    cdef int j
    cdef uint64_t acc
    cdef Py_ssize_t total = 0
    out.off = <Py_ssize_t *>malloc((g.n + 1) * sizeof(Py_ssize_t))
    if out.off == NULL or state == NULL:
        free(state)
        raise MemoryError()
    for i in range(g.n):
        out.off[i] = total
        total += g.height[i]
    out.off[g.n] = total
    out.m = <uint64_t *>malloc((total + 1) * sizeof(uint64_t))
    out.ge = <uint64_t *>malloc((total + 1) * sizeof(uint64_t))
    if out.m == NULL or out.ge == NULL:
        free(state)
        raise MemoryError()
    memset(out.m, 0, (total + 1) * sizeof(uint64_t))
    memset(state, 0, g.n)
    for i in range(g.n):
        _fill_reach(g, out.m, out.off, state, i)
    free(state)
    for i in range(g.n):
        acc = 0
        for j in range(g.height[i] - 1, -1, -1):
            acc |= out.m[out.off[i] + j]
            out.ge[out.off[i] + j] = acc
    out.graph = g
    if len(_REACH) >= 4:
        _REACH.pop(next(iter(_REACH)))
    _REACH[id(g)] = out
    return out


cdef inline int _reach_ok(_Search S, int32_t node, int col, int s, int deeper) noexcept:
    """Whether a word at ``node`` whose next letter goes on square ``col`` can still hold
    square ``s`` (the first square it must reach, ``s >= col``): the tile there, or a
    letter its cross-check allows and the rack can lay.  True when ``s < col``.  With
    ``deeper``: whether a word reading on from ``node`` with one letter or more before
    the one on ``col`` can (a longer left part)."""
    cdef uint64_t want
    cdef uint64_t *R
    cdef int j, hi, h = S.g.height[node]
    if s < col:
        return 1
    if s - col >= h or s >= S.size:
        return 0  # (no path is that long)
    if S.line[s] != EMPTY:
        want = (<uint64_t>1) << S.line[s]
    else:
        want = S.lok[s] & S.pmask
    if not deeper:
        R = &S.reach_at[S.reach_off[node]]
        if not (R[s - col] & want):
            return 0
        # the word covers every square up to s: each must take a letter a path holds
        # at that depth (the tile there, or one its cross-check allows and the rack can
        # lay); the first few are checked
        hi = s if s < col + 6 else col + 6
        for j in range(col, hi):
            if S.line[j] != EMPTY:
                want = (<uint64_t>1) << S.line[j]
            else:
                want = S.lok[j] & S.pmask
            if not (R[j - col] & want):
                return 0
        return 1
    j = s - col + 1
    if j >= h:
        return 0
    return (S.reach_ge[S.reach_off[node] + j] & want) != 0


cdef bytes _rack_code(_Search S):
    """The rack in ``S`` (``counts`` per letter index, then ``bl`` per Jolly kind) as bytes."""
    cdef unsigned char buf[64 + MAXK]
    cdef int i, nl = S.g.nl
    for i in range(nl):
        buf[i] = <unsigned char>(S.counts[i] if S.counts[i] < 255 else 255)
    for i in range(MAXK):
        buf[nl + i] = <unsigned char>(S.bl[i] if S.bl[i] < 255 else 255)
    return PyBytes_FromStringAndSize(<char *>buf, nl + MAXK)


cdef int _dominated(_Search S, list fails) except -1:
    """Whether one of the racks ``fails`` (:func:`_rack_code`) can lay every move the rack
    in ``S`` can: it holds each of its Jollys, and each of its letters itself or in a
    Jolly of the letter's kind left over (every tile of such a move can be laid from it,
    on the same square with the same letter)."""
    cdef const unsigned char *f
    cdef int nl = S.g.nl, li, k, d, ok
    cdef int spare[MAXK]
    for code in fails:
        f = <bytes>code
        ok = 1
        for k in range(MAXK):
            spare[k] = f[nl + k] - S.bl[k]
            if spare[k] < 0:
                ok = 0
        li = 0
        while ok and li < nl:
            d = S.counts[li] - f[li]
            if d > 0:
                k = S.s.kind_of[li]
                if k < 0 or spare[k] < d:
                    ok = 0
                else:
                    spare[k] -= d
            li += 1
        if ok:
            return 1
    return 0


cdef struct _RackParse:
    int counts[64]
    int bl[MAXK]
    int P[64]
    int ntotal
    int R


cdef int _touch_rack(_Search S, dict racks, str rack, spec) except -1:
    """Set ``S``'s rack (``counts``, ``bl``, ``P``, ``R``) from ``rack`` as :func:`search`
    does; the parse is kept in ``racks`` (rack -> its :c:type:`_RackParse` as bytes), so
    a TouchSearcher parses each rack left once.  Returns the rack's tiles."""
    cdef CGraph g = S.g
    cdef CSpec s = S.s
    cdef _RackParse rp
    cdef int i, k, li, ntotal = 0, nvals
    hit = racks.get(rack)
    if hit is not None:
        memcpy(&rp, <char *>(<bytes>hit), sizeof(_RackParse))
        memcpy(S.counts, rp.counts, sizeof(S.counts))
        memcpy(S.bl, rp.bl, sizeof(S.bl))
        memcpy(S.P, rp.P, sizeof(S.P))
        S.R = rp.R
        return rp.ntotal
    memset(S.counts, 0, sizeof(S.counts))
    for k in range(MAXK):
        S.bl[k] = 0
    vals = []
    for rch in rack:
        if rch in s.blank_chars:
            S.bl[s.blank_chars[rch]] += 1
            vals.append(0)
            ntotal += 1
        elif rch == "*" and s.nkinds:
            S.bl[0] += 1
            vals.append(0)
            ntotal += 1
        elif rch.isalpha():
            u = rch.upper()
            ntotal += 1
            li = _letter_index(g, u)
            if li != NOLETTER:
                S.counts[li] += 1
                vals.append(spec.values.get(u, 0))
    vals.sort(reverse=True)
    nvals = len(vals)
    S.P[0] = 0
    for i in range(1, 64):
        S.P[i] = S.P[i - 1] + (vals[i - 1] if i - 1 < nvals else 0)
    S.R = nvals
    memcpy(rp.counts, S.counts, sizeof(S.counts))
    memcpy(rp.bl, S.bl, sizeof(S.bl))
    memcpy(rp.P, S.P, sizeof(S.P))
    rp.ntotal = ntotal
    rp.R = nvals
    racks[rack] = PyBytes_FromStringAndSize(<char *>&rp, sizeof(_RackParse))
    return ntotal
