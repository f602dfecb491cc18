# Part of bot/games/_gridcore.pyx (included there: one compilation unit). The grid search itself: _Search (cross-checks, anchors and their shadow bounds, left parts, extension, records).

cdef class _Search:
    cdef CGraph g
    cdef CSpec s
    cdef int size
    # per pass (0: across on the board, 1: down, on the transposed board)
    cdef int grid[2][MAXS][MAXS]        # letter index, EMPTY, or NOLETTER
    cdef Py_UCS4 chars[2][MAXS][MAXS]   # the letters as characters
    cdef int bval[2][MAXS][MAXS]        # board tile values
    cdef uint64_t allowed[2][MAXS][MAXS]
    cdef int xsum[2][MAXS][MAXS]        # -1: no cross word
    cdef int lm[2][MAXS][MAXS]
    cdef int wm[2][MAXS][MAXS]
    cdef object lm_from     # the CSpec whose premiums lm, wm hold (search() reuses its _Search)
    cdef int xinit, nxw     # allowed, xsum all ones but at the nxw squares xw[] (written last)
    cdef int xw[2 * MAXS * MAXS]
    cdef int nxt[2][MAXS][MAXS + 1]
    cdef int line_on[2][MAXS]
    cdef list parts
    # rack
    cdef int counts[64]
    cdef uint64_t rmask     # the letters with a count above 0
    cdef uint64_t pmask     # the letters the rack can lay (its letters, those of its blanks)
    cdef int bl[MAXK]
    cdef int nbl, left, total
    cdef int P[64]          # prefix sums of the rack's tile values, best first
    cdef int R              # tiles that can be placed
    # the line being searched
    cdef int p, r, anchor, start, first_placed
    cdef int *line
    cdef Py_UCS4 *lch
    cdef int *lbv
    cdef uint64_t *lok
    cdef int *lxs
    cdef int *llm, *lwm, *lnxt
    cdef int blank_at[MAXS]
    cdef int is_new[MAXS]
    cdef int lp_li[MAXS]
    cdef int lp_b[MAXS]
    cdef long lpb[MAXS + 1]   # per left-part length d: the anchor bound of the words starting d or more squares left
    # query
    cdef int require_old, min_tiles, nxt_on, maxlen, empty_board
    cdef int join_only      # a plan's join-only pass: words that cannot be joining are cut (_join_reach)
    cdef int *need_nt       # a plan's second pass: the threshold per tiles laid (NULL: thr for all)
    cdef long thr
    cdef object thr_list
    cdef object sink
    cdef object plan        # a PlanListing: records go to its C arrays, not to sink
    cdef uint64_t *reach_at  # TouchSearcher only (NULL otherwise): per node and depth, the letters a word can hold there
    cdef uint64_t *reach_ge  # (and at that depth or deeper)
    cdef Py_ssize_t *reach_off  # (where a node's depths start in both)
    cdef int wpath[MAXS + 1]  # _can_lay: the letters of the path it is on (the witness word when it says yes)
    cdef int wlen

    cdef int set_line(self, int p, int r) except -1:
        self.p = p
        self.r = r
        self.line = &self.grid[p][r][0]
        self.lch = &self.chars[p][r][0]
        self.lbv = &self.bval[p][r][0]
        self.lok = &self.allowed[p][r][0]
        self.lxs = &self.xsum[p][r][0]
        self.llm = &self.lm[p][r][0]
        self.lwm = &self.wm[p][r][0]
        self.lnxt = &self.nxt[p][r][0]
        return 0

    cdef int record(self, int end, int msum, int wmul, int xs, int nt) except -1:
        cdef int start = self.start
        cdef int i, size = self.size
        cdef long score
        if end - start < 2:
            return 0
        if self.require_old and nt == end - start:
            return 0
        if nt < self.min_tiles:
            return 0
        if self.s.dedupe_single and self.p == 1 and nt == 1 and self.lxs[self.first_placed] >= 0:
            return 0
        if self.nxt_on and self.lnxt[start] >= end:
            return 0
        score = <long>msum * wmul
        if self.s.cross_score:
            score += xs
        if self.s.bingo_tiles and nt >= self.s.bingo_tiles:
            score += self.s.bingo_bonus
        if score < self.thr:
            return 0
        if self.plan is not None:
            return _plan_push(<PlanListing>self.plan, self, end, score, nt)
        word = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, &self.lch[start], end - start)
        pl = []
        for i in range(start, end):
            if self.is_new[i]:
                pl.append((i, self.lch[i], bool(self.blank_at[i])))
        self.sink((score, nt, self.p == 1, self.r, start, word, tuple(pl), self.parts[self.p]))
        self.thr = self.thr_list[0]
        return 0

    cdef long ext_bound(self, int col, int32_t node, int msum, int wmul, int xs, int nt) noexcept:
        """The most a move continuing from ``col`` (the word's node ``node``) with one
        tile or more can score: the best over the squares where the word can end (within
        the node's height, before an empty square or the edge, at most the tiles left,
        no empty square the rack cannot lay a letter on) of the squares filled up to
        there, letter values paired best first with the multipliers.  -1: none.  Stops
        at the first end reaching the threshold (and returns that end's bound)."""
        cdef int hmax = col + self.g.height[node], size = self.size
        cdef int c, j = 0, B = 0, wmp = 1, X = 0
        cdef int n[4]
        cdef int nc[4]
        cdef int lmc, wmc, rem
        cdef long v, best = -1
        cdef uint64_t pm = self.pmask
        cdef int tb0 = _table_before(self, col) if self.need_nt != NULL else 0  # (plan_pass.pxi)
        cdef int vu = msum + _value_usable(self, node) if self.need_nt != NULL else 0
        n[1] = n[2] = n[3] = 0
        nc[1] = nc[2] = nc[3] = 0
        if hmax > size:
            hmax = size
        c = col
        while c < hmax:
            if self.line[c] == EMPTY:
                if j == self.left or not (self.lok[c] & pm):
                    break
                j += 1
                lmc = self.llm[c]
                wmc = self.lwm[c]
                n[lmc] += 1
                wmp *= wmc
                if self.lxs[c] >= 0:
                    X += self.lxs[c] * wmc
                    nc[lmc * wmc] += 1
            else:
                B += self.lbv[c]
            c += 1
            if j == 0 or (c < size and self.line[c] != EMPTY):
                continue  # no tile laid yet, or the word cannot end here
            rem = B + _pair(self.P, n[3], n[2], n[1])
            if self.s.plain and self.s.vmax[node] < rem:
                rem = self.s.vmax[node]  # no premiums: the rest of the word is worth at most its letters
            v = <long>(msum + rem) * wmul * wmp
            if self.s.cross_score:
                v += xs + X + _pair(self.P, nc[3], nc[2], nc[1])
            if self.s.bingo_tiles and nt + j >= self.s.bingo_tiles:
                v += self.s.bingo_bonus
            if self.need_nt != NULL:
                if _need_reached(self, v, tb0 + B, nt + j, vu + B):
                    return v  # (this end reaches its own need)
                continue
            if v >= self.thr:
                return v  # enough for the caller (it only compares with the threshold)
            if v > best:
                best = v
        return best if self.need_nt == NULL else -1  # (with need_nt: no end reaches its own)

    cdef int extend(self, int32_t node, int col, int msum, int wmul, int xs, int nt) except -1:
        global _STEPS
        _STEPS += 1
        cdef CGraph g = self.g
        cdef int size = self.size
        cdef int t, h, li, k, v, lmc, wmc, xc
        cdef int32_t e, ch
        cdef uint64_t m, ok, bit
        while col < size:
            t = self.line[col]
            if t == EMPTY:
                break
            node = g.get(node, t)
            if node < 0:
                return 0
            msum += self.lbv[col]
            col += 1
        if self.reach_at != NULL and not _reach_ok(self, node, col, self.lnxt[self.start], 0):
            return 0  # the word cannot hold a letter the square it must reach allows
        if self.join_only and not _join_reach(self, col, g.height[node], _runs_before(self, col)):
            return 0  # no word from here holds two groups of table tiles and leaves a tile
        if col > self.anchor and g.term[node]:
            self.record(col, msum, wmul, xs, nt)
        if col >= size or self.left == 0:
            return 0
        h = g.height[node]
        if h == 0:
            return 0
        if self.nxt_on and col + h <= self.lnxt[self.start]:
            return 0
        if self.min_tiles:
            if nt + (h if h < self.total - nt else self.total - nt) < self.min_tiles:
                return 0
            if nt + self.empties(col, col + h, self.min_tiles - nt) < self.min_tiles:
                return 0  # too few empty squares within the longest continuation
            if nt + self.usable(node) < self.min_tiles:
                return 0  # too few rack tiles whose letters a continuation holds
        if (self.thr > 0 or self.need_nt != NULL) and self.ext_bound(col, node, msum, wmul, xs, nt) < self.thr:
            return 0
        ok = self.lok[col]
        lmc = self.llm[col]
        wmc = self.lwm[col]
        xc = self.lxs[col]
        m = g.mask[node]
        e = g.first[node]
        if nt == 0:
            self.first_placed = col
        self.is_new[col] = 1
        while m:
            li = sl_ctz(m)
            bit = (<uint64_t>1) << li
            m ^= bit
            ch = g.child[e]
            e += 1
            if not (ok & bit):
                continue
            k = self.s.kind_of[li]
            if self.counts[li] == 0 and (k < 0 or self.bl[k] == 0):
                continue
            self.line[col] = li
            self.lch[col] = g.lchar[li]
            if self.counts[li]:
                self.counts[li] -= 1
                if self.counts[li] == 0:
                    self.rmask ^= bit
                self.left -= 1
                v = self.s.val[li] * lmc
                self.extend(ch, col + 1, msum + v, wmul * wmc, xs if xc < 0 else xs + (xc + v) * wmc, nt + 1)
                self.left += 1
                self.counts[li] += 1
                self.rmask |= bit
            if k >= 0 and self.bl[k]:
                self.bl[k] -= 1
                self.nbl -= 1
                self.left -= 1
                self.blank_at[col] = 1
                self.extend(ch, col + 1, msum, wmul * wmc, xs if xc < 0 else xs + xc * wmc, nt + 1)
                self.blank_at[col] = 0
                self.left += 1
                self.nbl += 1
                self.bl[k] += 1
        self.line[col] = EMPTY
        self.lch[col] = u'.'
        self.is_new[col] = 0
        return 0

    cdef int usable(self, int32_t node) noexcept:
        """The rack tiles left that a continuation from ``node`` can use: the blanks and,
        per letter the node reaches, the tiles of it up to the most times one path holds
        that letter."""
        cdef uint64_t m = self.g.reach[node] & self.rmask
        cdef int n = self.nbl, li, k
        cdef uint8_t *most = &self.g.most[<Py_ssize_t>node * self.g.nl]
        while m:
            li = sl_ctz(m)
            m &= m - 1
            k = most[li]  # no path holds the letter more often
            n += self.counts[li] if self.counts[li] < k else k
        return n

    cdef int empties(self, int lo, int hi, int enough) noexcept:
        """The empty squares of the line in ``lo .. hi-1`` (counted up to ``enough``)."""
        cdef int c, n = 0
        if hi > self.size:
            hi = self.size
        for c in range(lo, hi):
            if self.line[c] == EMPTY:
                n += 1
                if n >= enough:
                    break
        return n

    cdef int with_left(self, int32_t node, int depth, int limit, int a, int lsum) except -1:
        """Every left part of the rack (in the recursion's arrays) ending left of
        anchor ``a``, then extended right from ``a``."""
        global _STEPS
        _STEPS += 1
        cdef CGraph g = self.g
        cdef int i, c, s, msum, wmul, li, k
        cdef int32_t e, ch
        cdef uint64_t m, bit
        cdef int h, here
        if depth > 0 and self.thr > 0 and self.lpb[depth] < self.thr:
            return 0  # no word with a left part this long or longer reaches the threshold
        if self.join_only and not _join_reach(self, a, g.height[node], 0):
            return 0  # (the left part holds no table tile)
        if self.need_nt != NULL and self.s.plain and not self.s.cross_score and not self.s.bingo_tiles and \
                not _need_left_ok(self, node, depth, a, limit, lsum):
            return 0  # no word through this left part or a longer one reaches its need
        if self.nxt_on and depth > 0 and a + g.height[node] <= self.lnxt[a - limit]:
            # touch: the word (starting at a - limit or later, ending before a + height)
            # cannot reach the first square it must hold
            return 0
        here = 1
        if self.reach_at != NULL and depth > 0 and not _reach_ok(self, node, a, self.lnxt[a - depth], 0):
            # this left part cannot be the word's whole left part; a longer one (its
            # letters a square further left each) needs the letter further down
            if not _reach_ok(self, node, a, self.lnxt[a - depth], 1):
                return 0
            here = 0
        if self.min_tiles and depth > 0:
            h = g.height[node]
            if depth + (h if h < self.left else self.left) < self.min_tiles:
                return 0
            if depth + self.usable(node) < self.min_tiles:
                return 0
            # the rest of the word: at most h letters, on the left squares still free
            # (all empty) and the squares from the anchor on (empty ones take tiles)
            if depth + (limit - depth) + self.empties(a, a + h, self.min_tiles) < self.min_tiles:
                return 0
        if depth > 0 and self.thr > 0 and self.s.plain and not self.s.cross_score:
            if self.left_bound(node, depth, a, lsum) < self.thr:
                return 0  # no word through this left part reaches the threshold
        if depth > 0 and g.mask[node] != 0 and here:
            s = a - depth
            if not (self.nxt_on and self.lnxt[s] >= self.size):
                msum = 0
                wmul = 1
                for i in range(depth):
                    c = s + i
                    li = self.lp_li[i]
                    self.line[c] = li
                    self.lch[c] = g.lchar[li]
                    self.blank_at[c] = self.lp_b[i]
                    self.is_new[c] = 1
                    if not self.lp_b[i]:
                        msum += self.s.val[li] * self.llm[c]
                    wmul *= self.lwm[c]
                self.start = s
                self.first_placed = s
                self.extend(node, a, msum, wmul, 0, depth)
                for i in range(depth):
                    c = s + i
                    self.line[c] = EMPTY
                    self.lch[c] = u'.'
                    self.blank_at[c] = 0
                    self.is_new[c] = 0
        if depth >= limit or depth >= self.maxlen:
            return 0
        m = g.mask[node]
        e = g.first[node]
        while m:
            li = sl_ctz(m)
            bit = (<uint64_t>1) << li
            m ^= bit
            ch = g.child[e]
            e += 1
            self.lp_li[depth] = li
            if self.counts[li]:
                self.counts[li] -= 1
                if self.counts[li] == 0:
                    self.rmask ^= bit
                self.left -= 1
                self.lp_b[depth] = 0
                self.with_left(ch, depth + 1, limit, a, lsum + self.s.val[li])
                self.left += 1
                self.counts[li] += 1
                self.rmask |= bit
            k = self.s.kind_of[li]
            if k >= 0 and self.bl[k]:
                self.bl[k] -= 1
                self.nbl -= 1
                self.left -= 1
                self.lp_b[depth] = 1
                self.with_left(ch, depth + 1, limit, a, lsum)
                self.lp_b[depth] = 0
                self.left += 1
                self.nbl += 1
                self.bl[k] += 1
        return 0

    cdef long left_bound(self, int32_t node, int depth, int a, int lsum) noexcept:
        """Without premiums or cross-word points: the most a word whose left part (``depth``
        rack tiles worth ``lsum``) ends in ``node`` can score: the rest of the word is worth
        at most the best path from ``node`` (``vmax``) and at most the best tiles left plus
        the board tiles within the node's height right of anchor ``a``."""
        cdef int h = self.g.height[node], c, hi, B = 0, rem
        cdef long out
        hi = a + h
        if hi > self.size:
            hi = self.size
        for c in range(a, hi):
            B += self.lbv[c]
        rem = self.P[self.left] + B
        if self.s.vmax[node] < rem:
            rem = self.s.vmax[node]
        out = lsum + rem
        if self.s.bingo_tiles and depth + self.left >= self.s.bingo_tiles:
            out += self.s.bingo_bonus
        return out

    cdef int anchor_bound(self, int a, int lo, long *by_len=NULL) noexcept:
        """The most any move through anchor ``a`` starting at ``lo`` or later can score
        (the shadow bound of wolges' move generator): the best, over every stretch of the
        line from ``s`` (``lo <= s <= a``) to ``e`` (``e >= a``) that a word can fill (no
        tile just before or after it, at most the rack's tiles on its empty squares, each
        empty square taking a letter the rack or a blank can lay there), of the stretch's
        board tiles plus the rack's best values on its letter multipliers, times its word
        multipliers, plus its cross words with the best values on their multipliers, plus
        the bingo.  ``by_len``: if given, ``by_len[d]`` is set to the best over the
        stretches starting ``d`` squares or more left of the anchor (-1: none)."""
        cdef int s, e, k, B, wmp, X, R = self.R, size = self.size, lmc, wmc, cm
        cdef int n[4]
        cdef int nc[4]
        cdef long v, best = -1
        cdef uint64_t pm = self.pmask
        if by_len != NULL:
            for s in range(a - lo + 2):
                by_len[s] = -1
        for s in range(lo, a + 1):
            if s > 0 and self.line[s - 1] != EMPTY:
                if by_len != NULL:
                    by_len[a - s] = best
                continue  # the word would reach further left
            k = 0
            B = 0
            wmp = 1
            X = 0
            n[1] = n[2] = n[3] = 0
            nc[1] = nc[2] = nc[3] = 0
            for e in range(s, size):
                if self.line[e] == EMPTY:
                    if k == R or not (self.lok[e] & pm):
                        break
                    k += 1
                    lmc = self.llm[e]
                    wmc = self.lwm[e]
                    n[lmc] += 1
                    wmp *= wmc
                    if self.lxs[e] >= 0:
                        X += self.lxs[e] * wmc
                        cm = lmc * wmc
                        nc[cm] += 1
                else:
                    B += self.lbv[e]
                if e < a or k == 0:
                    continue
                if e + 1 < size and self.line[e + 1] != EMPTY:
                    continue  # the word would reach further right
                v = <long>(B + _pair(self.P, n[3], n[2], n[1])) * wmp
                if self.s.cross_score:
                    v += X + _pair(self.P, nc[3], nc[2], nc[1])
                if self.s.bingo_tiles and k >= self.s.bingo_tiles:
                    v += self.s.bingo_bonus
                if v > best:
                    best = v
            if by_len != NULL:
                by_len[a - s] = best  # (best so far: the stretches from lo to s)
        return <int>best

    cdef int run_anchor(self, int p, int r, int a, int lo=-1) except -1:
        # (``lo``: the first square of the anchor-free empty stretch left of ``a`` when the
        # set-up found it from the anchor bit masks; -1: found here square by square)
        cdef CGraph g = self.g
        cdef int s, c, msum, limit, size = self.size
        cdef int32_t node
        self.set_line(p, r)
        self.anchor = a
        if a > 0 and self.line[a - 1] != EMPTY:
            s = a - 1
            while s > 0 and self.line[s - 1] != EMPTY:
                s -= 1
            node = 0
            msum = 0
            for c in range(s, a):
                node = g.get(node, self.line[c])
                if node < 0:
                    return 0
                msum += self.lbv[c]
            if self.nxt_on and self.lnxt[s] >= size:
                return 0
            self.start = s
            self.extend(node, a, msum, 1, 0, 0)
            return 0
        limit = 0
        if lo >= 0:
            limit = a - lo
        else:
            c = a - 1
            while c >= 0 and self.line[c] == EMPTY and not self.is_anchor(c):
                limit += 1
                c -= 1
        if self.nxt_on and self.lnxt[a - limit] >= size:
            return 0
        self.start = a
        self.extend(0, a, 0, 1, 0, 0)
        if limit:
            if self.plan is None or self.thr > 0:
                # (with_left reads the bounds only while the threshold is above 0; a
                # PlanListing sink never raises it: issue 35, a small rack's listing)
                self.anchor_bound(a, a - limit, self.lpb)
            self.with_left(0, 0, limit, a, 0)
        return 0

    cdef int is_anchor(self, int c) noexcept:
        """Whether square ``c`` of the current line is an anchor."""
        cdef int r = self.r, p = self.p, size = self.size
        if self.empty_board:
            return c == (self.s.cc if p == 0 else self.s.cr) and r == (self.s.cr if p == 0 else self.s.cc)
        if self.grid[p][r][c] != EMPTY:
            return 0
        return ((c > 0 and self.grid[p][r][c - 1] != EMPTY) or (c < size - 1 and self.grid[p][r][c + 1] != EMPTY)
                or (r > 0 and self.grid[p][r - 1][c] != EMPTY) or (r < size - 1 and self.grid[p][r + 1][c] != EMPTY))
