# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled search core of the word-grid move generators (Monoscrabble, Typ-Dom).

The same Appel-Jacobson search as the pure-Python reference
:func:`bot.games.gridref.search_reference` (anchors, cross-checks, left parts, extension
over the word graph of :mod:`bot.wordgraph`; the game's geometry and scoring come as data
in a :class:`bot.games.gridspec.GridSpec`), in C through Cython, with the same answers:
the same raw records for the same moves (``tests/test_gridcore.py`` compares the two on
seeded random positions).  On top of the reference it prunes by score (branch and bound):
the anchors of both passes are searched by an upper bound of the score a move through
them can reach (wolges' shadow bound: the best stretch of the line a word through the
anchor can fill, :c:func:`_Search.anchor_bound`), best first; left parts stop at the
length whose bound is below the caller's ``threshold[0]``, and every extension step stops
when the bound of the score still reachable (:c:func:`_Search.ext_bound`) is below it.
Listing queries (threshold below 1) visit everything.

The word graph's nested dicts are converted once per graph (memoised by the root
object) into flat arrays: per node a 64-bit mask of its out-letters, the index of its
first edge, the children sorted by letter index (a child is found by a popcount), a
word-end flag and the height (the most letters a path can still add).
"""

from libc.stdlib cimport malloc, free, qsort
from libc.string cimport memset
from libc.stdint cimport int32_t, uint64_t, uint8_t

cdef extern from *:
    """
    static inline int sl_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int sl_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int sl_popcount(unsigned long long x) nogil
    int sl_ctz(unsigned long long x) nogil

cdef extern from "Python.h":
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    int PyUnicode_4BYTE_KIND

cdef enum:
    MAXS = 32      # the most squares per side
    MAXL = 63      # the most letters of a graph (index 63: a letter the graph lacks)
    NOLETTER = 63
    EMPTY = -1
    MAXK = 4       # the most kinds of blank
    MAXA = 2 * MAXS * MAXS

END = "$"

cdef long long _STEPS = 0   # search steps (extend and left-part calls), for benches


def steps():
    """How many search steps (extension and left-part calls) the grid search has taken
    in this process: a load-independent measure of its work, for benches."""
    return _STEPS


__all__ = ["steps", "search", "can_lay", "compiled_graph", "TouchBound", "MultisetIndex", "spellings", "sort_spines", "rondo_moves"]


cdef class CGraph:
    """A word graph as flat arrays (see the module doc).  ``letters``: index -> letter."""
    cdef int32_t *first
    cdef int32_t *child
    cdef uint64_t *mask
    cdef uint8_t *term
    cdef uint8_t *height
    cdef uint64_t *reach
    cdef uint8_t *most       # per node and letter: the most times a path to a word's end holds it (lazy)
    cdef public int n
    cdef public int nl
    cdef public dict index
    cdef public list letters
    cdef public object root
    cdef dict specs
    cdef Py_UCS4 lchar[64]
    cdef uint8_t cpidx[1024]   # letter index of a code point below 1024 (NOLETTER: none)

    def __cinit__(self):
        self.first = NULL
        self.child = NULL
        self.mask = NULL
        self.term = NULL
        self.height = NULL
        self.reach = NULL
        self.most = NULL

    def __dealloc__(self):
        free(self.reach)
        free(self.most)
        free(self.first)
        free(self.child)
        free(self.mask)
        free(self.term)
        free(self.height)

    cdef inline int32_t get(self, int32_t node, int li) noexcept nogil:
        cdef uint64_t m = self.mask[node]
        cdef uint64_t bit
        if li >= MAXL:
            return -1
        bit = (<uint64_t>1) << li
        if not (m & bit):
            return -1
        return self.child[self.first[node] + sl_popcount(m & (bit - 1))]


cdef int _heights(CGraph g, int32_t node) noexcept:
    """Fill in the height and the reachable letters of ``node`` and below."""
    cdef int h, x
    cdef int32_t e
    cdef uint64_t r
    if g.height[node] != 255:
        return g.height[node]
    h = 0
    r = g.mask[node]
    for e in range(g.first[node], g.first[node + 1]):
        x = 1 + _heights(g, g.child[e])
        if x > h:
            h = x
        r |= g.reach[g.child[e]]
    g.height[node] = <uint8_t>h
    g.reach[node] = r
    return h


cdef int _most(CGraph g, int32_t node, uint8_t *done) noexcept:
    """Fill in ``g.most`` for ``node`` and below."""
    cdef int32_t e, c
    cdef uint64_t m
    cdef int li, l, nl = g.nl, v
    cdef uint8_t *row
    if done[node]:
        return 0
    row = &g.most[<Py_ssize_t>node * nl]
    for l in range(nl):
        row[l] = 0
    m = g.mask[node]
    e = g.first[node]
    while m:
        li = sl_ctz(m)
        m &= m - 1
        c = g.child[e]
        e += 1
        _most(g, c, done)
        for l in range(nl):
            v = g.most[<Py_ssize_t>c * nl + l] + (1 if l == li else 0)
            if v > 255:
                v = 255
            if v > row[l]:
                row[l] = <uint8_t>v
    done[node] = 1
    return 0


cdef int _ensure_most(CGraph g) except -1:
    cdef uint8_t *done
    cdef int32_t i
    if g.most != NULL:
        return 0
    g.most = <uint8_t *>malloc(<Py_ssize_t>g.n * g.nl + 1)
    done = <uint8_t *>malloc(g.n)
    if g.most == NULL or done == NULL:
        free(done)
        free(g.most)
        g.most = NULL
        raise MemoryError()
    memset(done, 0, g.n)
    for i in range(g.n):
        _most(g, i, done)
    free(done)
    return 0


