# Part of bot/games/_gridcore.pyx (included there: one compilation unit). The search's entry point search(), and Typ-Dom's TouchBound and MultisetIndex.

cdef str _column(_Search S, int p, int c, int lo, int hi):
    """The letters of squares ``lo .. hi-1`` of column ``c`` in pass ``p``."""
    cdef Py_UCS4 buf[MAXS]
    cdef int i
    for i in range(lo, hi):
        buf[i - lo] = S.chars[p][i][c]
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, hi - lo)


cdef int _letter_index(CGraph g, str ch):
    li = g.index.get(ch)
    return NOLETTER if li is None else li


cdef _Search _SPARE = None  # one _Search kept between calls (allocating one zeroes 70 KB)


def search(board_rows, rack, root, sink, threshold, spec, touch=None, *, min_tiles=0, cache=None, gaddag=None):
    """Compiled :func:`bot.games.gridgen.search`: the same arguments, the same raw
    records ``(score, ntiles, transposed, line_index, start, word, placed, xparts)`` for
    the same moves (each passed to ``sink`` when its score is >= ``threshold[0]``, which
    ``sink`` may raise; the order of the calls differs: anchors best bound first).
    ``cache``: a dict kept across calls with the same graph and spec (memoises whether a
    rack can lay ``min_tiles`` tiles at all).  Raises ValueError for a malformed board, a touch
    square without a tile, or a board larger than 32 squares a side.

    Set-up per call (issue 35, small racks): the ``_Search`` of the last call is reused
    (every field it reads is set again below), the squares needing a cross-check and the
    anchors come from per-line occupancy bit masks, and lines without a cross word share
    one list of parts; the board is parsed into both passes at once, the premiums are
    copied only when the reused ``_Search`` held another spec's, and only the
    cross-checks the last call wrote are set back (branch i35-med).

    ``gaddag``: a compiled GADDAG of ``root``'s words (:func:`bot.games.gaddag.compiled_gaddag_for`;
    ValueError when its letters are not the word graph's).  Used only when ``sink`` is a
    :class:`PlanListing`, the spec requires a table tile in the word, the board is not
    empty and there is no ``touch``: then every line is read from its table tiles over
    the GADDAG (``list_gaddag.pxi``: the same records; Typ-Dom's plan listing, issue 35),
    and the cross-checks of squares with more tiles after them than before are read over
    it too (the same letters); otherwise by anchors, as without it."""
    global _SPARE
    cdef _Search S = _SPARE
    if S is None:
        S = _Search()
    else:
        _SPARE = None  # (a nested call, from a sink, makes its own)
    try:
        _run_search(S, board_rows, rack, root, sink, threshold, spec, touch, min_tiles, cache, gaddag)
    finally:
        S.sink = None
        S.plan = None
        S.thr_list = None
        S.parts = None
        _SPARE = S


