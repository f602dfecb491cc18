# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's phase (b), the TouchSearcher's anchors: left parts cut by the letters the squares they must reach hold at exact depths.


cdef long long _LEFT_STEPS = 0   # _left_touch's calls (part of _STEPS), for benches


def left_steps():
    """How many of the search steps (:func:`steps`) were the TouchSearcher's left parts
    (:func:`_left_touch`): for benches."""
    return _LEFT_STEPS


cdef inline int _reach_exact(_Search S, int32_t node, int col, int a, int q) noexcept:
    """Whether a word at ``node`` whose next letter goes on square ``col`` (a left-part
    square, ``col <= a``; the word's letters go on every square from ``col`` on) can hold
    the letter of each square from the anchor ``a`` up to 8 squares on and of ``q`` (the
    first square the word must reach, ``q >= a``) at its exact depth: the tile there, or a
    letter its cross-check allows and the rack can lay; and a rack letter on each
    left-part square before ``a``.  From :class:`_ReachAt` (letters a path to a word's end
    holds at each depth)."""
    cdef uint64_t want
    cdef uint64_t *R
    cdef int j, hi, h = S.g.height[node]
    if q < a:
        return 1  # (not for the TouchSearcher's lines: the left part covers it anyway)
    if q - col >= h or q >= S.size:
        return 0  # (no path is that long)
    R = &S.reach_at[S.reach_off[node]]
    if S.line[q] != EMPTY:
        want = (<uint64_t>1) << S.line[q]
    else:
        want = S.lok[q] & S.pmask
    if not (R[q - col] & want):
        return 0
    for j in range(col, a):
        if not (R[j - col] & S.pmask):
            return 0
    hi = q if q < a + 8 else a + 8
    for j in range(a, hi):
        if S.line[j] != EMPTY:
            want = (<uint64_t>1) << S.line[j]
        else:
            want = S.lok[j] & S.pmask
        if not (R[j - col] & want):
            return 0
    return 1


cdef int _aligned(_Search S, int32_t node, int a, int emax, int q) noexcept:
    """Bit 0 set when a left part at ``node`` can end here and reach the anchor ``a`` with
    the letters of the squares the word must hold at their exact depths
    (:func:`_reach_exact` with the next letter on ``a``); bit 1 when it can instead get
    ``e`` more rack tiles first, for some ``1 <= e <= emax`` (next letter on ``a - e``)."""
    cdef int e, out = 0
    if _reach_exact(S, node, a, a, q):
        out = 1
    for e in range(1, emax + 1):
        if _reach_exact(S, node, a - e, a, q):
            return out | 2
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
        al = _aligned(S, node, a, emax, S.lnxt[a])
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
    cdef int c, limit, size = S.size
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
        memcpy(S.lpb, lpb, (limit + 2) * sizeof(long))
        _left_touch(S, 0, 0, limit, a, 0)
    return 0