cdef CGraph _convert(dict root):
    cdef CGraph g = CGraph()
    cdef dict ids = {id(root): 0}
    cdef list nodes = [root]
    cdef list stack = [root]
    cdef dict index = {}
    cdef list letters = []
    cdef Py_ssize_t nedges = 0
    cdef int i, j
    cdef dict node
    while stack:
        node = stack.pop()
        for k, c in node.items():
            if k == END:
                continue
            nedges += 1
            if k not in index:
                if len(letters) >= MAXL:
                    raise ValueError("the word graph has more than 63 letters")
                index[k] = len(letters)
                letters.append(k)
            if id(c) not in ids:
                ids[id(c)] = len(nodes)
                nodes.append(c)
                stack.append(c)
    n = len(nodes)
    g.n = n
    g.nl = len(letters)
    g.index = index
    g.letters = letters
    g.first = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    g.child = <int32_t *>malloc((nedges + 1) * sizeof(int32_t))
    g.mask = <uint64_t *>malloc(n * sizeof(uint64_t))
    g.term = <uint8_t *>malloc(n * sizeof(uint8_t))
    g.height = <uint8_t *>malloc(n * sizeof(uint8_t))
    g.reach = <uint64_t *>malloc(n * sizeof(uint64_t))
    if not (g.first and g.child and g.mask and g.term and g.height and g.reach):
        raise MemoryError()
    cdef int32_t e = 0
    cdef uint64_t m
    for i in range(n):
        node = nodes[i]
        g.first[i] = e
        g.term[i] = 1 if END in node else 0
        g.height[i] = 255
        edges = sorted((index[k], ids[id(c)]) for k, c in node.items() if k != END)
        m = 0
        for li, ci in edges:
            m |= (<uint64_t>1) << <int>li
            g.child[e] = ci
            e += 1
        g.mask[i] = m
    g.first[n] = e
    for i in range(n):
        _heights(g, i)
    for i in range(1024):
        g.cpidx[i] = NOLETTER
    for i in range(len(letters)):
        g.lchar[i] = ord(letters[i]) if len(letters[i]) == 1 else u'?'
        if len(letters[i]) == 1 and ord(letters[i]) < 1024:
            g.cpidx[ord(letters[i])] = i
    g.root = root
    g.specs = {}
    return g


_GRAPHS = {}


def compiled_graph(root):
    """The flat-array form of the word graph whose root node is ``root`` (a dict of
    :mod:`bot.wordgraph`), converted on first use and memoised per root object."""
    hit = _GRAPHS.get(id(root))
    if hit is not None and hit.root is root:
        return hit
    g = _convert(root)
    if len(_GRAPHS) >= 16:
        _GRAPHS.pop(next(iter(_GRAPHS)))
    _GRAPHS[id(root)] = g
    return g


cdef class CSpec:
    """A GridSpec's numbers for one graph's letter indices."""
    cdef int size, cr, cc, bingo_tiles, bingo_bonus, cross_score, require_old, dedupe_single
    cdef int nkinds
    cdef int val[64]
    cdef int kind_of[64]
    cdef int lm[MAXS][MAXS]
    cdef int wm[MAXS][MAXS]
    cdef object blank_chars   # dict char -> kind
    cdef int plain            # no premium squares
    cdef int *vmax            # per node: the most the letters of a path to a word's end are worth

    def __cinit__(self):
        self.vmax = NULL

    def __dealloc__(self):
        free(self.vmax)


cdef int _vmax(CGraph g, CSpec s, int32_t node) noexcept:
    """Fill in ``s.vmax`` for ``node`` and below (letter values by ``s.val``)."""
    cdef int best, x, li
    cdef int32_t e
    cdef uint64_t m
    if s.vmax[node] >= 0:
        return s.vmax[node]
    best = 0
    m = g.mask[node]
    e = g.first[node]
    while m:
        li = sl_ctz(m)
        m &= m - 1
        x = s.val[li] + _vmax(g, s, g.child[e])
        e += 1
        if x > best:
            best = x
    s.vmax[node] = best
    return best


cdef CSpec _cspec(CGraph g, spec):
    hit = g.specs.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1]
    cdef CSpec s = CSpec()
    cdef int i, r, c
    s.size = spec.size
    if s.size > MAXS or s.size < 1:
        raise ValueError(f"board size {s.size} not supported by the compiled core (at most {MAXS})")
    s.cr = spec.centre[0] - 1
    s.cc = spec.centre[1] - 1
    s.bingo_tiles = spec.bingo_tiles
    s.bingo_bonus = spec.bingo_bonus
    s.cross_score = 1 if spec.cross_score else 0
    s.require_old = 1 if spec.require_old else 0
    s.dedupe_single = 0 if spec.single_both_ways else 1
    kinds = list(spec.blanks)
    if len(kinds) > MAXK:
        raise ValueError("too many kinds of blank")
    s.nkinds = len(kinds)
    s.blank_chars = {ch: i for i, ch in enumerate(kinds)}
    for i in range(64):
        s.val[i] = 0
        s.kind_of[i] = -1
    for i in range(g.nl):
        s.val[i] = spec.values.get(g.letters[i], 0)
        if s.val[i] < 0:
            raise ValueError("negative letter value")
    for i, letters in enumerate(spec.blanks.values()):
        for ch in letters:
            li = g.index.get(ch)
            if li is not None and s.kind_of[li] < 0:
                s.kind_of[li] = i
    lm, wm, _lt, _wt = spec.tables()
    for r in range(s.size):
        for c in range(s.size):
            s.lm[r][c] = lm[r][c]
            s.wm[r][c] = wm[r][c]
            if not (1 <= s.lm[r][c] <= 3 and 1 <= s.wm[r][c] <= 3 and s.lm[r][c] * s.wm[r][c] <= 3):
                raise ValueError("premiums must multiply by 1, 2 or 3")
    s.plain = 1
    for r in range(s.size):
        for c in range(s.size):
            if s.lm[r][c] != 1 or s.wm[r][c] != 1:
                s.plain = 0
    s.vmax = <int *>malloc(g.n * sizeof(int))
    if s.vmax == NULL:
        raise MemoryError()
    for i in range(g.n):
        s.vmax[i] = -1
    for i in range(g.n):
        _vmax(g, s, i)
    g.specs[id(spec)] = (spec, s)
    return s


cdef struct AnchorJob:
    int bound
    int p
    int r
    int a


