# Part of bot/games/_gridcore.pyx (included there: one compilation unit). The GADDAG of a word graph built in C, straight into the core's flat arrays (bot/games/gaddag.py; issue 35, docs/development/performance-movegen.md).

from libc.string cimport memcmp
from libc.stdint cimport int64_t, uint32_t


cdef struct _GbLevel:       # an unfinished node on the path of the incremental build
    uint8_t term
    int nedges
    uint8_t lt[64]
    int32_t ch[64]


cdef struct _Gb:            # the finished nodes (each once: the register) and their edges
    int32_t n, cap
    int64_t ne, ecap
    int64_t *first          # per node: its first edge
    uint64_t *mask
    uint8_t *term
    int32_t *child          # the edges' children, per node in letter order
    int32_t *table          # open addressing over the nodes (-1: free)
    int64_t tcap


cdef inline uint64_t _gb_hash(uint8_t term, uint64_t mask, const int32_t *ch, int k) noexcept nogil:
    cdef uint64_t h = (mask ^ (<uint64_t>term << 63)) * <uint64_t>0x9E3779B97F4A7C15ULL
    cdef int i
    for i in range(k):
        h = (h ^ <uint64_t><uint32_t>ch[i]) * <uint64_t>0x100000001B3ULL
        h ^= h >> 29
    return h ^ (h >> 32)


cdef int _gb_grow_table(_Gb *b) except -1:
    cdef int64_t cap = b.tcap * 2 if b.tcap else 1 << 16
    cdef int32_t *t = <int32_t *>malloc(cap * sizeof(int32_t))
    cdef int32_t i
    cdef int64_t j
    if t == NULL:
        raise MemoryError()
    memset(t, 0xFF, cap * sizeof(int32_t))
    for i in range(b.n):
        j = <int64_t>(_gb_hash(b.term[i], b.mask[i], &b.child[b.first[i]], sl_popcount(b.mask[i])) & <uint64_t>(cap - 1))
        while t[j] >= 0:
            j = (j + 1) & (cap - 1)
        t[j] = i
    free(b.table)
    b.table = t
    b.tcap = cap
    return 0


cdef int32_t _gb_node(_Gb *b, uint8_t term, uint64_t mask, const int32_t *ch) except -1:
    """The id of the finished node with this end flag, these out-letters and these
    children (in letter order): an equal one if there is one, else a new one."""
    cdef int k = sl_popcount(mask)
    cdef int64_t j
    cdef int32_t x
    cdef void *p
    if (b.n + 1) * 2 > b.tcap:
        _gb_grow_table(b)
    j = <int64_t>(_gb_hash(term, mask, ch, k) & <uint64_t>(b.tcap - 1))
    while True:
        x = b.table[j]
        if x < 0:
            break
        if (b.mask[x] == mask and b.term[x] == term
                and memcmp(&b.child[b.first[x]], ch, k * sizeof(int32_t)) == 0):
            return x
        j = (j + 1) & (b.tcap - 1)
    if b.n + 1 >= b.cap:
        b.cap = b.cap * 2 if b.cap else 1 << 16
        p = realloc(b.first, (b.cap + 1) * sizeof(int64_t))
        if p == NULL:
            raise MemoryError()
        b.first = <int64_t *>p
        p = realloc(b.mask, b.cap * sizeof(uint64_t))
        if p == NULL:
            raise MemoryError()
        b.mask = <uint64_t *>p
        p = realloc(b.term, b.cap)
        if p == NULL:
            raise MemoryError()
        b.term = <uint8_t *>p
    if b.ne + k > b.ecap:
        b.ecap = b.ecap * 2 if b.ecap else 1 << 17
        while b.ne + k > b.ecap:
            b.ecap *= 2
        p = realloc(b.child, b.ecap * sizeof(int32_t))
        if p == NULL:
            raise MemoryError()
        b.child = <int32_t *>p
    x = b.n
    b.first[x] = b.ne
    b.mask[x] = mask
    b.term[x] = term
    memcpy(&b.child[b.ne], ch, k * sizeof(int32_t))
    b.ne += k
    b.first[x + 1] = b.ne
    b.n += 1
    b.table[j] = x
    return x


cdef int32_t _gb_dawg(_Gb *b, CGraph D, int32_t v, int32_t *dmap) except -1:
    """The finished node of the word graph ``D``'s node ``v`` (its children first)."""
    cdef int32_t ch[64]
    cdef int32_t e, k = 0
    if dmap[v] >= 0:
        return dmap[v]
    for e in range(D.first[v], D.first[v + 1]):
        ch[k] = _gb_dawg(b, D, D.child[e], dmap)
        k += 1
    dmap[v] = _gb_node(b, D.term[v], D.mask[v], ch)
    return dmap[v]