cdef int _run_search(_Search S, board_rows, rack, root, sink, threshold, spec, touch, int min_tiles,
                     cache, gaddag=None) except -1:
    cdef CGraph g = compiled_graph(root)
    cdef CSpec s = _cspec(g, spec)
    cdef int size = s.size
    cdef int p, r, c, i, q, li, k, v, n, a, lo, njobs
    cdef int ntotal = 0
    cdef uint64_t occ[2][MAXS + 2]  # per pass and line (shifted by one: 0 and size + 1 stay empty)
    cdef uint64_t full, cand, amask
    S.g = g
    S.s = s
    S.parts = []
    S.size = size
    S.reach_at = S.reach_ge = NULL
    S.reach_off = NULL
    rows = list(board_rows)
    if len(rows) != size or any(len(x) != size for x in rows):
        raise ValueError(f"board must be {size} strings of {size} characters")
    full = ((<uint64_t>1) << size) - 1
    memset(occ, 0, sizeof(occ))
    # parse the board (as bot.games.gridspec._parse)
    cdef Py_UCS4 ch, uch
    cdef str row
    empty = True
    # (both passes at once: pass 1 is the transposed board; the premiums of both come
    # from the spec, made once per spec)
    for r in range(size):
        row = rows[r]
        c = 0
        for ch in row:
            if ch == u'.' or ch == u' ':
                S.grid[0][r][c] = S.grid[1][c][r] = EMPTY
                S.bval[0][r][c] = S.bval[1][c][r] = 0
                S.chars[0][r][c] = S.chars[1][c][r] = u'.'
            elif ch.isupper():
                li = g.cpidx[ch] if ch < 1024 else NOLETTER
                if li == NOLETTER and ch >= 1024:
                    li = _letter_index(g, row[c])
                S.grid[0][r][c] = S.grid[1][c][r] = li
                S.bval[0][r][c] = S.bval[1][c][r] = s.val[li] if li != NOLETTER else spec.values.get(row[c], 0)
                S.chars[0][r][c] = S.chars[1][c][r] = ch
                occ[0][r + 1] |= (<uint64_t>1) << c
                occ[1][c + 1] |= (<uint64_t>1) << r
                empty = False
            elif ch.islower():
                u = row[c].upper()
                S.grid[0][r][c] = S.grid[1][c][r] = _letter_index(g, u)
                S.bval[0][r][c] = S.bval[1][c][r] = 0
                S.chars[0][r][c] = S.chars[1][c][r] = ord(u) if len(u) == 1 else ch
                occ[0][r + 1] |= (<uint64_t>1) << c
                occ[1][c + 1] |= (<uint64_t>1) << r
                empty = False
            else:
                raise ValueError(f"bad board character {row[c]!r}")
            c += 1
    if S.lm_from is not s:
        memcpy(&S.lm[0][0][0], &s.lm2[0][0][0], sizeof(S.lm))
        memcpy(&S.wm[0][0][0], &s.wm2[0][0][0], sizeof(S.wm))
        S.lm_from = s
    S.empty_board = 1 if empty else 0
    # the rack (as bot.games.gridspec._parse_rack)
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
    if ntotal == 0 or min_tiles > ntotal:
        return 0
    S.rmask = 0
    for i in range(g.nl):
        if S.counts[i]:
            S.rmask |= (<uint64_t>1) << i
    S.pmask = S.rmask
    for i in range(g.nl):
        if s.kind_of[i] >= 0 and S.bl[s.kind_of[i]]:
            S.pmask |= (<uint64_t>1) << i
    vals.sort(reverse=True)
    S.R = len(vals)
    S.left = S.R
    S.total = ntotal
    S.nbl = 0
    for k in range(MAXK):
        S.nbl += S.bl[k]
    for i in range(64):
        S.P[i] = 0
    for i in range(1, 64):
        S.P[i] = S.P[i - 1] + (vals[i - 1] if i - 1 < len(vals) else 0)
    S.maxlen = min(ntotal - 1, size - 1)
    S.min_tiles = min_tiles
    if min_tiles:
        _ensure_most(g)  # (usable: the letters' counts per path)
    S.require_old = 1 if (s.require_old and not empty) else 0
    S.sink = sink
    S.plan = sink if isinstance(sink, PlanListing) else None
    S.join_only = 1 if S.plan is not None and (<PlanListing>sink).mode == 1 else 0
    S.need_nt = &(<PlanListing>sink).need[0] if S.plan is not None and (<PlanListing>sink).mode == 2 else NULL
    if S.need_nt != NULL:
        _ensure_most(g)  # (_value_usable: the letters' counts per path)
    S.thr_list = threshold
    S.thr = threshold[0]
    memset(S.blank_at, 0, sizeof(S.blank_at))
    memset(S.is_new, 0, sizeof(S.is_new))
    # touch: the lines and squares a move must reach (as gridspec._touch_lines)
    S.nxt_on = 0
    for p in range(2):
        for r in range(size):
            S.line_on[p][r] = 1
    if touch is not None:
        tl = [(r0 - 1, c0 - 1) for r0, c0 in touch]
        for r, c in tl:
            if S.grid[0][r][c] == EMPTY:
                raise ValueError("touch squares must hold tiles")
        if empty or not tl:
            return 0
        S.nxt_on = 1
        for p in range(2):
            need = {}
            for r, c in tl:
                ln, pos = (c, r) if p else (r, c)
                need.setdefault(ln, set()).add(pos)
                i = ln - 1
                while i >= 0 and S.grid[p][i][pos] != EMPTY:
                    i -= 1
                if i >= 0:
                    need.setdefault(i, set()).add(pos)
                i = ln + 1
                while i < size and S.grid[p][i][pos] != EMPTY:
                    i += 1
                if i < size:
                    need.setdefault(i, set()).add(pos)
            for r in range(size):
                S.line_on[p][r] = 1 if r in need else 0
                if r in need:
                    ps = need[r]
                    S.nxt[p][r][size] = size
                    for q in range(size - 1, -1, -1):
                        S.nxt[p][r][q] = q if q in ps else S.nxt[p][r][q + 1]
    if min_tiles:
        # no word of the graph holds min_tiles of the rack's tiles (and a table tile):
        # nothing to search (issue 35; memoised in ``cache`` per rack)
        fkey = ("can_lay", rack, min_tiles, s.require_old and not empty, s.size)
        can = None if cache is None else cache.get(fkey)
        if can is None:
            can = _can_lay(S, 0, 0, 0, 0, 1 if (s.require_old and not empty) else 0) != 0
            if cache is not None:
                cache[fkey] = can
        if not can:
            return 0
    # cross-checks (as gridspec._cross_info) and the cross-word parts per pass: only the
    # empty squares of a searched line with a tile beside them across it; every other
    # square allows all letters and has no cross word (both: all bits set)
    cdef int32_t node, n2
    cdef int j, sm
    cdef uint64_t ok, mm, bit
    cdef int32_t e
    cdef list lp
    # (a plan's listing over the GADDAG reads the cross-checks with many tiles after the
    # square over it too: the same letters, fewer steps; issue 35, branch i35-med)
    cdef CGraph G = None
    cdef uint64_t letters = 0
    if gaddag is not None and S.plan is not None and S.require_old and touch is None:
        G = _gd_checked(gaddag, g)
        letters = ((<uint64_t>1) << g.nl) - 1
    cdef uint64_t *allowed0 = &S.allowed[0][0][0]
    cdef int *xsum0 = &S.xsum[0][0][0]
    if not S.xinit:
        memset(S.allowed, 0xff, sizeof(S.allowed))
        memset(S.xsum, 0xff, sizeof(S.xsum))
        S.xinit = 1
    else:
        for k in range(S.nxw):
            allowed0[S.xw[k]] = ~(<uint64_t>0)
            xsum0[S.xw[k]] = -1
    S.nxw = 0
    nones = [None] * size  # (the parts of the lines without a cross word; read only)
    for p in range(2):
        parts = [None] * size  # the lines searched get their list (what to_move reads)
        S.parts.append(parts)
        for r in range(size):
            if not S.line_on[p][r]:
                continue
            cand = ~occ[p][r + 1] & (occ[p][r] | occ[p][r + 2]) & full
            if not cand:
                parts[r] = nones
                continue
            lp = [None] * size
            parts[r] = lp
            while cand:
                c = sl_ctz(cand)
                cand &= cand - 1
                sm = 0
                i = r - 1
                while i >= 0 and S.grid[p][i][c] != EMPTY:
                    sm += S.bval[p][i][c]
                    i -= 1
                j = r + 1
                while j < size and S.grid[p][j][c] != EMPTY:
                    sm += S.bval[p][j][c]
                    j += 1
                ok = 0
                S.xw[S.nxw] = (p * MAXS + r) * MAXS + c  # (set back by the next call)
                S.nxw += 1
                if G is not None and j - r > r - i:
                    # (the tiles after the square outnumber those before: over the
                    # GADDAG, whose path rev(W) ends in an end of word exactly when W is
                    # a word: rev(after) read once, then per letter rev(before))
                    node = 0
                    for q in range(j - 1, r, -1):
                        node = G.get(node, S.grid[p][q][c])
                        if node < 0:
                            break
                    if node >= 0:
                        mm = G.mask[node] & letters  # (not the separator, the last index)
                        e = G.first[node]
                        while mm:
                            li = sl_ctz(mm)
                            bit = (<uint64_t>1) << li
                            mm ^= bit
                            n2 = G.child[e]
                            e += 1
                            for q in range(r - 1, i, -1):
                                n2 = G.get(n2, S.grid[p][q][c])
                                if n2 < 0:
                                    break
                            if n2 >= 0 and G.term[n2]:
                                ok |= bit
                    S.allowed[p][r][c] = ok
                    S.xsum[p][r][c] = sm
                    lp[c] = (_column(S, p, c, i + 1, r), _column(S, p, c, r + 1, j))
                    continue
                node = 0
                for q in range(i + 1, r):
                    node = g.get(node, S.grid[p][q][c])
                    if node < 0:
                        break
                if node >= 0:
                    mm = g.mask[node]
                    e = g.first[node]
                    while mm:
                        li = sl_ctz(mm)
                        bit = (<uint64_t>1) << li
                        mm ^= bit
                        n2 = g.child[e]
                        e += 1
                        for q in range(r + 1, j):
                            n2 = g.get(n2, S.grid[p][q][c])
                            if n2 < 0:
                                break
                        if n2 >= 0 and g.term[n2]:
                            ok |= bit
                S.allowed[p][r][c] = ok
                S.xsum[p][r][c] = sm
                lp[c] = (_column(S, p, c, i + 1, r), _column(S, p, c, r + 1, j))
    if G is not None:
        # (require_old is off on an empty board: the first move stays with the anchors)
        return _gd_listing(S, _gd_aux(G, s))
    # the anchors of both passes (an empty square beside a tile; on an empty board the
    # centre), best bound first; a plan's listing of a small rack (a PlanListing, which
    # never raises the threshold, below 0: every record) cannot cut by a bound, so its
    # anchors go in board order without one (issue 35: a sixth of a small rack's
    # listing; large racks keep the bound order, in which their plan loop met good
    # plans sooner: a 16-tile rack took 0.20 s instead of 0.13 s in board order)
    cdef int listing = 1 if (S.plan is not None and S.thr < 0 and S.total <= 8) else 0
    cdef AnchorJob *jobs = <AnchorJob *>malloc(MAXA * sizeof(AnchorJob))
    if jobs == NULL:
        raise MemoryError()
    njobs = 0
    try:
        for p in range(2):
            for r in range(size):
                if not S.line_on[p][r]:
                    continue
                if empty:
                    if r != (s.cr if p == 0 else s.cc):
                        continue
                    amask = (<uint64_t>1) << (s.cc if p == 0 else s.cr)
                else:
                    amask = ~occ[p][r + 1] & full & ((occ[p][r + 1] << 1) | (occ[p][r + 1] >> 1) |
                                                      occ[p][r] | occ[p][r + 2])
                S.set_line(p, r)
                cand = amask
                while cand:
                    a = sl_ctz(cand)
                    cand &= cand - 1
                    if a > 0 and S.line[a - 1] != EMPTY:
                        lo = a - 1
                        while lo > 0 and S.line[lo - 1] != EMPTY:
                            lo -= 1
                    else:
                        lo = a
                        while lo > 0 and S.line[lo - 1] == EMPTY and not ((amask >> (lo - 1)) & 1):
                            lo -= 1
                    if min_tiles and S.empties(lo, size, min_tiles) < min_tiles:
                        continue  # too few empty squares for enough tiles
                    jobs[njobs].bound = 0 if listing else S.anchor_bound(a, lo)
                    jobs[njobs].p = p
                    jobs[njobs].r = r
                    jobs[njobs].a = a
                    jobs[njobs].lo = lo
                    njobs += 1
        if not listing:
            qsort(jobs, njobs, sizeof(AnchorJob), _cmp_job)
        for i in range(njobs):
            if jobs[i].bound < S.thr:
                break
            S.run_anchor(jobs[i].p, jobs[i].r, jobs[i].a, jobs[i].lo)
    finally:
        free(jobs)
    return 0