cdef int _cmp_job(const void *x, const void *y) noexcept nogil:
    cdef int bx = (<AnchorJob *>x).bound
    cdef int by = (<AnchorJob *>y).bound
    if bx != by:
        return -1 if bx > by else 1
    # stable order otherwise: pass, line, anchor
    cdef int kx = ((<AnchorJob *>x).p * MAXS + (<AnchorJob *>x).r) * MAXS + (<AnchorJob *>x).a
    cdef int ky = ((<AnchorJob *>y).p * MAXS + (<AnchorJob *>y).r) * MAXS + (<AnchorJob *>y).a
    return -1 if kx < ky else (1 if kx > ky else 0)


cdef inline int _pair(const int *P, int n3, int n2, int n1) noexcept nogil:
    """Sum of the best values (prefix sums ``P``, best first) times 3, 2, 1 for n3, n2, n1
    squares."""
    return 3 * P[n3] + 2 * (P[n3 + n2] - P[n3]) + (P[n3 + n2 + n1] - P[n3 + n2])


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
    cdef int nxt[2][MAXS][MAXS + 1]
    cdef int line_on[2][MAXS]
    cdef list parts
    # rack
    cdef int counts[64]
    cdef uint64_t rmask     # the letters with a count above 0
    cdef uint64_t pmask     # the letters the rack can lay (its letters, those of its blanks)
    cdef int bl[MAXK]
    cdef int nbl
    cdef int left
    cdef int total
    cdef int P[64]          # prefix sums of the rack's tile values, best first
    cdef int R              # tiles that can be placed
    # the line being searched
    cdef int p, r, anchor, start, first_placed
    cdef int *line
    cdef Py_UCS4 *lch
    cdef int *lbv
    cdef uint64_t *lok
    cdef int *lxs
    cdef int *llm
    cdef int *lwm
    cdef int *lnxt
    cdef int blank_at[MAXS]
    cdef int is_new[MAXS]
    cdef int lp_li[MAXS]
    cdef int lp_b[MAXS]
    cdef long lpb[MAXS + 1]   # per left-part length d: the anchor bound of the words starting d or more squares left
    # query
    cdef int require_old, min_tiles, nxt_on, maxlen, empty_board
    cdef long thr
    cdef object thr_list
    cdef object sink
    cdef uint64_t *reach_at  # TouchSearcher only (NULL otherwise): per node and depth, the letters a word can hold there
    cdef uint64_t *reach_ge  # (and at that depth or deeper)
    cdef Py_ssize_t *reach_off  # (where a node's depths start in both)

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
            if v >= self.thr:
                return v  # enough for the caller (it only compares with the threshold)
            if v > best:
                best = v
        return best

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
        if self.thr > 0 and self.ext_bound(col, node, msum, wmul, xs, nt) < self.thr:
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

    cdef int run_anchor(self, int p, int r, int a) except -1:
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
        c = a - 1
        while c >= 0 and self.line[c] == EMPTY and not self.is_anchor(c):
            limit += 1
            c -= 1
        if self.nxt_on and self.lnxt[a - limit] >= size:
            return 0
        self.start = a
        self.extend(0, a, 0, 1, 0, 0)
        if limit:
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
        if c > 0 and self.grid[p][r][c - 1] != EMPTY:
            return 1
        if c < size - 1 and self.grid[p][r][c + 1] != EMPTY:
            return 1
        if r > 0 and self.grid[p][r - 1][c] != EMPTY:
            return 1
        if r < size - 1 and self.grid[p][r + 1][c] != EMPTY:
            return 1
        return 0


cdef int _can_lay(_Search S, int32_t node, int depth, int used, int extra, int need_extra) noexcept:
    """Whether some word of the graph, read on from ``node`` (``depth`` letters so far,
    ``used`` of them rack tiles, ``extra`` other letters), holds at least ``S.min_tiles``
    tiles of the rack left in ``S`` (``counts``, ``bl``) and, with ``need_extra``, at
    least one letter that is no rack tile (a table tile).  Ignores the board: a
    necessary condition for a move laying ``min_tiles`` tiles.  A letter the rack holds
    is taken from the rack before a Jolly, and once a word has a letter from elsewhere,
    a letter is taken from elsewhere only when neither rack nor Jolly has it (any word
    the other choices find is found with the same count or more)."""
    cdef CGraph g = S.g
    cdef int li, k, took
    cdef int32_t e, ch
    cdef uint64_t m, bit
    if g.term[node] and depth >= 2 and used >= S.min_tiles and (extra or not need_extra):
        return 1
    if depth >= S.size:
        return 0
    if used + S.usable(node) < S.min_tiles:
        return 0
    m = g.mask[node]
    e = g.first[node]
    while m:
        li = sl_ctz(m)
        bit = (<uint64_t>1) << li
        m ^= bit
        ch = g.child[e]
        e += 1
        took = 0
        if S.counts[li]:
            took = 1
            S.counts[li] -= 1
            if S.counts[li] == 0:
                S.rmask ^= bit
            k = _can_lay(S, ch, depth + 1, used + 1, extra, need_extra)
            S.counts[li] += 1
            S.rmask |= bit
            if k:
                return 1
        else:
            k = S.s.kind_of[li]
            if k >= 0 and S.bl[k]:
                took = 1
                S.bl[k] -= 1
                S.nbl -= 1
                k = _can_lay(S, ch, depth + 1, used + 1, extra, need_extra)
                S.nbl += 1
                S.bl[S.s.kind_of[li]] += 1
                if k:
                    return 1
        if not took or (need_extra and not extra):
            if _can_lay(S, ch, depth + 1, used, extra + 1, need_extra):
                return 1
    return 0


