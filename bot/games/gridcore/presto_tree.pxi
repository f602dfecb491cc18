# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Presto: the tree search (PrestoTree).

# --- Presto's tree search (bot.games.typdom.search._Search.grow and fits; issue 35) ---
#
# One spine's tree search in C: the crossword on a square array (cell code: letter
# index + 1, plus 256 for a Jolly's letter), the tiles left as counts, each step's
# words spelled by _Spell into C arrays and sorted there (skipping branches that can
# no longer cross; cached per search by the tiles and Jollys left, the crossable and
# the required letter: 1,000-1,200 spellings for 4,000 steps of an `open` set), the
# seen crosswords as bytes in the caller's set. The same steps in the same order as
# the Python `grow`, which stays the reference (`search.reference_spellings`).

__all__ += ["PrestoTree"]

cdef enum:
    PG = 128          # side of the array; the spine's first letter at (PO, PO)
    PO = 64
    PMAXW = 128       # the most words of a crossword
    PMAXF = 512       # the most free crossings of one crossword
    PJOLLY = 256      # cell code flag: a Jolly's letter (lower case)
    PSIZE = 25        # the crossword stays within PSIZE x PSIZE squares (typdom.table.SIZE)


cdef struct PWord:
    int r, c, dr, dc, n


cdef struct PCand:
    Py_ssize_t off
    int len, k, red, black


cdef const Py_UCS4 *_CAND_CP = NULL   # the code points the candidate sort reads


cdef int _cmp_cand(const void *x, const void *y) noexcept nogil:
    """``(-len(word), word, k)``: the key of ``search._Search.grow``'s sort."""
    cdef const PCand *a = <const PCand *>x
    cdef const PCand *b = <const PCand *>y
    cdef int i
    cdef Py_UCS4 ca, cb
    if a.len != b.len:
        return -1 if a.len > b.len else 1
    for i in range(a.len):
        ca = _CAND_CP[a.off + i]
        cb = _CAND_CP[b.off + i]
        if ca != cb:
            return -1 if ca < cb else 1
    if a.k != b.k:
        return -1 if a.k < b.k else 1
    if a.off != b.off:
        return -1 if a.off < b.off else 1
    return 0


cdef class _CandSpell(_Spell):
    """:class:`_Spell` writing each word (code points and cell codes) into C arrays."""
    cdef Py_UCS4 *cp
    cdef int *code
    cdef Py_ssize_t nbuf, capbuf
    cdef PCand *cands
    cdef Py_ssize_t n, cap
    cdef int failed

    def __cinit__(self):
        self.cp = NULL
        self.code = NULL
        self.cands = NULL
        self.nbuf = self.capbuf = self.n = self.cap = 0
        self.failed = 0

    def __dealloc__(self):
        free(self.cp)
        free(self.code)
        free(self.cands)

    cdef int reserve(self, Py_ssize_t need_words, Py_ssize_t need_letters) noexcept:
        cdef Py_ssize_t cap = self.capbuf
        if _grow_to(<void **>&self.cands, &self.cap, need_words, sizeof(PCand), 64) < 0:
            return -1
        if _grow_to(<void **>&self.cp, &cap, need_letters, sizeof(Py_UCS4), 512) < 0:
            return -1
        cap = self.capbuf  # (the codes grow with the letters: the same capacity)
        if _grow_to(<void **>&self.code, &cap, need_letters, sizeof(int), 512) < 0:
            return -1
        self.capbuf = cap
        return 0

    cdef void emit(self, int k, int red, int black):
        cdef int i, d = self.depth
        cdef PCand *c
        if self.failed:
            return
        if self.reserve(self.n + 1, self.nbuf + d) < 0:
            self.failed = 1
            self.stop = 1
            return
        for i in range(d):
            if self.low[i]:
                self.cp[self.nbuf + i] = self.lo[self.word[i]]
                self.code[self.nbuf + i] = (self.word[i] + 1) | PJOLLY
            else:
                self.cp[self.nbuf + i] = self.up[self.word[i]]
                self.code[self.nbuf + i] = self.word[i] + 1
        c = &self.cands[self.n]
        c.off = self.nbuf
        c.len = d
        c.k = k
        c.red = red
        c.black = black
        self.nbuf += d
        self.n += 1


    cdef void rec(self, int32_t node, int red, int black, int k, int got, int crossing):
        """:meth:`_Spell.rec` (the same words), skipping besides the branches that
        cannot cross any more: a word must cross once, so before its crossing a
        letter from the tiles or a Jolly needs a crossable letter further down."""
        cdef CGraph g = self.g
        cdef uint64_t mm, bit
        cdef int li, d
        cdef int32_t e, child
        if g.term[node] and self.depth >= 2 and (not crossing or k >= 0) and got:
            self.emit(k, red, black)
        if self.depth >= self.maxdepth:
            return
        d = self.depth
        mm = g.mask[node]
        e = g.first[node]
        while mm:
            li = sl_ctz(mm)
            bit = (<uint64_t>1) << li
            mm ^= bit
            child = g.child[e]
            e += 1
            if self.stop:
                return
            if not got and li != self.must and not (g.reach[child] & self.mustbit):
                continue  # the word must still use that letter, and no word below holds it
            if not (crossing and k < 0 and not (g.reach[child] & self.cross)):
                if self.cnt[li] > 0:
                    self.cnt[li] -= 1
                    self.word[d] = li
                    self.low[d] = 0
                    self.depth = d + 1
                    self.rec(child, red, black, k, got or li == self.must, crossing)
                    self.depth = d
                    self.cnt[li] += 1
                elif self.vowels & bit:
                    if red:
                        self.word[d] = li
                        self.low[d] = 1
                        self.depth = d + 1
                        self.rec(child, red - 1, black, k, got, crossing)
                        self.depth = d
                elif black:
                    self.word[d] = li
                    self.low[d] = 1
                    self.depth = d + 1
                    self.rec(child, red, black - 1, k, got, crossing)
                    self.depth = d
            if crossing and k < 0 and (self.cross & bit):
                self.word[d] = li
                self.low[d] = 0
                self.depth = d + 1
                self.rec(child, red, black, d, got, crossing)
                self.depth = d

