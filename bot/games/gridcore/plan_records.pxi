# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's plan: the listing's records in C arrays and their sort.

# --- Typ-Dom's plan (bot.games.typdom.plan): the first listing in C arrays, phase (a) -----
#
# The first search of a plan (every single placement of the rack) writes its records
# here instead of building Python tuples (``_Search.plan``, set when ``search`` gets a
# ``PlanListing`` as its sink). The plan's scans then run on the arrays: the best single
# placements, the joining placements, the usage codes and their groups, the zones and
# phase (a); Python objects are made only for the placements handed to phase (b) and
# for plans that can win (``raw``). The pure-Python reference of all this is
# ``bot.games.typdom.plan_ref``.

cdef struct PRec:
    int score, nt, p, r, start, length
    int woff        # first letter in PlanListing.wch
    int toff        # first new tile in PlanListing.tl
    int k0, k1      # the key (Point: score, tiles; Kreuzwort: tiles, score)
    int joining     # a joining placement leaving a tile in the rack
    int group       # index of its usage group

cdef struct PTile:
    int pos, blank, up, down, field
    Py_UCS4 ch


cdef int _plan_grow(void **buf, int *cap, int need, size_t item) except -1:
    cdef int c = cap[0]
    cdef void *nb
    if need <= c:
        return 0
    if c < 1024:
        c = 1024
    while c < need:
        c *= 2
    nb = realloc(buf[0], c * item)
    if nb == NULL:
        raise MemoryError()
    buf[0] = nb
    cap[0] = c
    return 0


cdef int _plan_push(PlanListing L, _Search S, int end, long score, int nt) except -1:
    """One record of the first search (called by ``_Search.record``)."""
    cdef int start = S.start, i, x, n, prev, old, runs, f, pos
    cdef int p = S.p, r = S.r, size = S.size
    cdef PRec *rec
    cdef PTile *t
    cdef int joining
    runs = 0
    prev = 0
    for i in range(start, end):
        old = 0 if S.is_new[i] else 1
        if old and not prev:
            runs += 1
        prev = old
    joining = 1 if (nt < L.n_rack and end - start - nt >= 2 and runs >= 2) else 0
    if L.mode == 1 and not joining:
        return 0  # pass 1: the joining placements only
    if L.mode == 2 and (joining or score < L.need[nt if nt < 65 else 65]):
        return 0  # pass 2: the rest, when it can be part of a plan as good as the best
    _plan_grow(<void **>&L.recs, &L.cap, L.n + 1, sizeof(PRec))
    _plan_grow(<void **>&L.wch, &L.capw, L.nw + (end - start), sizeof(Py_UCS4))
    _plan_grow(<void **>&L.tl, &L.captl, L.ntl + nt, sizeof(PTile))
    _plan_grow(<void **>&L.codes, &L.capc, (L.n + 1) * L.W, sizeof(uint64_t))
    if L.parts is None:
        L.parts = S.parts
        L.size = size
    rec = &L.recs[L.n]
    rec.score = score
    rec.nt = nt
    rec.p = p
    rec.r = r
    rec.start = start
    rec.length = end - start
    rec.woff = L.nw
    rec.toff = L.ntl
    for x in range(L.W):
        L.codes[L.n * L.W + x] = 0
    for i in range(start, end):
        L.wch[L.nw] = S.lch[i]
        L.nw += 1
        if not S.is_new[i]:
            continue
        t = &L.tl[L.ntl]
        L.ntl += 1
        t.pos = i
        t.ch = S.lch[i]
        t.blank = 1 if S.blank_at[i] else 0
        x = r - 1
        while x >= 0 and S.grid[p][x][i] != EMPTY:
            x -= 1
        t.up = r - 1 - x
        x = r + 1
        while x < size and S.grid[p][x][i] != EMPTY:
            x += 1
        t.down = x - r - 1
        f = -1
        if t.ch < 1024:
            f = L.fldb[t.ch] if t.blank else L.fld[t.ch]
        t.field = f
        if f >= 0:
            L.codes[L.n * L.W + f // 10] += (<uint64_t>1) << (6 * (f % 10))
    rec.joining = joining
    L.njoin += rec.joining
    if L.kreuz:
        rec.k0 = nt
        rec.k1 = score
    else:
        rec.k0 = score
        rec.k1 = nt
    L.n += 1
    return 0


cdef inline int _kcmp(int a0, int a1, int b0, int b1) noexcept nogil:
    """-1, 0, 1 as the key (a0, a1) is below, equal to, above (b0, b1)."""
    if a0 != b0:
        return 1 if a0 > b0 else -1
    if a1 != b1:
        return 1 if a1 > b1 else -1
    return 0


cdef inline uint64_t _code_hash(const uint64_t *c, int W) noexcept nogil:
    """The hash of a usage code (``W`` words) for the groups' table (``PlanListing.finish``
    and ``lookup``): FNV-1a over the words, then a final mix (MurmurHash3's fmix64).
    Without the mix the low bits of the hash, which pick the slot, depended only on the
    low bits of each word (the first few tile kinds: a product's low bits depend only on
    its factors' low bits), so the codes differing in the other kinds shared slots and
    the probe chains grew long (``finish`` was 1.07 G instructions on the ``--big``
    16-tile Kreuzwort rack, 15 % of the turn; issue 35). The hash only picks where a
    code is looked for: the groups and their numbers are the same with any hash."""
    cdef uint64_t hv = <uint64_t>1469598103934665603ULL
    cdef int x
    for x in range(W):
        hv = (hv ^ c[x]) * (<uint64_t>1099511628211ULL)
    hv ^= hv >> 33
    hv *= <uint64_t>0xff51afd7ed558ccdULL
    hv ^= hv >> 33
    hv *= <uint64_t>0xc4ceb9fe1a85ec53ULL
    hv ^= hv >> 33
    return hv


cdef int _cmp_u64(const void *x, const void *y) noexcept nogil:
    cdef uint64_t a = (<uint64_t *>x)[0]
    cdef uint64_t b = (<uint64_t *>y)[0]
    return (a > b) - (a < b)


cdef int _sort_packed(uint64_t *a, int n) except -1:
    """Sort keys packed as (key bits above bit 24, a record index below, ``a`` in index
    order) ascending: a stable LSD radix sort on bytes 3-7 (the order of the indices
    is kept among equal keys), skipping bytes all keys share."""
    cdef uint64_t *b
    cdef uint64_t *tmp
    cdef uint64_t *orig = a
    cdef int cnt[256]
    cdef int i, byte, sh, pos, v, single
    if n < 2:
        return 0
    b = <uint64_t *>malloc(n * sizeof(uint64_t))
    if b == NULL:
        raise MemoryError()
    for byte in range(3, 8):
        sh = 8 * byte
        memset(cnt, 0, sizeof(cnt))
        for i in range(n):
            cnt[(a[i] >> sh) & 255] += 1
        single = 0
        for v in range(256):
            if cnt[v] == n:
                single = 1
        if single:
            continue
        pos = 0
        for v in range(256):
            i = cnt[v]
            cnt[v] = pos
            pos += i
        for i in range(n):
            v = (a[i] >> sh) & 255
            b[cnt[v]] = a[i]
            cnt[v] += 1
        tmp = a
        a = b
        b = tmp
    if a != orig:  # (an odd number of passes: the keys are in the scratch array)
        memcpy(orig, a, n * sizeof(uint64_t))
        free(a)
    else:
        free(b)
    return 0