def can_lay(root, rack, int min_tiles, spec, cache=None):
    """Whether some word of the graph holds at least ``min_tiles`` tiles of ``rack`` and a
    letter more (a table tile; ``spec.require_old``): :func:`search` on a table with
    tiles finds no move laying ``min_tiles`` tiles when this is False.  Memoised in
    ``cache`` under the key :func:`search` uses (Typ-Dom's plan search asks before it
    builds the table a second placement is searched on)."""
    cdef CGraph g = compiled_graph(root)
    cdef CSpec s = _cspec(g, spec)
    cdef _Search S
    cdef int i, li
    fkey = ("can_lay", rack, min_tiles, bool(s.require_old), s.size)
    can = None if cache is None else cache.get(fkey)
    if can is not None:
        return can
    S = _Search()
    S.g = g
    S.s = s
    S.size = s.size
    memset(S.counts, 0, sizeof(S.counts))
    for i in range(MAXK):
        S.bl[i] = 0
    n = 0
    for rch in rack:
        if rch in s.blank_chars:
            S.bl[s.blank_chars[rch]] += 1
        elif rch == "*" and s.nkinds:
            S.bl[0] += 1
        elif rch.isalpha():
            li = _letter_index(g, rch.upper())
            if li != NOLETTER:
                S.counts[li] += 1
        else:
            continue
        n += 1
    S.rmask = 0
    S.nbl = 0
    for i in range(g.nl):
        if S.counts[i]:
            S.rmask |= (<uint64_t>1) << i
    for i in range(MAXK):
        S.nbl += S.bl[i]
    S.min_tiles = min_tiles
    if min_tiles > n:
        can = False
    elif min_tiles <= 0:
        can = True
    else:
        _ensure_most(g)
        can = _can_lay(S, 0, 0, 0, 0, s.require_old) != 0
    if cache is not None:
        cache[fkey] = can
    return can


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


def search(board_rows, rack, root, sink, threshold, spec, touch=None, *, min_tiles=0, cache=None):
    """Compiled :func:`bot.games.gridgen.search`: the same arguments, the same raw
    records ``(score, ntiles, transposed, line_index, start, word, placed, xparts)`` for
    the same moves (each passed to ``sink`` when its score is >= ``threshold[0]``, which
    ``sink`` may raise; the order of the calls differs: anchors best bound first).
    ``cache``: a dict kept across calls with the same graph and spec (memoises whether a
    rack can lay ``min_tiles`` tiles at all).  Raises ValueError for a malformed board, a touch
    square without a tile, or a board larger than 32 squares a side."""
    cdef CGraph g = compiled_graph(root)
    cdef CSpec s = _cspec(g, spec)
    cdef _Search S = _Search()
    cdef int size = s.size
    cdef int p, r, c, i, q, li, k, v, n, a, lo, njobs
    cdef int ntotal = 0
    S.g = g
    S.s = s
    S.parts = []
    S.size = size
    rows = list(board_rows)
    if len(rows) != size or any(len(x) != size for x in rows):
        raise ValueError(f"board must be {size} strings of {size} characters")
    # parse the board (as bot.games.gridspec._parse)
    cdef Py_UCS4 ch, uch
    cdef str row
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
    for r in range(size):
        for c in range(size):
            S.grid[1][c][r] = S.grid[0][r][c]
            S.bval[1][c][r] = S.bval[0][r][c]
            S.chars[1][c][r] = S.chars[0][r][c]
            S.lm[0][r][c] = s.lm[r][c]
            S.wm[0][r][c] = s.wm[r][c]
            S.lm[1][c][r] = s.lm[r][c]
            S.wm[1][c][r] = s.wm[r][c]
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
        return
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
            return
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
            return
    # cross-checks (as gridspec._cross_info) and the cross-word parts per pass
    cdef uint64_t ALL = ~(<uint64_t>0)
    cdef int32_t node, n2
    cdef int j, up, down, sm
    cdef uint64_t ok, mm, bit
    cdef int32_t e
    for p in range(2):
        parts = [None] * size  # the lines searched get their list (what to_move reads)
        S.parts.append(parts)
        for r in range(size):
            if S.line_on[p][r]:
                parts[r] = [None] * size
        for c in range(size):
            for r in range(size):
                S.allowed[p][r][c] = ALL
                S.xsum[p][r][c] = -1
                if S.grid[p][r][c] != EMPTY or not S.line_on[p][r]:
                    continue
                up = r > 0 and S.grid[p][r - 1][c] != EMPTY
                down = r < size - 1 and S.grid[p][r + 1][c] != EMPTY
                if not up and not down:
                    continue
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
                parts[r][c] = (_column(S, p, c, i + 1, r), _column(S, p, c, r + 1, j))
    # the anchors of both passes, best bound first
    cdef AnchorJob *jobs = <AnchorJob *>malloc(MAXA * sizeof(AnchorJob))
    if jobs == NULL:
        raise MemoryError()
    njobs = 0
    try:
        for p in range(2):
            for r in range(size):
                if not S.line_on[p][r]:
                    continue
                if empty and r != (s.cr if p == 0 else s.cc):
                    continue
                S.set_line(p, r)
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
                    if min_tiles and S.empties(lo, size, min_tiles) < min_tiles:
                        continue  # too few empty squares for enough tiles
                    jobs[njobs].bound = S.anchor_bound(a, lo)
                    jobs[njobs].p = p
                    jobs[njobs].r = r
                    jobs[njobs].a = a
                    njobs += 1
        qsort(jobs, njobs, sizeof(AnchorJob), _cmp_job)
        for i in range(njobs):
            if jobs[i].bound < S.thr:
                break
            S.run_anchor(jobs[i].p, jobs[i].r, jobs[i].a)
    finally:
        free(jobs)


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
        self.size = len(rows)
        if self.size > MAXS or any(len(x) != self.size for x in rows):
            raise ValueError("bad table")
        for r in range(self.size):
            row = rows[r]
            for c in range(self.size):
                ch = row[c]
                if ch == "." or ch == " ":
                    self.occ[r][c] = 0
                    self.val[r][c] = 0
                else:
                    self.occ[r][c] = 1
                    self.val[r][c] = values.get(ch, 0) if ch.isupper() else 0

    cdef inline int at_occ(self, int tr, int ln, int pos) noexcept:
        return self.occ[pos][ln] if tr else self.occ[ln][pos]

    cdef inline int at_val(self, int tr, int ln, int pos) noexcept:
        return self.val[pos][ln] if tr else self.val[ln][pos]

    def bound(self, tiles, rack_values):
        cdef int size = self.size
        cdef int top[64]
        cdef int pre[MAXS + 1]
        cdef int emp[MAXS]
        cdef int need[MAXS]
        cdef int k, i, tr, ln, pos, ne, lo, hi, best = 0, x, r, c, v
        vals = sorted(rack_values, reverse=True)
        k = len(vals)
        if k > 63:
            raise ValueError("rack too large")
        top[0] = 0
        for i in range(k):
            top[i + 1] = top[i] + <int>vals[i]
        placed = [(<int>t[0], <int>t[1], <int>t[2]) for t in tiles]
        for r, c, v in placed:
            self.occ[r][c] = 1
            self.val[r][c] = v
        try:
            for tr in range(2):
                for i in range(size):
                    need[i] = 0
                for r, c, v in placed:
                    ln, pos = (c, r) if tr else (r, c)
                    need[ln] = 1
                    i = ln - 1
                    while i >= 0 and self.at_occ(tr, i, pos):
                        i -= 1
                    if i >= 0:
                        need[i] = 1
                    i = ln + 1
                    while i < size and self.at_occ(tr, i, pos):
                        i += 1
                    if i < size:
                        need[i] = 1
                for ln in range(size):
                    if not need[ln]:
                        continue
                    pre[0] = 0
                    ne = 0
                    for i in range(size):
                        if self.at_occ(tr, ln, i):
                            pre[i + 1] = pre[i] + self.at_val(tr, ln, i)
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
        finally:
            for r, c, v in placed:
                self.occ[r][c] = 0
                self.val[r][c] = 0
        return best


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


