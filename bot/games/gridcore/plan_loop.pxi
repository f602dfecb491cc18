# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's plan loop: PlanListing.plan_loop (phase (a) over the joining placements, the choice of phase (b)) and the compiled touch bound.

cdef int _KREUZ_LOOSE = 1  # plan_loop: the Kreuzwort-Spiel's candidates by the first bound while no plan lays every tile


def kreuz_loose_bound(on=None):
    """Whether :meth:`PlanListing.plan_loop` in the Kreuzwort-Spiel, while the best plan
    does not lay every tile, bounds a phase (b) candidate by the first bound's value
    (the best single placement or a line plus the rack's values) instead of the touch
    bound (``_touch_bound_c``): True by default; ``on`` (bool) sets it first (tests,
    benches). The same answers either way (issue 35)."""
    global _KREUZ_LOOSE
    if on is not None:
        _KREUZ_LOOSE = 1 if on else 0
    return _KREUZ_LOOSE != 0


cdef object _plan_loop(PlanListing self, int b0, int b1, int rack_sum, root, spec, cache, TouchBound bounder,
                       on_plan):
    """:meth:`PlanListing.plan_loop` (same arguments and answer)."""
    cdef int i, j, nc = 0, gi, g, W = self.W, x, k, mi, s0, s1, got, m0, m1, l0, l1
    cdef int u0, u1, tb, v, nk, need, tt
    cdef uint64_t plain[4]
    cdef uint64_t *gc
    cdef uint64_t *gc2
    cdef uint64_t *cand
    cdef int ntied, left, d, est
    cdef PRec *rec
    cdef PRec *r2
    cdef PTile *t
    cdef Py_UCS4 uc
    cdef int lv[64]
    cdef int tr_[64]
    cdef int tc_[64]
    cdef int tv_[64]
    cdef int extra, line_best = 0, sr, sc
    later = []
    if self.n == 0:
        return later
    if self.gk0 == NULL:
        raise ValueError("call finish() first")
    # what a second placement adds at most, for the first bound: (a) the best
    # single placement, (b) the table tiles of a line plus the rack's values
    # (plan_ref._line_bound)
    for i in range(bounder.size):
        sr = sc = 0
        for j in range(bounder.size):
            sr += bounder.val[i][j]
            sc += bounder.val[j][i]
        line_best = max(line_best, sr, sc)
    extra = max(<int>self.top_score(), line_best + rack_sum)
    cand = <uint64_t *>malloc(self.n * sizeof(uint64_t))
    if cand == NULL:
        raise MemoryError()
    try:
        for i in range(self.n):
            rec = &self.recs[i]
            if not rec.joining:
                continue
            # the first bound: key(score + extra, every tile of the rack)
            if self.kreuz:
                u0, u1 = self.n_rack, rec.score + extra
            else:
                u0, u1 = rec.score + extra, self.n_rack
            cand[nc] = ((<uint64_t>(0xFFFFF - u0)) << 44) | ((<uint64_t>(0xFFFFF - u1)) << 24) | <uint64_t>i
            nc += 1
        _sort_packed(cand, nc)
        for j in range(nc):
            i = <int>(cand[j] & 0xFFFFFF)
            u0 = 0xFFFFF - <int>(cand[j] >> 44)
            u1 = 0xFFFFF - <int>((cand[j] >> 24) & 0xFFFFF)
            if _kcmp(u0, u1, b0, b1) < 0:
                break
            rec = &self.recs[i]
            gc = &self.gcode[rec.group * W]
            for x in range(W):
                self.have[x] = self.rack_code[x] - gc[x] + self.guard[x]
            m0, m1 = rec.k0, rec.k1
            l0, l1 = b0 - m0, b1 - m1   # key(m + r2) < best  <=>  key(r2) < (l0, l1)
            # (a) the best placement of the listing that m leaves untouched
            self.set_mark(i, 1)
            self.got = 0
            self.ntied = 0
            self.l0, self.l1 = l0, l1
            left = self.n_rack - rec.nt
            for x in range(W):
                plain[x] = self.rack_code[x] - gc[x]
            # the groups laying at most the tiles left, most tiles first: a part of
            # tord in the order of its best record (no later group of it is
            # better), or, when that is fewer lookups, the multisets of the rack left
            # less d tiles looked up (d <= 3)
            for tt in range(min(left, 64), 0, -1):
                if self.kreuz and tt < l0:
                    break  # (Kreuzwort: a group's key starts with the tiles it lays)
                d = left - tt
                nk = 0
                for x in range(self.nfields):
                    if (plain[x // 10] >> (6 * (x % 10))) & 63:
                        nk += 1
                est = 1 if d == 0 else nk if d == 1 else nk * (nk + 1) // 2 if d == 2 else \
                    nk * (nk + 1) * (nk + 2) // 6 if d == 3 else 1 << 30
                if est < self.tstart[tt + 1] - self.tstart[tt]:
                    self.sub_codes(plain, d, 0)
                    continue
                for gi in range(self.tstart[tt], self.tstart[tt + 1]):
                    g = self.tord[gi]
                    gc2 = &self.gcode[g * W]
                    for x in range(W):
                        if ((self.have[x] - gc2[x]) & self.guard[x]) != self.guard[x]:
                            break
                    else:
                        if self.visit(g):
                            break
                        continue
                    if _kcmp(self.gk0[g], self.gk1[g], l0, l1) < 0 or \
                            (self.got and _kcmp(self.gk0[g], self.gk1[g], self.s0, self.s1) < 0):
                        break
            got, s0, s1, ntied = self.got, self.s0, self.s1, self.ntied
            self.set_mark(i, 0)
            if got and _kcmp(m0 + s0, m1 + s1, b0, b1) >= 0:
                b0, b1 = on_plan(i, [self.tied[k] for k in range(ntied)])
            # (b) only when a second placement touching m can still reach the best plan
            rack2 = self.left_rack(i)
            need = (b0 - rec.nt) if self.kreuz else 0
            if need > 0 and not _can_lay_q(root, rack2, need, spec, cache):
                continue  # no word holds enough of the tiles left, nor will
            for k in range(rec.nt):
                t = &self.tl[rec.toff + k]
                if rec.p:
                    tr_[k] = t.pos
                    tc_[k] = rec.r
                else:
                    tr_[k] = rec.r
                    tc_[k] = t.pos
                tv_[k] = 0 if t.blank else (self.val[t.ch] if t.ch < 1024 else 0)
            if self.kreuz and b0 < self.n_rack and _KREUZ_LOOSE:
                # (the Kreuzwort-Spiel while no plan lays every tile: the key's tiles,
                # every tile of the rack, beat the best whatever the value bound is, so
                # the first bound's value, a valid but looser one, is taken instead of the
                # touch bound: only the order of the candidates and, once a plan lays
                # every tile, how many are searched can change, never the answer)
                tb = extra
            else:
                nk = 0
                for uc in rack2:
                    lv[nk] = self.val[uc] if uc < 1024 else 0
                    nk += 1
                tb = _touch_bound_c(bounder, rec.nt, tr_, tc_, tv_, nk, lv)
            if self.kreuz:
                u0, u1 = self.n_rack, rec.score + tb
            else:
                u0, u1 = rec.score + tb, self.n_rack
            if _kcmp(u0, u1, b0, b1) >= 0:
                m_tiles = []
                for k in range(rec.nt):
                    t = &self.tl[rec.toff + k]
                    m_tiles.append((tr_[k], tc_[k], PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, &t.ch, 1),
                                    t.blank != 0))
                later.append(((u0, u1), m_tiles, rec.score, rec.nt, rack2, i))
    finally:
        free(cand)
    return later


cdef int _insort_desc(int *a, int k) noexcept:
    cdef int i, j, x
    for i in range(1, k):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] < x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x
    return 0


