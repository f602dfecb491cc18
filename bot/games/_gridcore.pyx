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

from libc.stdlib cimport malloc, free, qsort, realloc
from libc.string cimport memset, memcpy
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


__all__ = ["steps", "search", "can_lay", "compiled_graph", "TouchBound", "MultisetIndex", "PlanListing", "spellings", "sort_spines", "rondo_moves"]


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
    cdef object plan        # a PlanListing: records go to its C arrays, not to sink
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
    S.plan = sink if isinstance(sink, PlanListing) else None
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


# --- Presto's spines (bot.games.typdom.search._Search.run; issue 35) ------------------
#
# Every word the whole set spells (the spines) is listed into C arrays with the spine
# sort's keys, and taken in sort order from a binary heap: a set answered by its first
# spines pays for a heap of thousands of indices and a few pops, not for a full sort
# and thousands of tuples.

from libc.stdlib cimport realloc

__all__ += ["presto_spines", "PrestoSpines"]


cdef struct SpineKey:
    long hard        # the hardness (sum of the weights of the word's letters)
    int len          # the word's length
    int red          # red Jollys left
    int black        # black Jollys left
    Py_ssize_t off   # where its letters start in the buffer


cdef class _SpineSpell(_Spell):
    """:class:`_Spell` writing each word into C arrays instead of a list."""
    cdef Py_UCS4 *buf
    cdef Py_ssize_t nbuf, capbuf
    cdef SpineKey *keys
    cdef Py_ssize_t n, cap
    cdef long wup[64]      # weight of a letter from the tiles (upper case), per letter index
    cdef long wlo[64]      # weight of a Jolly's letter (lower case)
    cdef int failed

    def __cinit__(self):
        self.buf = NULL
        self.keys = NULL
        self.nbuf = self.capbuf = self.n = self.cap = 0
        self.failed = 0

    def __dealloc__(self):
        free(self.buf)
        free(self.keys)

    cdef int reserve(self, Py_ssize_t need_words, Py_ssize_t need_letters) noexcept:
        cdef Py_ssize_t cap
        cdef void *p
        if need_words > self.cap:
            cap = self.cap * 2 if self.cap else 1024
            while cap < need_words:
                cap *= 2
            p = realloc(self.keys, cap * sizeof(SpineKey))
            if p == NULL:
                return -1
            self.keys = <SpineKey *>p
            self.cap = cap
        if need_letters > self.capbuf:
            cap = self.capbuf * 2 if self.capbuf else 8192
            while cap < need_letters:
                cap *= 2
            p = realloc(self.buf, cap * sizeof(Py_UCS4))
            if p == NULL:
                return -1
            self.buf = <Py_UCS4 *>p
            self.capbuf = cap
        return 0

    cdef void emit(self, int k, int red, int black):
        cdef int i, d = self.depth
        cdef long h = 0
        cdef Py_UCS4 *w
        cdef SpineKey *key
        if self.failed:
            return
        if self.reserve(self.n + 1, self.nbuf + d) < 0:
            self.failed = 1
            self.stop = 1
            return
        w = self.buf + self.nbuf
        for i in range(d):
            if self.low[i]:
                w[i] = self.lo[self.word[i]]
                h += self.wlo[self.word[i]]
            else:
                w[i] = self.up[self.word[i]]
                h += self.wup[self.word[i]]
        key = &self.keys[self.n]
        key.hard = h
        key.len = d
        key.red = red
        key.black = black
        key.off = self.nbuf
        self.nbuf += d
        self.n += 1


cdef inline int _spine_cmp(const SpineKey *keys, const Py_UCS4 *buf, Py_ssize_t x, Py_ssize_t y) noexcept:
    """The order of ``search._Search.run``'s sort, ``(-hard, -len, word)`` (a word
    compares by code points, as ``str`` does), then the listing order ``x`` / ``y``
    (which only identical entries reach)."""
    cdef const SpineKey *a = &keys[x]
    cdef const SpineKey *b = &keys[y]
    cdef int i
    cdef Py_UCS4 ca, cb
    if a.hard != b.hard:
        return -1 if a.hard > b.hard else 1
    if a.len != b.len:
        return -1 if a.len > b.len else 1
    for i in range(a.len):
        ca = buf[a.off + i]
        cb = buf[b.off + i]
        if ca != cb:
            return -1 if ca < cb else 1
    if x != y:
        return -1 if x < y else 1
    return 0