# --- Typ-Dom's plan search, phase (b) (bot.games.typdom.movegen._Seconds): the touch
# searches after joining placements on one table, without re-parsing it (issue 35)

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.string cimport memcpy


cdef class _ReachAt:
    """Per node of a graph and depth ``j`` (below the node's height): the letters a path
    from the node to a word's end holds as its ``j``-th letter (``j`` = 0: the next one),
    ``m``, and as its ``j``-th letter or a later one, ``ge``; a node's entries start at
    ``off[node]``."""
    cdef uint64_t *m
    cdef uint64_t *ge
    cdef Py_ssize_t *off
    cdef object graph

    def __dealloc__(self):
        free(self.m)
        free(self.ge)
        free(self.off)


cdef int _fill_reach(CGraph g, uint64_t *R, Py_ssize_t *off, uint8_t *state, int32_t node) noexcept:
    """Fill ``R`` for ``node`` and below; 1 when a word's end is reachable from it."""
    cdef int32_t e, c
    cdef uint64_t mm
    cdef int li, j, alive
    if state[node]:
        return state[node] == 2
    alive = g.term[node]
    mm = g.mask[node]
    e = g.first[node]
    while mm:
        li = sl_ctz(mm)
        mm &= mm - 1
        c = g.child[e]
        e += 1
        if _fill_reach(g, R, off, state, c):
            alive = 1
            R[off[node]] |= (<uint64_t>1) << li
            for j in range(1, g.height[c] + 1):  # (a node is higher than its children)
                R[off[node] + j] |= R[off[c] + j - 1]
    state[node] = 2 if alive else 1
    return alive


_REACH = {}


cdef _ReachAt _reach_for(CGraph g):
    """The :class:`_ReachAt` of ``g`` (built on first use, memoised per graph)."""
    hit = _REACH.get(id(g))
    if hit is not None and (<_ReachAt>hit).graph is g:
        return hit
    cdef _ReachAt out = _ReachAt()
    cdef uint8_t *state = <uint8_t *>malloc(g.n)
    cdef int32_t i
    cdef int j
    cdef uint64_t acc
    cdef Py_ssize_t total = 0
    out.off = <Py_ssize_t *>malloc((g.n + 1) * sizeof(Py_ssize_t))
    if out.off == NULL or state == NULL:
        free(state)
        raise MemoryError()
    for i in range(g.n):
        out.off[i] = total
        total += g.height[i]
    out.off[g.n] = total
    out.m = <uint64_t *>malloc((total + 1) * sizeof(uint64_t))
    out.ge = <uint64_t *>malloc((total + 1) * sizeof(uint64_t))
    if out.m == NULL or out.ge == NULL:
        free(state)
        raise MemoryError()
    memset(out.m, 0, (total + 1) * sizeof(uint64_t))
    memset(state, 0, g.n)
    for i in range(g.n):
        _fill_reach(g, out.m, out.off, state, i)
    free(state)
    for i in range(g.n):
        acc = 0
        for j in range(g.height[i] - 1, -1, -1):
            acc |= out.m[out.off[i] + j]
            out.ge[out.off[i] + j] = acc
    out.graph = g
    if len(_REACH) >= 4:
        _REACH.pop(next(iter(_REACH)))
    _REACH[id(g)] = out
    return out