# the strings to sort (qsort's comparison reads them here)
cdef uint8_t *_GB_BUF = NULL
cdef int64_t *_GB_OFF = NULL
cdef uint8_t *_GB_LEN = NULL


cdef int _gb_cmp(const void *a, const void *b) noexcept nogil:
    cdef int32_t i = (<const int32_t *>a)[0], j = (<const int32_t *>b)[0]
    cdef int li = _GB_LEN[i], lj = _GB_LEN[j]
    cdef int c = memcmp(&_GB_BUF[_GB_OFF[i]], &_GB_BUF[_GB_OFF[j]], li if li < lj else lj)
    if c:
        return c
    return li - lj


cdef class _GbStrings:
    """The strings of the reading left (each a reversed prefix ``p`` of a word, letter
    indices, ending in the separator's index when a word goes on after ``p``), with the
    finished node the separator leads to."""
    cdef uint8_t *buf
    cdef int64_t nbuf, bcap
    cdef int64_t *off
    cdef uint8_t *ln
    cdef int32_t *target
    cdef int32_t n, cap
    cdef int maxlen

    def __cinit__(self):
        self.buf = NULL
        self.off = NULL
        self.ln = NULL
        self.target = NULL

    def __dealloc__(self):
        free(self.buf)
        free(self.off)
        free(self.ln)
        free(self.target)

    cdef int add(self, const uint8_t *path, int depth, int sep, int32_t target) except -1:
        cdef int k = depth + (1 if sep >= 0 else 0), i
        cdef void *p
        if self.n >= self.cap:
            self.cap = self.cap * 2 if self.cap else 1 << 16
            p = realloc(self.off, self.cap * sizeof(int64_t))
            if p == NULL:
                raise MemoryError()
            self.off = <int64_t *>p
            p = realloc(self.ln, self.cap)
            if p == NULL:
                raise MemoryError()
            self.ln = <uint8_t *>p
            p = realloc(self.target, self.cap * sizeof(int32_t))
            if p == NULL:
                raise MemoryError()
            self.target = <int32_t *>p
        if self.nbuf + k > self.bcap:
            self.bcap = self.bcap * 2 if self.bcap else 1 << 20
            p = realloc(self.buf, self.bcap)
            if p == NULL:
                raise MemoryError()
            self.buf = <uint8_t *>p
        for i in range(depth):
            self.buf[self.nbuf + i] = path[depth - 1 - i]
        if sep >= 0:
            self.buf[self.nbuf + depth] = <uint8_t>sep
        self.off[self.n] = self.nbuf
        self.ln[self.n] = <uint8_t>k
        self.target[self.n] = target
        self.nbuf += k
        self.n += 1
        if k > self.maxlen:
            self.maxlen = k
        return 0


cdef int _gb_prefixes(_Gb *b, CGraph D, int32_t v, uint8_t *path, int depth, int32_t *dmap,
                      int sep, _GbStrings S) except -1:
    """Every non-empty prefix below ``v`` (``path[:depth]`` leads there) as its
    strings: reversed, once as a word (when it is one) and once before the separator
    (when a word goes on after it; the separator leads to ``v``'s node without its end
    flag, whose right language is the words' rests)."""
    cdef int32_t e, c, ch[64], k = 0, t
    cdef uint64_t m
    if depth > 250:
        raise ValueError("a word of more than 250 letters")
    if depth > 0:
        if D.term[v]:
            S.add(path, depth, -1, -1)
        if D.mask[v]:
            t = dmap[v]
            if D.term[v]:
                for e in range(D.first[v], D.first[v + 1]):
                    ch[k] = dmap[D.child[e]]
                    k += 1
                t = _gb_node(b, 0, D.mask[v], ch)
            S.add(path, depth, sep, t)
    m = D.mask[v]
    e = D.first[v]
    while m:
        path[depth] = <uint8_t>sl_ctz(m)
        m &= m - 1
        c = D.child[e]
        e += 1
        _gb_prefixes(b, D, c, path, depth + 1, dmap, sep, S)
    return 0


cdef int32_t _gb_pop(_Gb *b, _GbLevel *lv, int depth) except -1:
    """Finish the node at ``depth`` and hang it under its parent's last edge."""
    cdef _GbLevel *L = &lv[depth]
    cdef uint64_t m = 0
    cdef int i
    cdef int32_t x
    for i in range(L.nedges):
        m |= (<uint64_t>1) << L.lt[i]
    x = _gb_node(b, L.term, m, L.ch)
    if depth > 0:
        lv[depth - 1].ch[lv[depth - 1].nedges - 1] = x
    return x


