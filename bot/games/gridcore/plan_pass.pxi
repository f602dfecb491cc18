# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's plan: the listing in two passes (issue 35): the joining placements, then only the records that can still be part of a plan as good as the best known.
#
# When a plan already has a best key (the plan after a Jolly take: the best plan without
# it), ``movegen._first`` lists in two passes into one PlanListing:
#
# 1. ``mode`` 1: only the joining placements (each may be a plan's first placement). The
#    search cuts every word that can no longer hold two groups of table tiles and leave a
#    tile in the rack (``_join_reach``); ``_plan_push`` drops the other records.
# 2. ``mode`` 2: the records that are not joining and reach ``need[nt]`` (a score per
#    number of tiles laid, ``movegen._listing_need``: what a single placement or a second
#    placement after one of pass 1's joining placements must score for its plan to reach
#    the best key). The search runs with the smallest of these as its threshold and the
#    fewest tiles as ``min_tiles``.
#
# The answer is the full listing's (``movegen._listing_need`` says why); the tests compare
# the passes' records with the full listing filtered in Python.


cdef int _runs_before(_Search S, int col) noexcept:
    """The groups of table tiles on squares ``S.start .. col-1`` of the current line."""
    cdef int i, runs = 0, prev = 0, old
    for i in range(S.start, col):
        old = 0 if S.is_new[i] else 1
        if old and not prev:
            runs += 1
        prev = old
    return runs


cdef int _join_reach(_Search S, int col, int h, int runs) noexcept:
    """Whether a word with ``runs`` groups of table tiles left of ``col`` (where the
    square is empty, or the line ends), continued by at most ``h`` more letters from
    ``col`` (the graph node's height), can hold two groups and leave a tile in the rack:
    at most ``S.left - 1`` more tiles, so at most that many empty squares before the
    start of the group it still needs. A joining placement (``plan_ref._raw_runs`` >= 2,
    fewer tiles than the rack) is one of these; the rest is cut."""
    cdef int c = col, e = 0, budget = S.left - 1, found, in_run = 0
    if budget < 0:
        return 0  # every tile is laid: not joining
    if runs >= 2:
        return 1
    found = runs
    while c < S.size and c - col < h:
        if S.line[c] == EMPTY:
            in_run = 0
            if e == budget:
                return 0
            e += 1
        elif not in_run:
            in_run = 1
            found += 1
            if found >= 2:
                return 1
        c += 1
    return 0


cdef int _need_left_ok(_Search S, int32_t node, int depth, int a, int limit, int lsum) noexcept:
    """Pass 2 (``S.need_nt`` set), in the left parts: whether a word whose left part is
    this one (``depth`` rack tiles worth ``lsum`` ending at ``node``, left of anchor
    ``a``) or a longer one (``d`` more tiles, at most ``limit - depth``) can reach the
    need of the tiles it lays. Such a word holds from ``a`` on at most the node's height
    of squares, ending where the next square is empty (or the line ends), with ``j`` >= 1
    empty squares filled; it scores at most ``lsum`` plus the table tiles up to its end
    plus the ``d + j`` best values of the rack (``S.P``, no premiums in Typ-Dom) and lays
    ``depth + d + j`` tiles, so it is also worth at most the table tiles plus the
    ``depth + d + j`` best values (the left part's tiles among them), and at most
    ``lsum`` plus the table tiles plus what the rack tiles a path from ``node`` can
    hold are worth (``_value_usable``: every further letter of the word, left or right,
    lies on such a path). Cut only when no such end and ``d`` reaches its need."""
    cdef int hmax = a + S.g.height[node], size = S.size, c = a, j = 0, B = 0, t, tmax
    cdef int dmax = limit - depth
    cdef uint64_t pm = S.pmask
    cdef int vu = _value_usable(S, node)
    if hmax > size:
        hmax = size
    while c < hmax:
        if S.line[c] == EMPTY:
            if j == S.left or not (S.lok[c] & pm):
                return 0
            j += 1
        else:
            B += S.lbv[c]
        c += 1
        if c < size and S.line[c] != EMPTY:
            continue  # the word cannot end here
        tmax = j + dmax
        if tmax > S.left:
            tmax = S.left
        for t in range(j, tmax + 1):
            if B + min(lsum + S.P[t], S.P[depth + t], lsum + vu) >= S.need_nt[min(depth + t, 65)]:
                return 1
    return 0


cdef int _table_before(_Search S, int col) noexcept:
    """The values of the table tiles on squares ``S.start .. col-1`` of the current line."""
    cdef int i, out = 0
    for i in range(S.start, col):
        if not S.is_new[i]:
            out += S.lbv[i]
    return out


cdef int _value_usable(_Search S, int32_t node) noexcept:
    """The most the rack tiles a continuation from ``node`` can lay are worth: per letter
    the node reaches and the rack holds, its tiles up to the most times one path holds
    it, at their value (Jollys are worth nothing). As ``_Search.usable``, with values."""
    cdef uint64_t m = S.g.reach[node] & S.rmask
    cdef uint8_t *most = &S.g.most[<Py_ssize_t>node * S.g.nl]
    cdef int n = 0, li, k
    while m:
        li = sl_ctz(m)
        m &= m - 1
        k = most[li]
        n += S.s.val[li] * (S.counts[li] if S.counts[li] < k else k)
    return n


cdef int _need_reached(_Search S, long v, int table, int k, int rest) noexcept:
    """Pass 2, ``_Search.ext_bound`` at one end of the word: whether its bound ``v``
    reaches the need of the ``k`` tiles the word lays there. Without premiums or
    cross-word points the word is worth its table tiles (``table``) plus its ``k`` rack
    tiles, at most the ``k`` best values of the rack (``S.P[k]``): the smaller of the two
    bounds counts (``v`` counts the tiles laid so far at their values and the rest at
    the best values, so a high tile laid already is counted twice there), and ``rest``
    (the word so far plus the table tiles up to this end plus ``_value_usable``) when
    smaller."""
    if S.s.plain and not S.s.cross_score and not S.s.bingo_tiles:
        if table + S.P[k] < v:
            v = table + S.P[k]
        if rest < v:
            v = rest  # (the word so far, the table tiles ahead and _value_usable)
    return v >= S.need_nt[k if k < 65 else 65]