cdef inline int _reach_ok(_Search S, int32_t node, int col, int s, int deeper) noexcept:
    """Whether a word at ``node`` whose next letter goes on square ``col`` can still hold
    square ``s`` (the first square it must reach, ``s >= col``): the tile there, or a
    letter its cross-check allows and the rack can lay.  True when ``s < col``.  With
    ``deeper``: whether a word reading on from ``node`` with one letter or more before
    the one on ``col`` can (a longer left part)."""
    cdef uint64_t want
    cdef uint64_t *R
    cdef int j, hi, h = S.g.height[node]
    if s < col:
        return 1
    if s - col >= h or s >= S.size:
        return 0  # (no path is that long)
    if S.line[s] != EMPTY:
        want = (<uint64_t>1) << S.line[s]
    else:
        want = S.lok[s] & S.pmask
    if not deeper:
        R = &S.reach_at[S.reach_off[node]]
        if not (R[s - col] & want):
            return 0
        # the word covers every square up to s: each must take a letter a path holds
        # at that depth (the tile there, or one its cross-check allows and the rack can
        # lay); the first few are checked
        hi = s if s < col + 6 else col + 6
        for j in range(col, hi):
            if S.line[j] != EMPTY:
                want = (<uint64_t>1) << S.line[j]
            else:
                want = S.lok[j] & S.pmask
            if not (R[j - col] & want):
                return 0
        return 1
    j = s - col + 1
    if j >= h:
        return 0
    return (S.reach_ge[S.reach_off[node] + j] & want) != 0


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
    Raises ValueError for a malformed or empty table or a board larger than 32 squares
    a side."""
    cdef _Search S
    cdef object root
    cdef object spec
    cdef uint64_t allowed0[2][MAXS][MAXS]
    cdef int xsum0[2][MAXS][MAXS]
    cdef dict memo
    cdef _ReachAt reach
    cdef public long long lines_searched, lines_skipped
    cdef public object trace   # a list: (pass, line, steps) per line searched (benches)

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
        self.lines_searched = 0
        self.lines_skipped = 0
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
                S.lm[0][r][c] = s.lm[r][c]
                S.wm[0][r][c] = s.wm[r][c]
                S.lm[1][c][r] = s.lm[r][c]
                S.wm[1][c][r] = s.wm[r][c]
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
        # the rack (as search)
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
                    vals.append(self.spec.values.get(u, 0))
        if ntotal == 0 or min_tiles > ntotal:
            return found
        if min_tiles and not can_lay(self.root, rack, min_tiles, self.spec, cache):
            return found  # (search's own test, memoised under the same key)
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
        S.P[0] = 0
        for i in range(1, 64):
            S.P[i] = S.P[i - 1] + (vals[i - 1] if i - 1 < len(vals) else 0)
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
            memcpy(S.allowed, self.allowed0, sizeof(S.allowed))
            memcpy(S.xsum, self.xsum0, sizeof(S.xsum))
            S.sink = None
            S.parts = None
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
        cdef int x
        # the line's state: everything its search reads (a square is an anchor when it
        # is empty next to a tile in the line or has a cross word, xsum >= 0)
        b[0] = <char>p
        n = 1
        for c in range(size):
            x = S.grid[p][ln][c]
            b[n] = <char>x
            b[n + 1] = <char>(S.bval[p][ln][c])
            b[n + 2] = <char>(S.nxt[p][ln][c])
            b[n + 3] = <char>(S.lm[p][ln][c] * 8 + S.wm[p][ln][c])
            x = S.xsum[p][ln][c]
            b[n + 4] = <char>(x & 255)
            b[n + 5] = <char>((x >> 8) & 255)
            n += 6
            if S.xsum[p][ln][c] >= 0:
                al = S.allowed[p][ln][c]
                memcpy(&b[n], &al, 8)
                n += 8
        key = (PyBytes_FromStringAndSize(buf, n), rack)
        hit = self.memo.get(key)
        if hit is not None and S.min_tiles >= (<tuple>hit)[0] and S.thr >= (<tuple>hit)[1]:
            self.lines_skipped += 1
            return 0
        self.lines_searched += 1
        n = len(found)
        cdef long long st0 = _STEPS
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
            if S.anchor_bound(a, lo) < S.thr:
                continue
            S.run_anchor(p, ln, a)
        if self.trace is not None:
            self.trace.append((p, ln, _STEPS - st0))
        if len(found) == n:
            if hit is None or (S.min_tiles <= (<tuple>hit)[0] and S.thr <= (<tuple>hit)[1]):
                self.memo[key] = (S.min_tiles, S.thr)
        return 0


# --- Presto (bot.games.typdom.search): the words a set of tiles spells ---------------

cdef class _Spell:
    cdef CGraph g
    cdef int cnt[64]
    cdef int word[64]      # letter index per position
    cdef int low[64]       # 1: a Jolly's letter (lower case)
    cdef uint64_t vowels, cross
    cdef int must, depth, maxdepth, first_only, stop
    cdef uint64_t mustbit
    cdef list out
    cdef Py_UCS4 up[64]
    cdef Py_UCS4 lo[64]

    cdef void emit(self, int k, int red, int black):
        cdef Py_UCS4 buf[64]
        cdef int i
        for i in range(self.depth):
            buf[i] = self.lo[self.word[i]] if self.low[i] else self.up[self.word[i]]
        w = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, self.depth)
        self.out.append((w, None if k < 0 else k, red, black))
        if self.first_only:
            self.stop = 1

    cdef void rec(self, int32_t node, int red, int black, int k, int got, int crossing):
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


def spellings(root, counts, int red, int black, cross, must, vowels, first_only=False):
    """Compiled :func:`bot.games.typdom.search._spellings` (the same list of
    ``(word, k, red left, black left)``, in another order): every word the tiles
    ``counts`` (letter -> count) spell with ``red`` / ``black`` Jollys (a Jolly's letter
    lower case; red stands for a letter of ``vowels``, black for any other), with
    ``cross`` (letters that may be crossed, or None) exactly one crossed letter at
    position ``k``; ``must``: a letter the word must use from the tiles (or None; the
    search skips the branches whose words cannot hold it). ``first_only``: stop at the
    first word (the list is empty exactly when the full one is)."""
    cdef CGraph g = compiled_graph(root)
    cdef _Spell S = _Spell()
    cdef int i, li
    S.g = g
    S.out = []
    for i in range(64):
        S.cnt[i] = 0
        S.up[i] = u'?'
        S.lo[i] = u'?'
    for i in range(g.nl):
        ch = g.letters[i]
        if len(ch) != 1 or len(ch.lower()) != 1:
            raise ValueError(f"letter {ch!r} not supported")
        S.up[i] = ord(ch)
        S.lo[i] = ord(ch.lower())
    for ch, n in counts.items():
        li = g.index.get(ch, -1)
        if li >= 0 and n > 0:
            S.cnt[li] = n
    S.vowels = 0
    for ch in vowels:
        li = g.index.get(ch, -1)
        if li >= 0:
            S.vowels |= (<uint64_t>1) << li
    S.cross = 0
    if cross is not None:
        for ch in cross:
            li = g.index.get(ch, -1)
            if li >= 0:
                S.cross |= (<uint64_t>1) << li
    S.must = -1
    S.mustbit = ~(<uint64_t>0)  # no letter required: nothing is skipped
    if must is not None:
        S.must = g.index.get(must, 99)
        if S.must >= 64 or S.cnt[S.must] == 0:
            return S.out  # the tiles lack that letter: no word uses it
        S.mustbit = (<uint64_t>1) << S.must
    S.first_only = 1 if first_only else 0
    S.stop = 0
    S.depth = 0
    S.maxdepth = 63
    S.rec(0, red, black, -1, 1 if must is None else 0, 0 if cross is None else 1)
    return S.out


def sort_spines(list spines, dict weights):
    """Presto's spines sorted as :meth:`bot.games.typdom.search._Search.run` sorts them
    (by ``(-hardness, -len(word), word)``; hardness: the sum of ``weights`` of the
    word's upper-case letters, see ``search._hardness``); ties keep their order."""
    cdef Py_ssize_t i, n = len(spines)
    cdef long h
    cdef str w
    cdef Py_UCS4 ch
    dec = []
    for i in range(n):
        w = spines[i][0]
        h = 0
        for ch in w:
            v = weights.get(ch)
            if v is not None:
                h += <long>v
        dec.append((-h, -len(w), w, i))
    dec.sort()
    return [spines[t[3]] for t in dec]


# --- Rondo / RONDO (bot.games.rondo.engine): every valid move of a position ----------

cdef enum:
    R_EMPTY = 0
    R_LETTER = 1
    R_JOKER = 2
    R_LOESCHER = 3
    T_OLD = 0
    T_NEW = 1
    T_JOKER = 2
    T_LOESCHER = 3

cdef class _Rondo:
    cdef CGraph g
    cdef int okind[12]
    cdef int oli[12]          # letter index of an old letter/Joker card (NOLETTER: not in the graph)
    cdef Py_UCS4 ochar[12]    # the old card's row code
    cdef int oval[12]         # the old card's value
    cdef int cnt[64]
    cdef int lval[64]         # letter value per letter index
    cdef Py_UCS4 llow[64]     # the letter in lower case (an old card or a Joker in a row code)
    cdef uint64_t alpha       # the letters a Joker may stand for
    cdef int tkind[12]
    cdef int tli[12]
    cdef Py_UCS4 word[16]
    cdef int s, e, need_old, min_word, joker_value, loescher_value, bonus_per_card
    cdef object row_word
    cdef list out

    cdef void emit(self, int nw):
        cdef int i, f, n = self.e - self.s + 1
        cdef int value = 0, newl = 0, newj = 0, newd = 0, counted, bonus, k
        cdef Py_UCS4 rowc[9]
        cdef Py_UCS4 cards[40]
        cdef Py_UCS4 placed[16]
        cdef Py_UCS4 c, tmp
        cdef int nc = 0, npl = 0
        w = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self.word, nw)
        if self.need_old and w == self.row_word:
            return  # "unchanged"
        for f in range(1, 10):
            rowc[f - 1] = u'.'
        for i in range(n):
            f = self.s + i
            k = self.tkind[i]
            if k == T_OLD:
                rowc[f - 1] = self.ochar[f]
                value += self.oval[f]
                cards[nc] = self.llow[self.tli[i]]
                nc += 1
            elif k == T_NEW:
                c = self.g.lchar[self.tli[i]]
                rowc[f - 1] = c
                value += self.lval[self.tli[i]]
                cards[nc] = c
                nc += 1
                placed[npl] = c
                npl += 1
                newl += 1
            elif k == T_JOKER:
                c = self.g.lchar[self.tli[i]]
                rowc[f - 1] = self.llow[self.tli[i]]
                value += self.joker_value
                cards[nc] = u'*'
                cards[nc + 1] = c
                nc += 2
                newj += 1
            else:
                rowc[f - 1] = u'/'
                value += self.loescher_value
                cards[nc] = u'/'
                nc += 1
                if self.okind[f] != R_LOESCHER:
                    newd += 1
        # placed letters sorted (insertion sort), then the Jokers and one Loescher
        for i in range(1, npl):
            tmp = placed[i]
            k = i - 1
            while k >= 0 and placed[k] > tmp:
                placed[k + 1] = placed[k]
                k -= 1
            placed[k + 1] = tmp
        for i in range(newj):
            placed[npl] = u'?'
            npl += 1
        if newd:
            placed[npl] = u'/'
            npl += 1
        counted = newl + newj + (1 if newd else 0)
        bonus = self.bonus_per_card * (counted - 2 if counted > 2 else 0)
        self.out.append((value + bonus, PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, rowc, 9),
                         PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, cards, nc), self.s, w, bonus,
                         PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, placed, npl), newd))

    cdef void rec(self, int f, int phase, int32_t node, int nw, int jok, int kept, int er):
        cdef CGraph g = self.g
        cdef int i = f - self.s, li, word_done, ok
        cdef int32_t child
        cdef uint64_t mm, bit
        if f > self.e:
            if (kept or not self.need_old) and nw >= self.min_word and g.term[node]:
                self.emit(nw)
            return
        cdef int ok_kind = self.okind[f]
        if phase != 2:
            if ok_kind == R_LETTER or ok_kind == R_JOKER:
                child = g.get(node, self.oli[f])
                if child >= 0:
                    self.tkind[i] = T_OLD
                    self.tli[i] = self.oli[f]
                    self.word[nw] = g.lchar[self.oli[f]]
                    self.rec(f + 1, 1, child, nw + 1, jok, 1, er)
            mm = g.mask[node]
            while mm:
                li = sl_ctz(mm)
                bit = (<uint64_t>1) << li
                mm ^= bit
                if self.cnt[li] <= 0:
                    continue
                child = g.get(node, li)
                self.cnt[li] -= 1
                self.tkind[i] = T_NEW
                self.tli[i] = li
                self.word[nw] = g.lchar[li]
                self.rec(f + 1, 1, child, nw + 1, jok, kept, er)
                self.cnt[li] += 1
            if jok > 0:
                mm = g.mask[node] & self.alpha
                while mm:
                    li = sl_ctz(mm)
                    mm ^= (<uint64_t>1) << li
                    child = g.get(node, li)
                    self.tkind[i] = T_JOKER
                    self.tli[i] = li
                    self.word[nw] = g.lchar[li]
                    self.rec(f + 1, 1, child, nw + 1, jok - 1, kept, er)
        word_done = phase != 1 or (nw >= self.min_word and g.term[node])
        if word_done and ok_kind != R_EMPTY and (ok_kind == R_LOESCHER or er > 0):
            self.tkind[i] = T_LOESCHER
            self.tli[i] = NOLETTER
            self.rec(f + 1, 0 if phase == 0 else 2, node, nw, jok, kept,
                     er if ok_kind == R_LOESCHER else er - 1)