cdef CGraph _build_gaddag_flat(CGraph D, str sep):
    cdef _Gb b
    cdef _GbStrings S = _GbStrings()
    cdef int32_t *dmap = NULL
    cdef int32_t *order = NULL
    cdef int32_t *newid = NULL
    cdef int32_t *queue = NULL
    cdef _GbLevel *lv = NULL
    cdef uint8_t path[256]
    cdef uint8_t cur[256]
    cdef int nl = D.nl, depth = 0, cp, body, i, L
    cdef int32_t s, x, root, head, tail, v, e
    cdef int64_t ne = 0
    cdef const uint8_t *str_
    cdef CGraph g
    if nl >= MAXL:
        raise ValueError("no letter index left for the separator")
    memset(&b, 0, sizeof(_Gb))
    try:
        dmap = <int32_t *>malloc((D.n + 1) * sizeof(int32_t))
        if dmap == NULL:
            raise MemoryError()
        memset(dmap, 0xFF, (D.n + 1) * sizeof(int32_t))
        # 1. the word graph's nodes (the right parts after the separator are its nodes'
        #    languages: they come first, so the strings' separators can point at them)
        for v in range(D.n):
            _gb_dawg(&b, D, v, dmap)
        # 2. the reversed prefixes, sorted (the separator's index, nl, after every letter's)
        _gb_prefixes(&b, D, 0, path, 0, dmap, nl, S)
        order = <int32_t *>malloc((S.n + 1) * sizeof(int32_t))
        if order == NULL:
            raise MemoryError()
        for s in range(S.n):
            order[s] = s
        global _GB_BUF, _GB_OFF, _GB_LEN
        _GB_BUF = S.buf
        _GB_OFF = S.off
        _GB_LEN = S.ln
        qsort(order, S.n, sizeof(int32_t), _gb_cmp)
        _GB_BUF = NULL
        _GB_OFF = NULL
        _GB_LEN = NULL
        # 3. Daciuk's incremental minimisation over them (the register: b's table)
        lv = <_GbLevel *>malloc((S.maxlen + 2) * sizeof(_GbLevel))
        if lv == NULL:
            raise MemoryError()
        lv[0].term = 0
        lv[0].nedges = 0
        for s in range(S.n):
            x = order[s]
            str_ = &S.buf[S.off[x]]
            L = S.ln[x]
            body = L - 1 if S.target[x] >= 0 else L
            cp = 0
            while cp < body and cp < depth and cur[cp] == str_[cp]:
                cp += 1
            while depth > cp:
                _gb_pop(&b, lv, depth)
                depth -= 1
            while depth < body:
                i = lv[depth].nedges
                lv[depth].lt[i] = str_[depth]
                lv[depth].ch[i] = -1
                lv[depth].nedges = i + 1
                cur[depth] = str_[depth]
                depth += 1
                lv[depth].term = 0
                lv[depth].nedges = 0
            if S.target[x] >= 0:
                i = lv[depth].nedges
                lv[depth].lt[i] = <uint8_t>nl
                lv[depth].ch[i] = S.target[x]
                lv[depth].nedges = i + 1
            else:
                lv[depth].term = 1
        while depth > 0:
            _gb_pop(&b, lv, depth)
            depth -= 1
        root = _gb_pop(&b, lv, 0)
        # 4. the nodes reachable from the root, numbered breadth first (children in
        #    letter order): the same numbers as convert_gaddag gives the same graph
        newid = <int32_t *>malloc((b.n + 1) * sizeof(int32_t))
        queue = <int32_t *>malloc((b.n + 1) * sizeof(int32_t))
        if newid == NULL or queue == NULL:
            raise MemoryError()
        memset(newid, 0xFF, (b.n + 1) * sizeof(int32_t))
        head = 0
        tail = 1
        queue[0] = root
        newid[root] = 0
        while head < tail:
            v = queue[head]
            head += 1
            ne += b.first[v + 1] - b.first[v]
            for e in range(<int32_t>b.first[v], <int32_t>b.first[v + 1]):
                if newid[b.child[e]] < 0:
                    newid[b.child[e]] = tail
                    queue[tail] = b.child[e]
                    tail += 1
        g = CGraph()
        g.n = tail
        g.nl = nl + 1
        g.letters = list(D.letters) + [sep]
        g.index = {k: j for j, k in enumerate(g.letters)}
        g.first = <int32_t *>malloc((tail + 1) * sizeof(int32_t))
        g.child = <int32_t *>malloc((ne + 1) * sizeof(int32_t))
        g.mask = <uint64_t *>malloc(tail * sizeof(uint64_t))
        g.term = <uint8_t *>malloc(tail * sizeof(uint8_t))
        g.height = <uint8_t *>malloc(tail * sizeof(uint8_t))
        g.reach = <uint64_t *>malloc(tail * sizeof(uint64_t))
        if not (g.first and g.child and g.mask and g.term and g.height and g.reach):
            raise MemoryError()
        ne = 0
        for i in range(tail):
            v = queue[i]
            g.first[i] = <int32_t>ne
            g.mask[i] = b.mask[v]
            g.term[i] = b.term[v]
            g.height[i] = 255
            for e in range(<int32_t>b.first[v], <int32_t>b.first[v + 1]):
                g.child[ne] = newid[b.child[e]]
                ne += 1
        g.first[tail] = <int32_t>ne
    finally:
        free(dmap)
        free(order)
        free(newid)
        free(queue)
        free(lv)
        free(b.first)
        free(b.mask)
        free(b.term)
        free(b.child)
        free(b.table)
    for i in range(g.n):
        _heights(g, i)
    for i in range(1024):
        g.cpidx[i] = D.cpidx[i]
    for i in range(g.nl):
        g.lchar[i] = D.lchar[i] if i < D.nl else ord(sep)
    g.root = None
    g.specs = {}
    return g