cdef class PrestoSpines:
    """Presto's spines in the order the search takes them (see :func:`presto_spines`):
    iterating gives the tuples ``(word, None, red left, black left)``; ``spines[i]`` the
    i-th (IndexError past the end); ``len()`` their number."""
    cdef _SpineSpell S
    cdef Py_ssize_t *heap    # indices into S.keys not yet taken (a binary min-heap)
    cdef Py_ssize_t nheap
    cdef Py_ssize_t *order   # indices taken, in order, duplicates dropped
    cdef Py_ssize_t norder

    def __cinit__(self):
        self.heap = NULL
        self.order = NULL
        self.nheap = self.norder = 0

    def __dealloc__(self):
        free(self.heap)
        free(self.order)

    cdef void sift_down(self, Py_ssize_t i) noexcept:
        cdef Py_ssize_t n = self.nheap, c, t
        cdef Py_ssize_t *h = self.heap
        cdef const SpineKey *keys = self.S.keys
        cdef const Py_UCS4 *buf = self.S.buf
        while True:
            c = 2 * i + 1
            if c >= n:
                return
            if c + 1 < n and _spine_cmp(keys, buf, h[c + 1], h[c]) < 0:
                c += 1
            if _spine_cmp(keys, buf, h[c], h[i]) >= 0:
                return
            t = h[c]
            h[c] = h[i]
            h[i] = t
            i = c

    cdef int take(self, Py_ssize_t upto) noexcept:
        """Take spines off the heap until ``upto`` are in ``order`` or the heap is
        empty. An entry equal to one taken before is dropped (``dict.fromkeys``); equal
        entries have the same word, so they come off the heap one after the other."""
        cdef Py_ssize_t j, q
        cdef const SpineKey *a
        cdef const SpineKey *b
        cdef const Py_UCS4 *buf = self.S.buf
        cdef int i, same
        while self.norder < upto and self.nheap > 0:
            j = self.heap[0]
            self.nheap -= 1
            self.heap[0] = self.heap[self.nheap]
            self.sift_down(0)
            b = &self.S.keys[j]
            same = 0
            q = self.norder - 1
            while q >= 0:
                a = &self.S.keys[self.order[q]]
                if a.hard != b.hard or a.len != b.len:
                    break
                for i in range(a.len):
                    if buf[a.off + i] != buf[b.off + i]:
                        break
                else:
                    if a.red == b.red and a.black == b.black:
                        same = 1
                        break
                    q -= 1  # the same word with other Jollys left: look further back
                    continue
                break  # another word
            if not same:
                self.order[self.norder] = j
                self.norder += 1
        return 0

    cdef tuple item(self, Py_ssize_t i):
        cdef SpineKey *key = &self.S.keys[self.order[i]]
        w = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, self.S.buf + key.off, key.len)
        return (w, None, key.red, key.black)

    def __getitem__(self, Py_ssize_t i):
        if i < 0:
            self.take(self.S.n)
            i += self.norder
        elif i >= self.norder:
            self.take(i + 1)
        if i < 0 or i >= self.norder:
            raise IndexError(i)
        return self.item(i)

    def __len__(self):
        self.take(self.S.n)
        return self.norder

    def __iter__(self):
        return _SpineIter(self)


cdef class _SpineIter:
    cdef PrestoSpines spines
    cdef Py_ssize_t i

    def __cinit__(self, PrestoSpines spines):
        self.spines = spines
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        cdef PrestoSpines s = self.spines
        if self.i >= s.norder:
            s.take(self.i + 1)
            if self.i >= s.norder:
                raise StopIteration
        self.i += 1
        return s.item(self.i - 1)


