# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's phase (b), the TouchSearcher's anchors: left parts cut by the letters the squares they must reach hold at exact depths.


cdef long long _LEFT_STEPS = 0   # _left_touch's calls (part of _STEPS), for benches


def left_steps():
    """How many of the search steps (:func:`steps`) were the TouchSearcher's left parts
    (:func:`_left_touch`): for benches."""
    return _LEFT_STEPS


cdef uint64_t _WANT[8]   # _touch_anchor: per square from the anchor on (up to 8, before the square to reach) the letters it takes
cdef int _NW             # (how many)
cdef uint64_t _WANTQ     # the letters the square to reach takes
cdef int _QOFF           # its distance from the anchor


cdef inline int _aligned(_Search S, int32_t node, int emax) noexcept:
    """Bit 0 set when a left part at ``node`` can end here (``e = 0``), bit 1 when it can
    instead get ``e`` more rack tiles first, for some ``1 <= e <= emax``: the paths of
    ``node`` (:class:`_ReachAt`: the letters a path to a word's end holds at each depth)
    hold a rack letter at each depth below ``e`` (the free squares still before the
    anchor) and, at depth ``e + j``, a letter square ``j`` from the anchor takes, for
    the square to reach (``_QOFF``, ``_WANTQ``) and up to 8 squares before it
    (``_WANT``, set by :func:`_touch_anchor`): the tile there, or a letter its
    cross-check allows and the rack can lay."""
    cdef int h = S.g.height[node], e, j, ok, out = 0, top
    cdef uint64_t *R = &S.reach_at[S.reach_off[node]]
    cdef uint64_t pm = S.pmask
    top = h - 1 - _QOFF  # (no path is longer than the height)
    if top > emax:
        top = emax
    e = 0
    while e <= top:
        if e > 0 and not (R[e - 1] & pm):
            break  # a rack letter on each square before the anchor (so for every larger e too)
        if R[e + _QOFF] & _WANTQ:
            ok = 1
            for j in range(_NW):
                if not (R[e + j] & _WANT[j]):
                    ok = 0
                    break
            if ok:
                if e == 0:
                    out = 1
                else:
                    return out | 2
        e += 1
    return out


cdef int _left_touch(_Search S, int32_t node, int depth, int limit, int a, int lsum) except -1:
    """:meth:`_Search.with_left` for the TouchSearcher: every left part of the rack ending
    left of anchor ``a``, extended right from ``a``; a left part is cut unless, for some
    number of tiles it can still get (none: it ends here), the paths of its node hold the
    letters of the squares the word must reach at their exact depths (:func:`_aligned`;
    ``with_left`` knows only that the letter of the first such square comes somewhere
    deeper when the left part grows).  The same moves in the same order."""
    global _STEPS, _LEFT_STEPS
    _STEPS += 1
    _LEFT_STEPS += 1
    cdef CGraph g = S.g
    cdef int i, c, s, msum, wmul, li, k, h, emax, al = 1
    cdef int32_t e, ch
    cdef uint64_t m, bit
    if depth > 0 and S.thr > 0 and S.lpb[depth] < S.thr:
        return 0  # no word with a left part this long or longer reaches the threshold
    if depth > 0:
        if S.thr > 0 and S.s.plain and not S.s.cross_score:
            if S.left_bound(node, depth, a, lsum) < S.thr:
                return 0
        emax = limit - depth
        if emax > S.maxlen - depth:
            emax = S.maxlen - depth
        al = _aligned(S, node, emax)
        if al == 0:
            return 0
        if S.min_tiles:
            h = g.height[node]
            if depth + (h if h < S.left else S.left) < S.min_tiles:
                return 0
            if depth + S.usable(node) < S.min_tiles:
                return 0
            if depth + (limit - depth) + S.empties(a, a + h, S.min_tiles) < S.min_tiles:
                return 0
    if depth > 0 and g.mask[node] != 0 and (al & 1):
        s = a - depth
        if not (S.lnxt[s] >= S.size):
            msum = 0
            wmul = 1
            for i in range(depth):
                c = s + i
                li = S.lp_li[i]
                S.line[c] = li
                S.lch[c] = g.lchar[li]
                S.blank_at[c] = S.lp_b[i]
                S.is_new[c] = 1
                if not S.lp_b[i]:
                    msum += S.s.val[li] * S.llm[c]
                wmul *= S.lwm[c]
            S.start = s
            S.first_placed = s
            S.extend(node, a, msum, wmul, 0, depth)
            for i in range(depth):
                c = s + i
                S.line[c] = EMPTY
                S.lch[c] = u'.'
                S.blank_at[c] = 0
                S.is_new[c] = 0
    if depth >= limit or depth >= S.maxlen or (depth > 0 and not (al & 2)):
        return 0
    m = g.mask[node]
    e = g.first[node]
    while m:
        li = sl_ctz(m)
        bit = (<uint64_t>1) << li
        m ^= bit
        ch = g.child[e]
        e += 1
        S.lp_li[depth] = li
        if S.counts[li]:
            S.counts[li] -= 1
            if S.counts[li] == 0:
                S.rmask ^= bit
            S.left -= 1
            S.lp_b[depth] = 0
            _left_touch(S, ch, depth + 1, limit, a, lsum + S.s.val[li])
            S.left += 1
            S.counts[li] += 1
            S.rmask |= bit
        k = S.s.kind_of[li]
        if k >= 0 and S.bl[k]:
            S.bl[k] -= 1
            S.nbl -= 1
            S.left -= 1
            S.lp_b[depth] = 1
            _left_touch(S, ch, depth + 1, limit, a, lsum)
            S.lp_b[depth] = 0
            S.left += 1
            S.nbl += 1
            S.bl[k] += 1
    return 0


cdef int _touch_anchor(_Search S, int p, int r, int a, long *lpb) except -1:
    """:meth:`_Search.run_anchor` for the TouchSearcher (``nxt_on``, the reach tables
    set): the same moves through anchor ``a`` of line ``r`` of pass ``p``, in the same
    order, the left parts from :func:`_left_touch`.  ``lpb``: the anchor's bounds per
    left-part length as ``anchor_bound(a, lo, lpb)`` left them (``lo``: the first of the
    free squares before the anchor), not computed again."""
    cdef CGraph g = S.g
    global _NW, _WANTQ, _QOFF
    cdef int c, j, q, limit, size = S.size
    cdef int32_t node
    S.set_line(p, r)
    S.anchor = a
    if a > 0 and S.line[a - 1] != EMPTY:
        return S.run_anchor(p, r, a)  # (no left part: the word starts at the tiles before a)
    limit = 0
    c = a - 1
    while c >= 0 and S.line[c] == EMPTY and not S.is_anchor(c):
        limit += 1
        c -= 1
    if S.lnxt[a - limit] >= size:
        return 0
    S.start = a
    S.extend(0, a, 0, 1, 0, 0)
    if limit:
        q = S.lnxt[a]
        if q >= size:
            return 0
        _QOFF = q - a
        _WANTQ = (<uint64_t>1) << S.line[q] if S.line[q] != EMPTY else S.lok[q] & S.pmask
        _NW = q - a if q - a < 8 else 8
        for j in range(_NW):
            _WANT[j] = (<uint64_t>1) << S.line[a + j] if S.line[a + j] != EMPTY else S.lok[a + j] & S.pmask
        memcpy(S.lpb, lpb, (limit + 2) * sizeof(long))
        _left_touch(S, 0, 0, limit, a, 0)
    return 0