def rondo_moves(root, row_code, letters, int jokers, int erasers, windows, values, int joker_value,
                int loescher_value, int bonus_per_card, int min_word):
    """Every valid move of a Rondo / RONDO position, as
    :func:`bot.games.rondo.engine.generate_moves` finds and judges them (the same moves):
    raw records ``(score, row code after, cards, field, word, bonus, new cards,
    new Loescher)`` (``cards``: the move's notation without the field; ``new cards`` as
    :attr:`Outcome.new_cards`), in no particular order.

    ``row_code``: the Auslage (9 characters: ``.``, ``/``, ``A``-``Z`` letter card,
    ``a``-``z`` Joker); ``letters``: letter -> cards of the Vorgabe; ``jokers``; ``erasers``:
    the new Loescher allowed (a large number for the reusable one); ``windows``: the
    ``(first, last)`` fields a move may span (``engine._windows``); ``values``: letter
    values.  Word prefixes are walked in the word graph whose root is ``root``."""
    cdef CGraph g = compiled_graph(root)
    cdef _Rondo R = _Rondo()
    cdef int f, li, i
    cdef Py_UCS4 ch
    if len(row_code) != 9:
        raise ValueError("a Rondo row has 9 fields")
    R.g = g
    R.out = []
    for i in range(64):
        R.cnt[i] = 0
        R.lval[i] = 0
    for i in range(g.nl):
        if len(g.letters[i]) != 1:
            raise ValueError(f"letter {g.letters[i]!r} not supported")
        R.lval[i] = values.get(g.letters[i], 0)
        low = g.letters[i].lower()
        R.llow[i] = ord(low) if len(low) == 1 else u'?'
    R.alpha = 0
    for cs in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        li = g.index.get(cs, -1)
        if li >= 0:
            R.alpha |= (<uint64_t>1) << li
    for cs, n in letters.items():
        li = g.index.get(cs, -1)
        if li >= 0 and n > 0:
            R.cnt[li] = n
    word = []
    for f in range(12):
        R.okind[f] = R_EMPTY
        R.oli[f] = NOLETTER
        R.ochar[f] = u'.'
        R.oval[f] = 0
    for f in range(1, 10):
        cs = row_code[f - 1]
        ch = ord(cs)
        R.ochar[f] = ch
        if cs == ".":
            continue
        if cs == "/":
            R.okind[f] = R_LOESCHER
            R.oval[f] = loescher_value
        elif "A" <= cs <= "Z":
            R.okind[f] = R_LETTER
            R.oli[f] = g.index.get(cs, NOLETTER)
            R.oval[f] = values[cs]
            word.append(cs)
        elif "a" <= cs <= "z":
            R.okind[f] = R_JOKER
            R.oli[f] = g.index.get(cs.upper(), NOLETTER)
            R.oval[f] = joker_value
            word.append(cs.upper())
        else:
            raise ValueError(f"not a Rondo row code: {cs!r}")
    R.row_word = "".join(word)
    R.need_old = 1 if R.row_word or any(c != "." for c in row_code) else 0
    R.min_word = min_word
    R.joker_value = joker_value
    R.loescher_value = loescher_value
    R.bonus_per_card = bonus_per_card
    for s, e in windows:
        if s < 1 or e > 9 or e < s or e - s + 1 > 12:
            raise ValueError("bad window")
        R.s = s
        R.e = e
        R.rec(s, 0, 0, 0, jokers, 0, erasers)
    return R.out


