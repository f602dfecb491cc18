# Part of bot/games/_gridcore.pyx (included there: one compilation unit). The flat word graph (CGraph) and the game's spec (CSpec) the searches read, and the anchor jobs' order.

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
    cdef int lm2[2][MAXS][MAXS]   # letter premiums per pass (1: transposed), what a search copies
    cdef int wm2[2][MAXS][MAXS]   # (word premiums likewise)
    cdef object blank_chars   # dict char -> kind
    cdef int plain            # no premium squares
    cdef int *vmax            # per node: the most the letters of a path to a word's end are worth
    cdef signed char bkind[128]  # per ASCII character, the kind of blank it is (blank_chars; -1: none)

    def __cinit__(self):
        self.vmax = NULL
        memset(self.bkind, -1, sizeof(self.bkind))

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
    for i, ch in enumerate(kinds):
        if isinstance(ch, str) and len(ch) == 1 and ord(ch) < 128:
            s.bkind[ord(ch)] = i
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
            if not (1 <= lm[r][c] <= 3 and 1 <= wm[r][c] <= 3 and lm[r][c] * wm[r][c] <= 3):
                raise ValueError("premiums must multiply by 1, 2 or 3")
            s.lm2[0][r][c] = s.lm2[1][c][r] = lm[r][c]
            s.wm2[0][r][c] = s.wm2[1][c][r] = wm[r][c]
    s.plain = 1
    for r in range(s.size):
        for c in range(s.size):
            if s.lm2[0][r][c] != 1 or s.wm2[0][r][c] != 1:
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
    int lo  # the first square a word through the anchor may start on (see run_anchor)


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
