# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's phase (b): TouchSearcher.

# --- Typ-Dom's plan search, phase (b) (bot.games.typdom.movegen._Seconds): the touch
# searches after joining placements on one table, without re-parsing it (issue 35)

from libc.string cimport memcpy


cdef int _cross_at(_Search S, int p, int r, int c) noexcept:
    """Set the cross-check (``allowed``) and cross sum (``xsum``) of square ``(r, c)`` of
    pass ``p`` from the tiles above and below it in its column, as :func:`search` does
    (``ALL`` / -1: a tile, or no tile above or below)."""
    cdef CGraph g = S.g
    cdef int size = S.size, i, j, q, sm, li
    cdef int32_t node, n2, e
    cdef uint64_t ok, mm, bit
    S.allowed[p][r][c] = ~(<uint64_t>0)
    S.xsum[p][r][c] = -1
    if S.grid[p][r][c] != EMPTY:
        return 0
    if not ((r > 0 and S.grid[p][r - 1][c] != EMPTY) or (r < size - 1 and S.grid[p][r + 1][c] != EMPTY)):
        return 0
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
    return 0


cdef int _cross_beside(_Search S, int p, int r, int c) noexcept:
    """Recompute the cross-checks of the empty squares just before and after the run of
    tiles through square ``(r, c)`` of pass ``p`` (in its column): the only ones a new
    tile there changes."""
    cdef int i = r
    while i >= 0 and S.grid[p][i][c] != EMPTY:
        i -= 1
    if i >= 0:
        _cross_at(S, p, i, c)
    i = r
    while i < S.size and S.grid[p][i][c] != EMPTY:
        i += 1
    if i < S.size:
        _cross_at(S, p, i, c)
    return 0


