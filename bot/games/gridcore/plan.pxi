# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's plan: PlanListing (the first listing in C arrays, its groups and phase (a)'s steps; the loop itself is in plan_loop.pxi).

from libc.stdint cimport int16_t

cdef int16_t _PLAN_VAL[1024]  # the value table of _PLAN_VALUES (PlanListing copies it)
cdef object _PLAN_VALUES = None
cdef dict _PLAN_COPY = None  # (a copy of it: a changed dict is seen)


cdef int _plan_values(values) except -1:
    """Make ``_PLAN_VAL`` the value table of ``values`` (letter -> value; 0 elsewhere),
    rebuilt only when ``values`` is another dict or has changed."""
    global _PLAN_VALUES, _PLAN_COPY
    cdef int i
    if values is _PLAN_VALUES and values == _PLAN_COPY:
        return 0
    for i in range(1024):
        _PLAN_VAL[i] = 0
    for ch, v in values.items():
        if len(ch) == 1 and ord(ch) < 1024:
            if not -32768 <= v <= 32767:
                raise ValueError(f"letter value {v} out of range")
            _PLAN_VAL[ord(ch)] = v
    _PLAN_VALUES = values
    _PLAN_COPY = dict(values)
    return 0


cdef class PlanListing:
    """The first listing of a Typ-Dom plan in C arrays: pass it as the ``sink`` of
    :func:`search` (with a threshold of -1), then call :meth:`finish`.
    ``PlanListing(rack, kreuz, values, vowels)``: the plan's rack (its tile kinds are the
    usage fields, in code order as ``movegen._multiset_code``), ``kreuz`` True for the
    Kreuzwort-Spiel's key (tiles, then points), ``values`` the letter values, ``vowels``
    the letters the red Jolly (``?``) stands for (the black one, ``#``, for the rest)."""
    cdef PRec *recs
    cdef int n, cap
    cdef Py_UCS4 *wch
    cdef int nw, capw
    cdef PTile *tl
    cdef int ntl, captl
    cdef uint64_t *codes     # per record W words: its usage (6 bits a field)
    cdef int capc
    cdef int W, nfields, kreuz, n_rack, size, njoin
    # (16-bit tables: the object is zeroed when made, and a small rack's turn makes one;
    # issue 35, branch i35-med)
    cdef int16_t fld[1024]   # field of a letter laid as itself (-1: none)
    cdef int16_t fldb[1024]  # field of the Jolly laying a letter (-1: none)
    cdef int16_t val[1024]   # letter values
    cdef uint64_t guard[4]
    cdef uint64_t rack_code[4]
    cdef object parts
    cdef object rack_fields  # the field characters, in order
    # groups (finish)
    cdef int *members        # record indices, group by group, each best key first
    cdef int *gstart         # per group: its first member (ngroups + 1 entries)
    cdef uint64_t *gcode     # per group: W words
    cdef int ngroups
    cdef int *gk0            # per group: the key of its best member
    cdef int *gk1
    cdef int *tord           # the groups by the tiles they lay, each part in group order
    cdef int tstart[66]      # tord[tstart[t]:tstart[t + 1]]: the groups laying t tiles
    cdef list grack          # per group: the rack it leaves (str, lazily)
    cdef int *htab           # open addressing: usage code -> group (-1: none)
    cdef int hsize
    # phase (a) of one joining placement (plan_loop)
    cdef int l0, l1, got, s0, s1, ntied
    cdef int *tied
    cdef uint64_t have[4]
    cdef uint8_t mark[MAXS][MAXS]
    # the listing's pass (plan_pass.pxi): 0 every record, 1 joining ones, 2 the rest reaching need[nt]
    cdef public int mode
    cdef int need[66]

    def __cinit__(self, rack, kreuz, values, vowels):
        cdef int i, f
        self.recs = NULL
        self.wch = NULL
        self.tl = NULL
        self.codes = NULL
        self.members = NULL
        self.gstart = NULL
        self.gcode = NULL
        self.gk0 = self.gk1 = self.tord = NULL
        self.htab = NULL
        self.tied = NULL
        self.n = self.cap = self.nw = self.capw = self.ntl = self.captl = self.capc = 0
        self.ngroups = 0
        self.njoin = 0
        self.parts = None
        self.kreuz = 1 if kreuz else 0
        self.n_rack = len(rack)
        kinds = sorted(set(rack))
        self.rack_fields = kinds
        self.nfields = len(kinds)
        self.W = (self.nfields + 9) // 10
        if self.W > 4:
            raise ValueError("too many kinds of tile")
        if self.W == 0:
            self.W = 1
        # (issue 35, the set-up of a small rack's turn: -1 by memset, the value table
        # copied from the one made for the last ``values``, and the per-letter loops
        # only over what the rack holds; the same tables as a loop over every letter)
        memset(self.fld, 0xff, sizeof(self.fld))
        memset(self.fldb, 0xff, sizeof(self.fldb))
        _plan_values(values)
        memcpy(self.val, _PLAN_VAL, sizeof(self.val))
        field = {ch: i for i, ch in enumerate(kinds)}
        for ch in kinds:
            if len(ch) == 1 and ord(ch) < 1024 and ch in values:
                self.fld[ord(ch)] = field[ch]
        if "?" in field or "#" in field:
            for ch in values:
                if len(ch) != 1 or ord(ch) >= 1024:
                    continue
                jolly = "?" if ch in vowels else "#"
                if jolly in field:
                    self.fldb[ord(ch)] = field[jolly]
        for i in range(4):
            self.guard[i] = 0
            self.rack_code[i] = 0
        for f in range(self.nfields):
            self.guard[f // 10] |= (<uint64_t>32) << (6 * (f % 10))
        for ch in rack:
            f = field[ch]
            self.rack_code[f // 10] += (<uint64_t>1) << (6 * (f % 10))
        memset(self.mark, 0, sizeof(self.mark))
        self.grack = []
        self.mode = 0
        for i in range(66):
            self.need[i] = 0

    def __dealloc__(self):
        free(self.recs)
        free(self.wch)
        free(self.tl)
        free(self.codes)
        free(self.members)
        free(self.gstart)
        free(self.gcode)
        free(self.gk0)
        free(self.gk1)
        free(self.tord)
        free(self.htab)
        free(self.tied)

    def __len__(self):
        return self.n

    def set_pass(self, int mode, need=None):
        """The records the next search adds (plan_pass.pxi): ``mode`` 0 every record, 1
        only joining placements (the search cuts words that cannot be one), 2 only
        records that are not joining and score at least ``need[nt]`` (a list indexed by
        the tiles laid; a missing entry or None: not listed). Raises ValueError for
        another mode, or after :meth:`finish`."""
        cdef int k
        if mode not in (0, 1, 2):
            raise ValueError(f"mode must be 0, 1 or 2, not {mode}")
        if self.gk0 != NULL:
            raise ValueError("the listing is finished")
        self.mode = mode
        for k in range(66):
            v = need[k] if need is not None and k < len(need) else (None if mode == 2 else 0)
            self.need[k] = 1 << 30 if v is None else v

    def join_max(self):
        """Per tiles laid (0 .. the rack's size), the best score of a joining record
        listed so far (-1: none)."""
        cdef int i, k
        out = [-1] * (self.n_rack + 1)
        for i in range(self.n):
            if self.recs[i].joining:
                k = self.recs[i].nt
                if self.recs[i].score > out[k]:
                    out[k] = self.recs[i].score
        return out

    def finish(self):
        """Rank the records (best key first, then search order) and group them by the
        rack tiles they use, the groups in the order of their best record."""
        cdef uint64_t *order
        cdef int i, j, x, g, W = self.W, h, hsize
        cdef int *gid
        cdef int *table
        cdef int *count
        cdef PRec *rec
        cdef uint64_t *c
        if self.n == 0:
            return
        order = <uint64_t *>malloc(self.n * sizeof(uint64_t))
        gid = <int *>malloc(self.n * sizeof(int))
        hsize = 1
        while hsize < 2 * self.n:
            hsize *= 2
        table = <int *>malloc(hsize * sizeof(int))
        self.gcode = <uint64_t *>malloc(self.n * W * sizeof(uint64_t))
        count = <int *>malloc((self.n + 66) * sizeof(int))
        self.members = <int *>malloc(self.n * sizeof(int))
        self.gstart = <int *>malloc((self.n + 1) * sizeof(int))
        self.tied = <int *>malloc(self.n * sizeof(int))
        if order == NULL or gid == NULL or table == NULL or self.gcode == NULL or count == NULL \
                or self.members == NULL or self.gstart == NULL or self.tied == NULL:
            free(order)
            free(gid)
            free(table)
            free(count)
            raise MemoryError()
        try:
            for i in range(self.n):
                rec = &self.recs[i]
                # keys below 2**20 (scores and tiles are far smaller), indices below 2**24
                order[i] = ((<uint64_t>(0xFFFFF - rec.k0)) << 44) | ((<uint64_t>(0xFFFFF - rec.k1)) << 24) | <uint64_t>i
            _sort_packed(order, self.n)
            for i in range(hsize):
                table[i] = -1
            self.ngroups = 0
            for j in range(self.n):
                i = <int>(order[j] & 0xFFFFFF)
                c = &self.codes[i * W]
                h = <int>(_code_hash(c, W) & <uint64_t>(hsize - 1))
                while True:
                    g = table[h]
                    if g < 0:
                        g = self.ngroups
                        self.ngroups += 1
                        table[h] = g
                        for x in range(W):
                            self.gcode[g * W + x] = c[x]
                        count[g] = 0
                        break
                    for x in range(W):
                        if self.gcode[g * W + x] != c[x]:
                            break
                    else:
                        break
                    h = (h + 1) & (hsize - 1)
                gid[j] = g
                count[g] += 1
                self.recs[i].group = g
            self.gstart[0] = 0
            for g in range(self.ngroups):
                self.gstart[g + 1] = self.gstart[g] + count[g]
                count[g] = self.gstart[g]
            for j in range(self.n):
                g = gid[j]
                self.members[count[g]] = <int>(order[j] & 0xFFFFFF)
                count[g] += 1
            # per group its best key, and the groups by the tiles they lay (a group's
            # records all lay the same number of tiles)
            self.gk0 = <int *>malloc(self.ngroups * sizeof(int))
            self.gk1 = <int *>malloc(self.ngroups * sizeof(int))
            self.tord = <int *>malloc(self.ngroups * sizeof(int))
            if self.gk0 == NULL or self.gk1 == NULL or self.tord == NULL:
                raise MemoryError()
            for x in range(66):
                self.tstart[x] = 0
            for g in range(self.ngroups):
                rec = &self.recs[self.members[self.gstart[g]]]
                self.gk0[g] = rec.k0
                self.gk1[g] = rec.k1
                self.tstart[min(rec.nt, 64) + 1] += 1
            for x in range(1, 66):
                self.tstart[x] += self.tstart[x - 1]
            for x in range(65):
                count[x] = self.tstart[x]
            for g in range(self.ngroups):
                x = min(self.recs[self.members[self.gstart[g]]].nt, 64)
                self.tord[count[x]] = g
                count[x] += 1
        finally:
            free(order)
            free(gid)
            free(count)
        self.htab = table
        self.hsize = hsize
        self.grack = [None] * self.ngroups

    def top(self):
        """The indices of the records with the best key (in search order)."""
        cdef int i, b0 = -1, b1 = -1
        out = []
        for i in range(self.n):
            x = _kcmp(self.recs[i].k0, self.recs[i].k1, b0, b1)
            if x > 0:
                b0 = self.recs[i].k0
                b1 = self.recs[i].k1
                out = [i]
            elif x == 0:
                out.append(i)
        return out

    def joining(self):
        """How many records are joining placements that leave a tile in the rack."""
        return self.njoin

    def top_score(self):
        """The best score of a record (-1: none)."""
        cdef int i, b = -1
        for i in range(self.n):
            if self.recs[i].score > b:
                b = self.recs[i].score
        return b

    def raw(self, int i):
        """The raw search record ``i`` as :func:`search` passes it to a sink."""
        cdef PRec *rec
        cdef PTile *t
        cdef int k
        if not 0 <= i < self.n:
            raise IndexError(i)
        rec = &self.recs[i]
        word = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, &self.wch[rec.woff], rec.length)
        pl = []
        for k in range(rec.nt):
            t = &self.tl[rec.toff + k]
            pl.append((t.pos, PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, &t.ch, 1), t.blank != 0))
        return (rec.score, rec.nt, rec.p == 1, rec.r, rec.start, word, tuple(pl), self.parts[rec.p])

    def detail(self, int i):
        """What record ``i`` holds besides :meth:`raw` (for tests): ``(joining, k0, k1,
        usage code words, per new tile (pos, letter, jolly, up, down, field))``."""
        cdef PRec *rec
        cdef PTile *t
        cdef int k
        if not 0 <= i < self.n:
            raise IndexError(i)
        rec = &self.recs[i]
        tiles = []
        for k in range(rec.nt):
            t = &self.tl[rec.toff + k]
            tiles.append((t.pos, t.ch, t.blank, t.up, t.down, t.field))
        tiles = tuple(tiles)
        return (rec.joining, rec.k0, rec.k1, tuple([self.codes[i * self.W + k] for k in range(self.W)]), tiles)

    cdef str left_rack(self, int i):
        """The rack record ``i`` leaves (code order), memoised per usage group."""
        cdef int g = self.recs[i].group, f, k, W = self.W
        cdef uint64_t have
        s = self.grack[g]
        if s is None:
            out = []
            for f in range(self.nfields):
                have = (self.rack_code[f // 10] >> (6 * (f % 10))) & 63
                have -= (self.gcode[g * W + f // 10] >> (6 * (f % 10))) & 63
                for k in range(<int>have):
                    out.append(self.rack_fields[f])
            s = self.grack[g] = "".join(out)
        return s

    cdef void set_mark(self, int i, uint8_t v) noexcept:
        cdef PRec *rec = &self.recs[i]
        cdef int k, pos
        for k in range(rec.nt):
            pos = self.tl[rec.toff + k].pos
            if rec.p:
                self.mark[pos][rec.r] = v
            else:
                self.mark[rec.r][pos] = v

    cdef inline int marked(self, int p, int ln, int pos) noexcept:
        if ln < 0 or pos < 0 or ln >= self.size or pos >= self.size:
            return 0
        return self.mark[pos][ln] if p else self.mark[ln][pos]

    cdef int touches(self, int i) noexcept:
        """Whether a marked square lies in the zone of record ``i`` (``movegen._zone``)."""
        cdef PRec *rec = &self.recs[i]
        cdef PTile *t
        cdef int q, k, ln
        for q in range(rec.start - 1, rec.start + rec.length + 1):
            if self.marked(rec.p, rec.r, q):
                return 1
        for k in range(rec.nt):
            t = &self.tl[rec.toff + k]
            for ln in range(rec.r - t.up - 1, rec.r + t.down + 2):
                if self.marked(rec.p, ln, t.pos):
                    return 1
        return 0

    cdef int lookup(self, uint64_t *c) noexcept:
        """The group whose usage code is ``c`` (W words), or -1."""
        cdef int x, g, h, W = self.W
        h = <int>(_code_hash(c, W) & <uint64_t>(self.hsize - 1))
        while True:
            g = self.htab[h]
            if g < 0:
                return -1
            for x in range(W):
                if self.gcode[g * W + x] != c[x]:
                    break
            else:
                return g
            h = (h + 1) & (self.hsize - 1)

    cdef int visit(self, int g) noexcept:
        """Phase (a) on group ``g`` (its tiles in the rack left): its records, best key
        first, that reach the limit and the best so far and leave the marked squares'
        zone alone. Returns 1 when the group is below the limit or the best so far
        (in a part of ``tord`` no later group is better)."""
        cdef int k, mi, x = 0
        cdef PRec *r2
        if _kcmp(self.gk0[g], self.gk1[g], self.l0, self.l1) < 0 or \
                (self.got and _kcmp(self.gk0[g], self.gk1[g], self.s0, self.s1) < 0):
            return 1
        for k in range(self.gstart[g], self.gstart[g + 1]):
            mi = self.members[k]
            r2 = &self.recs[mi]
            if _kcmp(r2.k0, r2.k1, self.l0, self.l1) < 0:
                break
            if self.got:
                x = _kcmp(r2.k0, r2.k1, self.s0, self.s1)
                if x < 0:
                    break
            if self.touches(mi):
                continue
            if not self.got or x > 0:
                self.got = 1
                self.s0, self.s1 = r2.k0, r2.k1
                self.ntied = 0
            self.tied[self.ntied] = mi
            self.ntied += 1
        return 0

    cdef void sub_codes(self, uint64_t *c, int d, int f) noexcept:
        """Visit the groups whose usage is the multiset ``c`` less ``d`` more tiles, taken
        from fields ``f`` and later (each multiset once)."""
        cdef int g, x, w, sh
        cdef uint64_t one
        if d == 0:
            g = self.lookup(c)
            if g >= 0:
                self.visit(g)
            return
        for x in range(f, self.nfields):
            w = x // 10
            sh = 6 * (x % 10)
            if (c[w] >> sh) & 63:
                one = (<uint64_t>1) << sh
                c[w] -= one
                self.sub_codes(c, d - 1, x)
                c[w] += one

    def plan_loop(self, int b0, int b1, int rack_sum, root, spec, cache, TouchBound bounder, on_plan):
        """Phase (a) of ``movegen._best_plan`` over the joining placements, best bound
        first, and the choice of the ones phase (b) must search. ``(b0, b1)``: the best
        plan's key; ``rack_sum``: the rack's value; ``bounder``: the table's
        ``TouchBound``; ``on_plan(i, tied)`` is called when record ``i`` with
        the second placements ``tied`` (indices, equal keys) makes a plan at least as
        good as the best, and returns the best plan's key after it. Returns the phase (b)
        candidates ``(bound key, m_tiles, m_score, m_nt, rack left, i)``, ``m_tiles`` as
        ``(row, col, letter, jolly)`` 0-based, in the order of the listing."""
        return _plan_loop(self, b0, b1, rack_sum, root, spec, cache, bounder, on_plan)