cdef class TouchBound:
    """Typ-Dom's bound of the second placements touching a first one
    (:func:`bot.games.typdom.movegen._touch_bound`, the same numbers) for one table,
    parsed once: ``TouchBound(rows, values)``; ``bound(tiles, rack_values)`` with the
    first placement's new tiles as ``(row, col, value)`` (0-based squares, the value the
    tile has on the table: 0 for a Jolly) and the values of the rack it leaves."""
    cdef int size
    cdef int occ[MAXS][MAXS]
    cdef int val[MAXS][MAXS]

    def __init__(self, rows, values):
        cdef int r, c
        cdef Py_UCS4 ch
        cdef str row
        self.size = len(rows)
        if self.size > MAXS or any(len(x) != self.size for x in rows):
            raise ValueError("bad table")
        for r in range(self.size):
            row = rows[r]
            c = 0
            for ch in row:  # (C characters; a value looked up for a tile only)
                if ch == u'.' or ch == u' ':
                    self.occ[r][c] = 0
                    self.val[r][c] = 0
                else:
                    self.occ[r][c] = 1
                    self.val[r][c] = values.get(row[c], 0) if ch.isupper() else 0
                c += 1

    cdef inline int at_occ(self, int tr, int ln, int pos) noexcept:
        return self.occ[pos][ln] if tr else self.occ[ln][pos]

    cdef inline int at_val(self, int tr, int ln, int pos) noexcept:
        return self.val[pos][ln] if tr else self.val[ln][pos]

    def bound(self, tiles, rack_values):
        cdef int tr_[MAXS * MAXS]
        cdef int tc_[MAXS * MAXS]
        cdef int tv_[MAXS * MAXS]
        cdef int lv[64]
        cdef int n = 0, k = 0
        for t in tiles:
            if n >= MAXS * MAXS:
                raise ValueError("too many tiles")
            tr_[n], tc_[n], tv_[n] = t[0], t[1], t[2]
            n += 1
        for v in rack_values:
            if k > 62:
                raise ValueError("rack too large")
            lv[k] = v
            k += 1
        return _touch_bound_c(self, n, tr_, tc_, tv_, k, lv)