def build_gaddag_flat(root, sep="+"):
    """The compiled GADDAG (as :func:`convert_gaddag` of :func:`bot.games.gaddag.build_gaddag`
    gives it: the same nodes, numbered the same) of the words of the word graph ``root``,
    built in C straight from the word graph's flat arrays, as wolges' KWG builder does
    (``build.rs``): the reversed prefixes of the words sorted, Daciuk's incremental
    minimisation over them with a hash table of the finished nodes, and the separator
    of a prefix ``p`` leading to the word graph's node of ``p`` (without its end flag),
    so the words' rests are never spelt out again.  Not memoised: the caller keeps it.
    Raises ValueError when the word graph has 63 letters (no index left for ``sep``)
    or a word of more than 250 letters."""
    return _build_gaddag_flat(compiled_graph(root), sep)


cdef uint64_t _gb_paths(CGraph G, int32_t v, uint64_t *memo) noexcept:
    cdef uint64_t t
    cdef int32_t e
    if memo[v] != <uint64_t>-1:
        return memo[v]
    t = G.term[v]
    for e in range(G.first[v], G.first[v + 1]):
        t += _gb_paths(G, G.child[e], memo)
    memo[v] = t
    return t


cdef int _gb_read_all(CGraph G, CGraph D, int32_t v, uint8_t *path, int depth, int sep,
                      long long *counts, const uint8_t *gi) noexcept:
    """Read every word below the word graph's node ``v`` in ``G`` from each of its
    letters; counts[0] += the readings, counts[1] += those that fail."""
    cdef int i, j
    cdef int32_t x, e
    cdef uint64_t m
    if D.term[v] and depth > 0:
        for i in range(depth):
            counts[0] += 1
            x = 0
            for j in range(i, -1, -1):
                x = G.get(x, path[j])
                if x < 0:
                    break
            if x >= 0 and i < depth - 1:
                x = G.get(x, sep)
                j = i + 1
                while x >= 0 and j < depth:
                    x = G.get(x, path[j])
                    j += 1
            if x < 0 or not G.term[x]:
                counts[1] += 1
    m = D.mask[v]
    e = D.first[v]
    while m:
        path[depth] = gi[sl_ctz(m)]
        m &= m - 1
        _gb_read_all(G, D, D.child[e], path, depth + 1, sep, counts, gi)
        e += 1
    return 0


def gaddag_paths(CGraph G):
    """The number of paths from the root of ``G`` to a node with the end flag: for a
    GADDAG, the number of its strings (tests)."""
    cdef uint64_t *memo = <uint64_t *>malloc((G.n + 1) * sizeof(uint64_t))
    cdef uint64_t r
    if memo == NULL:
        raise MemoryError()
    memset(memo, 0xFF, (G.n + 1) * sizeof(uint64_t))
    r = _gb_paths(G, 0, memo)
    free(memo)
    return r


def gaddag_read_all(CGraph G, root):
    """Read every word of the word graph ``root`` in the GADDAG ``G`` from each of its
    letters (left to the start, the separator, right to the end: a node with the end
    flag); returns ``(readings, failed)`` (tests).  The letters are matched by name."""
    cdef CGraph D = compiled_graph(root)
    cdef uint8_t path[256]
    cdef uint8_t gi[64]
    cdef long long counts[2]
    cdef int li
    for li in range(D.nl):
        gi[li] = G.index.get(D.letters[li], NOLETTER)
    counts[0] = 0
    counts[1] = 0
    _gb_read_all(G, D, 0, path, 0, G.nl - 1, counts, gi)
    return counts[0], counts[1]