cdef int _touch_bound_c(TouchBound T, int n, int *tr_, int *tc_, int *tv_, int k, int *rack_values) noexcept:
    """``TouchBound.bound`` on C arrays: the first placement's ``n`` new tiles at
    (``tr_[i]``, ``tc_[i]``) worth ``tv_[i]`` on the table, the ``k`` values of the rack it
    leaves (sorted here, in place)."""
    cdef int size = T.size
    cdef int top[64]
    cdef int pre[MAXS + 1]
    cdef int emp[MAXS]
    cdef int need[MAXS]
    cdef int i, tr, ln, pos, ne, lo, hi, best = 0, x, r, c, j
    _insort_desc(rack_values, k)
    top[0] = 0
    for i in range(k):
        top[i + 1] = top[i] + rack_values[i]
    for j in range(n):
        T.occ[tr_[j]][tc_[j]] = 1
        T.val[tr_[j]][tc_[j]] = tv_[j]
    for tr in range(2):
        for i in range(size):
            need[i] = 0
        for j in range(n):
            r, c = tr_[j], tc_[j]
            if tr:
                ln, pos = c, r
            else:
                ln, pos = r, c
            need[ln] = 1
            i = ln - 1
            while i >= 0 and T.at_occ(tr, i, pos):
                i -= 1
            if i >= 0:
                need[i] = 1
            i = ln + 1
            while i < size and T.at_occ(tr, i, pos):
                i += 1
            if i < size:
                need[i] = 1
        for ln in range(size):
            if not need[ln]:
                continue
            pre[0] = 0
            ne = 0
            for i in range(size):
                if T.at_occ(tr, ln, i):
                    pre[i + 1] = pre[i] + T.at_val(tr, ln, i)
                else:
                    pre[i + 1] = pre[i]
                    emp[ne] = i
                    ne += 1
            if ne <= k:
                x = pre[size] + top[ne]
                if x > best:
                    best = x
                continue
            for i in range(ne - k + 1):
                lo = emp[i - 1] + 1 if i else 0
                hi = emp[i + k] if i + k < ne else size
                x = pre[hi] - pre[lo] + top[k]
                if x > best:
                    best = x
    for j in range(n):
        T.occ[tr_[j]][tc_[j]] = 0
        T.val[tr_[j]][tc_[j]] = 0
    return best