cdef class PrestoTree:
    """The compiled tree search of one Presto set (``search._Search.grow`` and
    ``fits``, the same steps in the same order): ``PrestoTree(root, vowels, rarity)``;
    :meth:`grow` runs one spine. ``rarity``: letter -> rank (``search.RARITY``; a letter
    without one ranks 99). Raises ValueError for a graph letter that is not upper case
    with one lower-case form."""
    cdef CGraph g
    cdef short grid[PG * PG]
    cdef PWord words[PMAXW]
    cdef int nwords
    cdef int cnt[64]
    cdef int nleft
    cdef int rmin, rmax, cmin, cmax
    cdef long long steps, budget
    cdef set seen
    cdef dict cache          # the sorted words of a step, by what they depend on (see rec)
    cdef Py_ssize_t cached   # letters held by the cache
    cdef int cacheable       # every count fits the cache key's bytes
    cdef int heuristic
    cdef int used            # the array holds a crossword within rmin..rmax x cmin..cmax
    cdef long long rank[64]
    cdef uint64_t vowels
    cdef Py_UCS4 up[64]
    cdef Py_UCS4 lo[64]

    def __init__(self, root, vowels, dict rarity):
        cdef int i, li
        self.g = compiled_graph(root)
        self.cache = {}
        self.cached = 0
        self.used = 0
        memset(self.grid, 0, sizeof(self.grid))
        for i in range(64):
            self.up[i] = u'?'
            self.lo[i] = u'?'
            self.rank[i] = 0
        for i in range(self.g.nl):
            ch = self.g.letters[i]
            if len(ch) != 1 or len(ch.lower()) != 1 or not ch.isupper() or ch.lower().upper() != ch:
                raise ValueError(f"letter {ch!r} not supported")
            self.up[i] = ord(ch)
            self.lo[i] = ord(ch.lower())
            self.rank[i] = <long long>rarity.get(ch, 99) * 0x110000 + ord(ch)
        self.vowels = 0
        for ch in vowels:
            li = self.g.index.get(ch, -1)
            if li >= 0:
                self.vowels |= (<uint64_t>1) << li

    cdef inline int at(self, int r, int c) noexcept:
        r += PO
        c += PO
        if r < 0 or r >= PG or c < 0 or c >= PG:
            return 0
        return self.grid[r * PG + c]

    cdef bytes key(self):
        """The crossword as bytes (row, column, cell code of every tile, row by row):
        equal exactly when the sets of ``((row, column), letter)`` are."""
        cdef int r, c, v, n = 0
        cdef unsigned char buf[4 * PSIZE * PSIZE]
        for r in range(self.rmin, self.rmax + 1):
            for c in range(self.cmin, self.cmax + 1):
                v = self.grid[(r + PO) * PG + c + PO]
                if v:
                    buf[n] = <unsigned char>(r + PO)
                    buf[n + 1] = <unsigned char>(c + PO)
                    buf[n + 2] = <unsigned char>(v & 255)
                    buf[n + 3] = <unsigned char>(v >> 8)
                    n += 4
        return (<char *>buf)[:n]

    cdef int fits(self, int sr, int sc, int L, int k, int dr, int dc) noexcept:
        """``search._Search.fits`` for the word on ``L`` squares from ``(sr, sc)`` in
        direction ``(dr, dc)``, crossing at index ``k``."""
        cdef int i, r, c, lr, lc
        lr = sr + (L - 1) * dr
        lc = sc + (L - 1) * dc
        if self.at(sr - dr, sc - dc) or self.at(lr + dr, lc + dc):
            return 0
        for i in range(L):
            if i == k:
                continue
            r = sr + i * dr
            c = sc + i * dc
            if self.at(r, c) or self.at(r + dc, c + dr) or self.at(r - dc, c - dr):
                return 0
        return (max(self.rmax, lr) - min(self.rmin, sr) < PSIZE
                and max(self.cmax, lc) - min(self.cmin, sc) < PSIZE)

    cdef int rec(self, int red, int black) except -2:
        """One step of ``search._Search.grow``: 0 nothing found below, 1 found (the
        crossword stays in the array), 2 the step budget is spent."""
        global _CAND_CP
        cdef int nf = 0, i, j, w, r, c, ndr, ndc, li, k, L, sr, sc, res, must, nn
        cdef int fr[PMAXF]
        cdef int fc[PMAXF]
        cdef int fd[PMAXF]
        cdef int fl[PMAXF]
        cdef uint64_t crossmask = 0
        cdef long long best
        cdef int rmin, rmax, cmin, cmax
        cdef PWord *pw
        cdef PCand *cand
        cdef Py_ssize_t *order
        cdef _CandSpell S
        cdef unsigned char kb[64 + 11]
        self.steps += 1
        if self.steps > self.budget:
            return 2
        if self.nleft == 0 and red == 0 and black == 0:
            return 1
        key = self.key()
        if key in self.seen:
            return 0
        self.seen.add(key)
        for w in range(self.nwords):
            pw = &self.words[w]
            ndr = 1 if pw.dr == 0 else 0   # the crossing word runs across
            ndc = 1 - ndr
            for i in range(pw.n):
                r = pw.r + i * pw.dr
                c = pw.c + i * pw.dc
                if self.at(r - ndr, c - ndc) or self.at(r + ndr, c + ndc):
                    continue  # already crossed
                if nf >= PMAXF:
                    raise ValueError("too many free crossings")
                fr[nf] = r
                fc[nf] = c
                fd[nf] = ndr
                fl[nf] = (self.at(r, c) & 255) - 1
                crossmask |= (<uint64_t>1) << fl[nf]
                nf += 1
        if nf == 0:
            return 0
        must = -1
        if self.heuristic and self.nleft:
            best = 0
            for li in range(self.g.nl):
                if self.cnt[li] > 0 and (must < 0 or self.rank[li] < best):
                    must = li
                    best = self.rank[li]
        # the words depend only on the tiles and Jollys left, the crossable letters and
        # the required letter: spelled and sorted once per search for each of these
        for li in range(self.g.nl):
            kb[li] = <unsigned char>min(self.cnt[li], 255)
        kb[self.g.nl] = <unsigned char>min(red, 255)
        kb[self.g.nl + 1] = <unsigned char>min(black, 255)
        kb[self.g.nl + 2] = <unsigned char>(must + 1)
        for i in range(8):
            kb[self.g.nl + 3 + i] = <unsigned char>((crossmask >> (8 * i)) & 255)
        ckey = (<char *>kb)[:self.g.nl + 11]
        S = self.cache.get(ckey) if self.cacheable else None
        if S is None:
            S = _CandSpell()
            S.g = self.g
            S.out = None
            for i in range(64):
                S.cnt[i] = self.cnt[i]
                S.up[i] = self.up[i]
                S.lo[i] = self.lo[i]
            S.vowels = self.vowels
            S.cross = crossmask
            S.must = must
            S.mustbit = ~(<uint64_t>0) if must < 0 else (<uint64_t>1) << must
            S.first_only = 0
            S.stop = 0
            S.depth = 0
            S.maxdepth = 63
            S.rec(0, red, black, -1, 1 if must < 0 else 0, 1)
            if S.failed:
                raise MemoryError()
            if S.n > 1:
                _CAND_CP = S.cp
                qsort(S.cands, S.n, sizeof(PCand), _cmp_cand)
            if self.cacheable and self.cached + S.nbuf <= 4000000:  # at most 32 MB of letters
                self.cache[ckey] = S
                self.cached += S.nbuf
        if S.n == 0:
            return 0
        for j in range(S.n):
            cand = &S.cands[j]
            L = cand.len
            k = cand.k
            li = (S.code[cand.off + k] & 255) - 1
            for i in range(nf):
                if fl[i] != li:
                    continue
                ndr = fd[i]
                ndc = 1 - ndr
                sr = fr[i] - k * ndr
                sc = fc[i] - k * ndc
                if not self.fits(sr, sc, L, k, ndr, ndc):
                    continue
                if self.nwords >= PMAXW:
                    raise ValueError("too many words")
                rmin, rmax, cmin, cmax = self.rmin, self.rmax, self.cmin, self.cmax
                nn = 0
                for w in range(L):
                    if w == k:
                        continue
                    self.grid[(sr + w * ndr + PO) * PG + sc + w * ndc + PO] = <short>S.code[cand.off + w]
                    if not (S.code[cand.off + w] & PJOLLY):
                        self.cnt[(S.code[cand.off + w] & 255) - 1] -= 1
                        nn += 1
                self.nleft -= nn
                self.rmin = min(rmin, sr)
                self.rmax = max(rmax, sr + (L - 1) * ndr)
                self.cmin = min(cmin, sc)
                self.cmax = max(cmax, sc + (L - 1) * ndc)
                pw = &self.words[self.nwords]
                pw.r, pw.c, pw.dr, pw.dc, pw.n = sr, sc, ndr, ndc, L
                self.nwords += 1
                res = self.rec(cand.red, cand.black)
                if res != 0:
                    return res
                self.nwords -= 1
                for w in range(L):
                    if w == k:
                        continue
                    self.grid[(sr + w * ndr + PO) * PG + sc + w * ndc + PO] = 0
                    if not (S.code[cand.off + w] & PJOLLY):
                        self.cnt[(S.code[cand.off + w] & 255) - 1] += 1
                self.nleft += nn
                self.rmin, self.rmax, self.cmin, self.cmax = rmin, rmax, cmin, cmax
        return 0

    def grow(self, str word, left, int red, int black, bint heuristic, long long steps,
             long long budget, set seen):
        """``search._Search.grow`` on the crossword of the spine ``word`` alone (row 0,
        from column 0; a Jolly's letter lower case), ``left`` (letter -> count) the
        tiles left, ``red`` / ``black`` the Jollys left, ``steps`` taken so far against
        ``budget``, ``seen``: the crosswords seen so far (a set this method fills; its
        keys are not the Python search's). Returns ``(code, steps, found)``: code 0
        nothing found, 1 found (``found`` = ``(grid, words)`` as the Python search
        gives them), 2 the budget is spent (the Python search raises there)."""
        cdef int i, li, n, res, v, r, c
        cdef Py_ssize_t L = len(word)
        cdef PWord *pw
        if self.used:  # clear what the last spine left (its box), not the whole array
            for r in range(self.rmin, self.rmax + 1):
                memset(&self.grid[(r + PO) * PG + self.cmin + PO], 0, (self.cmax - self.cmin + 1) * sizeof(short))
        self.used = 0
        for i in range(64):
            self.cnt[i] = 0
        self.nleft = 0
        for ch, n in left.items():
            if n > 0:
                li = self.g.index.get(ch, -1)
                if li < 0:
                    raise ValueError(f"tile {ch!r} is no letter of the word graph")
                self.cnt[li] = n
                self.nleft += n
        if L < 1 or L >= PSIZE + 40:
            raise ValueError("spine length")
        self.rmin = self.rmax = 0
        self.cmin = 0
        self.cmax = L - 1
        self.used = 1
        for i in range(L):
            ch = word[i]
            li = self.g.index.get(ch, -1)
            if li >= 0:
                self.grid[PO * PG + PO + i] = <short>(li + 1)
            else:
                li = self.g.index.get(ch.upper(), -1)
                if li < 0:
                    raise ValueError(f"letter {ch!r} not in the word graph")
                self.grid[PO * PG + PO + i] = <short>((li + 1) | PJOLLY)
        pw = &self.words[0]
        pw.r, pw.c, pw.dr, pw.dc, pw.n = 0, 0, 0, 1, L
        self.nwords = 1
        self.cacheable = 1 if self.nleft < 255 and 0 <= red < 255 and 0 <= black < 255 else 0
        self.steps = steps
        self.budget = budget
        self.seen = seen
        self.heuristic = heuristic
        try:
            res = self.rec(red, black)
        finally:
            self.seen = None
        if res != 1:
            return res, self.steps, None
        grid = {}
        for r in range(self.rmin, self.rmax + 1):
            for c in range(self.cmin, self.cmax + 1):
                v = self.at(r, c)
                if v:
                    grid[(r, c)] = chr(self.lo[(v & 255) - 1] if v & PJOLLY else self.up[(v & 255) - 1])
        words = []
        for i in range(self.nwords):
            pw = &self.words[i]
            squares = [(pw.r + j * pw.dr, pw.c + j * pw.dc) for j in range(pw.n)]
            words.append(("".join(grid[q] for q in squares).upper(), squares, "w" if pw.dr == 0 else "s"))
        return res, self.steps, (grid, words)