# --- Typ-Dom's plan search (bot.games.typdom.movegen._best_plan): its scans of the listing


def usage_codes(list raws, dict inc, dict inc_blank):
    """Per raw search record the rack tiles it uses as one integer: the sum of ``inc[ch]``
    for a tile laid as itself and ``inc_blank[ch]`` for a Jolly laid as ``ch``
    (``movegen._multiset_code`` of its usage, with the increments ``1 << 6 * field``)."""
    cdef Py_ssize_t i, n = len(raws)
    out = [0] * n
    for i in range(n):
        code = 0
        for t in (<tuple>raws[i])[6]:
            code += inc_blank[t[1]] if t[2] else inc[t[1]]
        out[i] = code
    return out


def joining(list raws, int n_rack):
    """The raw records of joining placements that leave a tile in the rack: fewer than
    ``n_rack`` tiles, at least two table tiles in the word, in two or more groups
    (``movegen._raw_runs``)."""
    cdef Py_ssize_t i, n = len(raws)
    cdef int nt, start, L, p, runs, prev, old, j, np
    cdef char isnew[64]
    out = []
    for i in range(n):
        raw = <tuple>raws[i]
        nt = raw[1]
        word = raw[5]
        L = len(word)
        if nt >= n_rack or L - nt < 2 or L > 64:
            continue
        start = raw[4]
        for j in range(L):
            isnew[j] = 0
        for t in raw[6]:
            isnew[<int>t[0] - start] = 1
        runs = 0
        prev = 0
        for j in range(L):
            old = 0 if isnew[j] else 1
            if old and not prev:
                runs += 1
            prev = old
        if runs >= 2:
            out.append(raw)
    return out