cdef class TouchSearcher:
    """:func:`search` with ``touch`` for many first placements on one table: the table
    ``rows`` is parsed and both passes' cross-checks computed once; :meth:`search` lays
    a placement's tiles in place, recomputes the cross-checks next to them, searches the
    lines a move touching them can lie in (as :func:`search`) and takes the tiles back.
    A line whose search found nothing is remembered with its state (tiles, cross-checks,
    squares to reach), the rack and the query's ``min_tiles`` and ``threshold``: the same
    line with the same rack finds nothing for a query asking as much or more (Typ-Dom's
    plan search, phase (b), issue 35).  On top of :func:`search`'s cuts, a word is cut
    when no path of the graph from its node holds, at the right depth, a letter the
    square it must reach takes (and the first squares before it: :c:func:`_reach_ok`).
    With a threshold of 0 or less (every move counts, whatever its value), a query whose
    tiles lie on the squares and with the letters of one that found nothing with a rack
    that can lay every move this rack can (:c:func:`_dominated`: each Jolly of it, each
    letter itself or in a Jolly left over) finds nothing either and is not searched: the
    Kreuzwort-Spiel's first placements laying a Jolly where another laid the letter.
    The same holds per line (its state without values, as the memo's key then is).
    Raises ValueError for a malformed or empty table or a board larger than 32 squares
    a side."""
    cdef _Search S
    cdef object root
    cdef object spec
    cdef uint64_t allowed0[2][MAXS][MAXS]
    cdef int xsum0[2][MAXS][MAXS]
    cdef dict memo
    cdef dict racks          # rack -> its _RackParse as bytes
    cdef dict failed         # (tiles as (row, col, letter), min_tiles) -> racks that found nothing (threshold <= 0)
    cdef dict line_failed    # (a line's state without values, min_tiles) -> the same per line
    cdef _ReachAt reach
    cdef public long long lines_searched, lines_skipped, queries_skipped, lines_bounded
    cdef public object trace   # a list: (pass, line, steps) per line searched (benches)
    cdef _GdAux gd             # use_gaddag: the lines searched over this GADDAG (None: by anchors)
    cdef public int gd_memo    # over the GADDAG: the line memo and dominance skips on (1, default) or off

    def __init__(self, rows, root, spec):
        cdef CGraph g = compiled_graph(root)
        cdef CSpec s = _cspec(g, spec)
        cdef _Search S = _Search()
        cdef int size = s.size, p, r, c, li
        cdef Py_UCS4 ch
        cdef str row
        self.root = root
        self.spec = spec
        self.memo = {}
        self.racks = {}
        self.failed = {}
        self.line_failed = {}
        self.lines_searched = 0
        self.lines_skipped = 0
        self.queries_skipped = 0
        self.lines_bounded = 0
        self.gd_memo = 1
        S.g = g
        S.s = s
        S.size = size
        rows = list(rows)
        if len(rows) != size or any(len(x) != size for x in rows):
            raise ValueError(f"board must be {size} strings of {size} characters")
        empty = True
        for r in range(size):
            row = rows[r]
            c = 0
            for ch in row:
                if ch == u'.' or ch == u' ':
                    S.grid[0][r][c] = EMPTY
                    S.bval[0][r][c] = 0
                    S.chars[0][r][c] = u'.'
                elif ch.isupper():
                    li = g.cpidx[ch] if ch < 1024 else NOLETTER
                    if li == NOLETTER and ch >= 1024:
                        li = _letter_index(g, row[c])
                    S.grid[0][r][c] = li
                    S.bval[0][r][c] = s.val[li] if li != NOLETTER else spec.values.get(row[c], 0)
                    S.chars[0][r][c] = ch
                    empty = False
                elif ch.islower():
                    u = row[c].upper()
                    S.grid[0][r][c] = _letter_index(g, u)
                    S.bval[0][r][c] = 0
                    S.chars[0][r][c] = ord(u) if len(u) == 1 else ch
                    empty = False
                else:
                    raise ValueError(f"bad board character {row[c]!r}")
                c += 1
        if empty:
            raise ValueError("the table must hold tiles")
        for r in range(size):
            for c in range(size):
                S.grid[1][c][r] = S.grid[0][r][c]
                S.bval[1][c][r] = S.bval[0][r][c]
                S.chars[1][c][r] = S.chars[0][r][c]
        memcpy(&S.lm[0][0][0], &s.lm2[0][0][0], sizeof(S.lm))
        memcpy(&S.wm[0][0][0], &s.wm2[0][0][0], sizeof(S.wm))
        S.empty_board = 0
        S.require_old = 1 if s.require_old else 0
        memset(S.blank_at, 0, sizeof(S.blank_at))
        memset(S.is_new, 0, sizeof(S.is_new))
        for p in range(2):
            for r in range(size):
                for c in range(size):
                    _cross_at(S, p, r, c)
        memcpy(self.allowed0, S.allowed, sizeof(S.allowed))
        memcpy(self.xsum0, S.xsum, sizeof(S.xsum))
        _ensure_most(g)
        self.reach = _reach_for(g)
        S.reach_at = self.reach.m
        S.reach_ge = self.reach.ge
        S.reach_off = self.reach.off
        self.S = S

    def use_gaddag(self, groot):
        """Search the lines from now on over the GADDAG whose root node is ``groot``
        (:func:`bot.games.gaddag.build_gaddag` of this searcher's word graph), or over a
        compiled one (:func:`bot.games.gaddag.compiled_gaddag_for`; ValueError when its letters
        are not this word graph's); ``None``: by anchors and left parts again: each word from the first square it must reach
        outwards (:func:`_gd_line`), the same records in another order (issue 35, work in
        progress)."""
        cdef CGraph G
        if groot is None:
            self.gd = None
            return
        if isinstance(groot, CGraph):
            G = groot
            if G.letters[:-1] != self.S.g.letters:
                raise ValueError("the GADDAG's letters are not the word graph's")
        else:
            G = compiled_gaddag(groot, self.root)
        self.gd = _gd_aux(G, self.S.s)

    def search(self, tiles, rack, int threshold=-1, int min_tiles=0, cache=None):
        """The raw records (as :func:`search`'s) of the moves of ``rack`` on the table with
        ``tiles`` laid (``(row, col, letter, jolly)``, 0-based, on empty squares; a Jolly's
        letter in upper case) whose word or a contact word holds one of those tiles
        (:func:`search` with them as ``touch``), scoring ``threshold`` or more and laying
        ``min_tiles`` tiles or more; the table is as before afterwards.  ``cache``: as
        :func:`search`'s."""
        cdef _Search S = self.S
        cdef CGraph g = S.g
        cdef CSpec s = S.s
        cdef int size = S.size
        cdef int i, k, li, r, c, p, q, ntotal = 0, nt_laid = 0, a, lo, ln, pos, found_before
        cdef int tr[MAXS]
        cdef int tc[MAXS]
        found = []
        for t in tiles:
            r = t[0]
            c = t[1]
            if r < 0 or c < 0 or r >= size or c >= size or S.grid[0][r][c] != EMPTY or nt_laid >= MAXS:
                raise ValueError("tiles must go on empty squares of the table")
            tr[nt_laid] = r
            tc[nt_laid] = c
            nt_laid += 1
        if nt_laid == 0:
            return found
        ntotal = _touch_rack(S, self.racks, rack, self.spec)  # (as search; parsed once per rack)
        if ntotal == 0 or min_tiles > ntotal:
            return found
        if min_tiles and not _can_lay_q(self.root, rack, min_tiles, self.spec, cache):
            return found  # (search's own test, memoised under the same key)
        dkey = code = None
        if threshold <= 0:
            # every move counts, whatever its value: a rack that can lay every move this
            # one can (_dominated) and found nothing with the same tiles laid finds nothing
            # here either (the Jolly flags of the tiles only change values)
            dkey = (tuple([(t[0], t[1], t[2]) for t in tiles]), min_tiles)
            fails = self.failed.get(dkey)
            if fails is not None and _dominated(S, fails):
                self.queries_skipped += 1
                return found
            code = _rack_code(S)
        S.rmask = 0
        for i in range(g.nl):
            if S.counts[i]:
                S.rmask |= (<uint64_t>1) << i
        S.pmask = S.rmask
        for i in range(g.nl):
            if s.kind_of[i] >= 0 and S.bl[s.kind_of[i]]:
                S.pmask |= (<uint64_t>1) << i
        S.left = S.R
        S.total = ntotal
        S.nbl = 0
        for k in range(MAXK):
            S.nbl += S.bl[k]
        S.maxlen = min(ntotal - 1, size - 1)
        S.min_tiles = min_tiles
        S.sink = found.append
        S.thr_list = [threshold]
        S.thr = threshold
        parts = [[None] * size, [None] * size]
        S.parts = parts
        # lay the tiles, then the cross-checks next to them
        for t in tiles:
            r = t[0]
            c = t[1]
            ch = t[2]
            li = _letter_index(g, ch)
            S.grid[0][r][c] = S.grid[1][c][r] = li
            S.bval[0][r][c] = S.bval[1][c][r] = 0 if t[3] else s.val[li]
            S.chars[0][r][c] = S.chars[1][c][r] = ord(ch)
            S.allowed[0][r][c] = S.allowed[1][c][r] = ~(<uint64_t>0)
            S.xsum[0][r][c] = S.xsum[1][c][r] = -1
        try:
            for i in range(nt_laid):
                _cross_beside(S, 0, tr[i], tc[i])
                _cross_beside(S, 1, tc[i], tr[i])
            # the lines to search and the squares each must reach (as search)
            S.nxt_on = 1
            for p in range(2):
                for ln in range(size):
                    S.line_on[p][ln] = 0
                for i in range(nt_laid):
                    ln, pos = (tc[i], tr[i]) if p else (tr[i], tc[i])
                    self._need(p, ln, pos)
                    q = ln - 1
                    while q >= 0 and S.grid[p][q][pos] != EMPTY:
                        q -= 1
                    if q >= 0:
                        self._need(p, q, pos)
                    q = ln + 1
                    while q < size and S.grid[p][q][pos] != EMPTY:
                        q += 1
                    if q < size:
                        self._need(p, q, pos)
            for p in range(2):
                for ln in range(size):
                    if S.line_on[p][ln]:
                        found_before = len(found)
                        self._line(p, ln, rack, found)
                        if len(found) > found_before:
                            # (what to_move reads: the cross-word parts of the line)
                            parts[p][ln] = self._parts(p, ln)
        finally:
            for i in range(nt_laid):
                r = tr[i]
                c = tc[i]
                S.grid[0][r][c] = S.grid[1][c][r] = EMPTY
                S.bval[0][r][c] = S.bval[1][c][r] = 0
                S.chars[0][r][c] = S.chars[1][c][r] = u'.'
            # (the cross-checks changed only in the tiles' columns, pass 0, and rows, pass 1)
            for i in range(nt_laid):
                r = tr[i]
                c = tc[i]
                for q in range(size):
                    S.allowed[0][q][c] = self.allowed0[0][q][c]
                    S.xsum[0][q][c] = self.xsum0[0][q][c]
                    S.allowed[1][q][r] = self.allowed0[1][q][r]
                    S.xsum[1][q][r] = self.xsum0[1][q][r]
            S.sink = None
            S.parts = None
        if dkey is not None and not found:
            self.failed.setdefault(dkey, []).append(code)
        return found

    cdef int _need(self, int p, int ln, int pos) noexcept:
        """Mark square ``pos`` of line ``ln`` (pass ``p``) as one a move must reach."""
        cdef _Search S = self.S
        cdef int q, size = S.size
        if not S.line_on[p][ln]:
            S.line_on[p][ln] = 1
            for q in range(size + 1):
                S.nxt[p][ln][q] = size
        for q in range(pos, -1, -1):
            if S.nxt[p][ln][q] <= pos:
                break
            S.nxt[p][ln][q] = pos
        return 0

    cdef list _parts(self, int p, int ln):
        cdef _Search S = self.S
        cdef int c, i, j, size = S.size
        out = [None] * size
        for c in range(size):
            if S.xsum[p][ln][c] < 0:
                continue
            i = ln - 1
            while i >= 0 and S.grid[p][i][c] != EMPTY:
                i -= 1
            j = ln + 1
            while j < size and S.grid[p][j][c] != EMPTY:
                j += 1
            out[c] = (_column(S, p, c, i + 1, ln), _column(S, p, c, ln + 1, j))
        return out

    cdef int _line(self, int p, int ln, str rack, list found) except -1:
        """Search line ``ln`` of pass ``p`` (its anchors in order), unless the memo knows
        it finds nothing."""
        cdef _Search S = self.S
        cdef int size = S.size, a, lo, c, n
        cdef char buf[MAXS * 16 + 1]
        cdef char *b = buf
        cdef uint64_t al
        cdef int x, na = 0
        cdef int values = S.thr > 0
        cdef int anchors[MAXS]
        cdef long lpbs[MAXS][MAXS + 1]   # per anchor kept: its left parts' bounds (anchor_bound's by_len)
        if self.gd is not None:
            if not _gd_prep(S, p, ln):
                self.lines_bounded += 1  # (no move can hold a square to reach: no memo key)
                return 0
            if not self.gd_memo:
                self.lines_searched += 1
                _gd_line(S, self.gd, p, ln, 1)
                return 0
        # the line's state: everything its search reads (a square is an anchor when it
        # is empty next to a tile in the line or has a cross word, xsum >= 0); without a
        # threshold, the values do not change what it finds
        b[0] = <char>p
        n = 1
        for c in range(size):
            x = S.grid[p][ln][c]
            b[n] = <char>x
            b[n + 1] = <char>(S.bval[p][ln][c] if values else 0)
            b[n + 2] = <char>(S.nxt[p][ln][c])
            b[n + 3] = <char>(S.lm[p][ln][c] * 8 + S.wm[p][ln][c])
            x = S.xsum[p][ln][c]
            if not values and x > 0:
                x = 0  # (only whether there is a cross word)
            b[n + 4] = <char>(x & 255)
            b[n + 5] = <char>((x >> 8) & 255)
            n += 6
            if S.xsum[p][ln][c] >= 0:
                al = S.allowed[p][ln][c]
                memcpy(&b[n], &al, 8)
                n += 8
        state = PyBytes_FromStringAndSize(buf, n)
        key = (state, rack)
        hit = self.memo.get(key)
        if hit is not None and S.min_tiles >= (<tuple>hit)[0] and S.thr >= (<tuple>hit)[1]:
            self.lines_skipped += 1
            return 0
        dkey = None
        if not values:
            # a rack that can lay every move this one can found nothing here (as in search)
            dkey = (state, S.min_tiles)
            fails = self.line_failed.get(dkey)
            if fails is not None and _dominated(S, fails):
                self.lines_skipped += 1
                return 0
        if self.gd is not None:
            self.lines_searched += 1
            n = len(found)
            _gd_line(S, self.gd, p, ln, 1)
            if len(found) == n:
                if hit is None or (S.min_tiles <= (<tuple>hit)[0] and S.thr <= (<tuple>hit)[1]):
                    self.memo[key] = (S.min_tiles, S.thr)
                if dkey is not None:
                    self.line_failed.setdefault(dkey, []).append(_rack_code(S))
            return 0
        # the anchors whose moves can lay enough tiles and reach the threshold
        S.set_line(p, ln)
        for a in range(size):
            if not S.is_anchor(a):
                continue
            if a > 0 and S.line[a - 1] != EMPTY:
                lo = a - 1
                while lo > 0 and S.line[lo - 1] != EMPTY:
                    lo -= 1
            else:
                lo = a
                while lo > 0 and S.line[lo - 1] == EMPTY and not S.is_anchor(lo - 1):
                    lo -= 1
            if S.min_tiles and S.empties(lo, size, S.min_tiles) < S.min_tiles:
                continue
            if S.anchor_bound(a, lo, &lpbs[na][0]) < S.thr:
                continue
            anchors[na] = a
            na += 1
        if na == 0:
            self.lines_bounded += 1
        self.lines_searched += 1
        n = len(found)
        cdef long long st0 = _STEPS
        for c in range(na):
            _touch_anchor(S, p, ln, anchors[c], &lpbs[c][0])
        if self.trace is not None:
            self.trace.append((p, ln, _STEPS - st0))
        if len(found) == n:
            if hit is None or (S.min_tiles <= (<tuple>hit)[0] and S.thr <= (<tuple>hit)[1]):
                self.memo[key] = (S.min_tiles, S.thr)
            if dkey is not None:
                self.line_failed.setdefault(dkey, []).append(_rack_code(S))
        return 0