cdef class MultisetIndex:
    """Tile multisets coded as by :func:`bot.games.typdom.movegen._multiset_code` (6 bits a
    tile kind, counts up to 31, a guard bit 32 per field), for finding the ones a rack
    holds: ``MultisetIndex(codes, nfields)``; ``set_have(code)`` the rack; ``next_fit(i)``
    the first index ``>= i`` whose multiset the rack holds, or -1."""
    cdef uint64_t *codes
    cdef int n, w
    cdef uint64_t have[8]
    cdef uint64_t guard[8]

    def __cinit__(self, codes, int nfields):
        cdef int i, j, f
        self.codes = NULL
        self.n = len(codes)
        self.w = (nfields + 9) // 10
        if self.w > 8:
            raise ValueError("too many kinds of tile")
        if self.w == 0:
            self.w = 1
        self.codes = <uint64_t *>malloc((self.n * self.w + 1) * sizeof(uint64_t))
        if self.codes == NULL:
            raise MemoryError()
        mask = (1 << 60) - 1
        for i in range(self.n):
            code = codes[i]
            for j in range(self.w):
                self.codes[i * self.w + j] = <uint64_t>((code >> (60 * j)) & mask)
        for j in range(self.w):
            self.guard[j] = 0
            self.have[j] = 0
        for f in range(nfields):
            self.guard[f // 10] |= (<uint64_t>32) << (6 * (f % 10))

    def __dealloc__(self):
        free(self.codes)

    def set_have(self, have):
        cdef int j
        mask = (1 << 60) - 1
        for j in range(self.w):
            self.have[j] = <uint64_t>((have >> (60 * j)) & mask) + self.guard[j]

    def next_fit(self, int i):
        cdef int j, w = self.w
        cdef uint64_t *c
        while i < self.n:
            c = &self.codes[i * w]
            for j in range(w):
                if ((self.have[j] - c[j]) & self.guard[j]) != self.guard[j]:
                    break
            else:
                return i
            i += 1
        return -1