def presto_spines(root, counts, int red, int black, vowels, dict weights):
    """The spines of a Presto set as ``search._Search.run`` takes them: every word the
    tiles ``counts`` (letter -> count) spell with ``red`` / ``black`` Jollys (the list of
    :func:`spellings` with ``cross`` and ``must`` None), in the order of ``(-hardness,
    -len(word), word)`` (hardness: the sum of ``weights`` of the word's letters, as
    :func:`sort_spines`), each entry once (``dict.fromkeys``). Returns a
    :class:`PrestoSpines`, which sorts and builds the tuples as they are asked for.
    Raises MemoryError, and ValueError for a graph letter without one lower-case form."""
    cdef CGraph g = compiled_graph(root)
    cdef _SpineSpell S = _SpineSpell()
    cdef PrestoSpines out = PrestoSpines()
    cdef int i, li
    cdef Py_ssize_t j
    S.g = g
    S.out = None
    for i in range(64):
        S.cnt[i] = 0
        S.up[i] = u'?'
        S.lo[i] = u'?'
        S.wup[i] = 0
        S.wlo[i] = 0
    for i in range(g.nl):
        ch = g.letters[i]
        if len(ch) != 1 or len(ch.lower()) != 1:
            raise ValueError(f"letter {ch!r} not supported")
        S.up[i] = ord(ch)
        S.lo[i] = ord(ch.lower())
        S.wup[i] = <long>weights.get(ch, 0)
        S.wlo[i] = <long>weights.get(ch.lower(), 0)
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
    S.must = -1
    S.mustbit = ~(<uint64_t>0)  # no letter required: nothing is skipped
    S.first_only = 0
    S.stop = 0
    S.depth = 0
    S.maxdepth = 63
    S.rec(0, red, black, -1, 1, 0)
    if S.failed:
        raise MemoryError()
    out.S = S
    if S.n == 0:
        return out
    out.heap = <Py_ssize_t *>malloc(S.n * sizeof(Py_ssize_t))
    out.order = <Py_ssize_t *>malloc(S.n * sizeof(Py_ssize_t))
    if out.heap == NULL or out.order == NULL:
        raise MemoryError()
    for j in range(S.n):
        out.heap[j] = j
    out.nheap = S.n
    j = S.n // 2 - 1
    while j >= 0:
        out.sift_down(j)
        j -= 1
    return out


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
        cdef Py_ssize_t cap
        cdef void *p
        if need_words > self.cap:
            cap = self.cap * 2 if self.cap else 64
            while cap < need_words:
                cap *= 2
            p = realloc(self.cands, cap * sizeof(PCand))
            if p == NULL:
                return -1
            self.cands = <PCand *>p
            self.cap = cap
        if need_letters > self.capbuf:
            cap = self.capbuf * 2 if self.capbuf else 512
            while cap < need_letters:
                cap *= 2
            p = realloc(self.cp, cap * sizeof(Py_UCS4))
            if p == NULL:
                return -1
            self.cp = <Py_UCS4 *>p
            p = realloc(self.code, cap * sizeof(int))
            if p == NULL:
                return -1
            self.code = <int *>p
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
    runs = 0
    prev = 0
    for i in range(start, end):
        L.wch[L.nw] = S.lch[i]
        L.nw += 1
        old = 0 if S.is_new[i] else 1
        if old and not prev:
            runs += 1
        prev = old
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
    rec.joining = 1 if (nt < L.n_rack and end - start - nt >= 2 and runs >= 2) else 0
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
    cdef int fld[1024]       # field of a letter laid as itself (-1: none)
    cdef int fldb[1024]      # field of the Jolly laying a letter (-1: none)
    cdef int val[1024]       # letter values
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
        for i in range(1024):
            self.fld[i] = -1
            self.fldb[i] = -1
            self.val[i] = 0
        for ch, v in values.items():
            if len(ch) == 1 and ord(ch) < 1024:
                self.val[ord(ch)] = v
        field = {ch: i for i, ch in enumerate(kinds)}
        for ch in values:
            if len(ch) != 1 or ord(ch) >= 1024:
                continue
            if ch in field:
                self.fld[ord(ch)] = field[ch]
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
        cdef uint64_t hv
        cdef uint64_t fnv_basis = <uint64_t>1469598103934665603ULL
        cdef uint64_t fnv_prime = <uint64_t>1099511628211ULL
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
                hv = fnv_basis
                for x in range(W):
                    hv = (hv ^ c[x]) * fnv_prime
                h = <int>(hv & (hsize - 1))
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
        cdef uint64_t hv = <uint64_t>1469598103934665603ULL
        cdef uint64_t prime = <uint64_t>1099511628211ULL
        cdef int x, g, h, W = self.W
        for x in range(W):
            hv = (hv ^ c[x]) * prime
        h = <int>(hv & (self.hsize - 1))
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
        # (movegen._line_bound)
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
                if need > 0 and not can_lay(root, rack2, need, spec, cache):
                    continue  # no word holds enough of the tiles left, nor will
                nk = 0
                for uc in rack2:
                    lv[nk] = self.val[uc] if uc < 1024 else 0
                    nk += 1
                for k in range(rec.nt):
                    t = &self.tl[rec.toff + k]
                    if rec.p:
                        tr_[k] = t.pos
                        tc_[k] = rec.r
                    else:
                        tr_[k] = rec.r
                        tc_[k] = t.pos
                    tv_[k] = 0 if t.blank else (self.val[t.ch] if t.ch < 1024 else 0)
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
