# Part of bot/games/_gridcore.pyx (included there: one compilation unit). A compiled GADDAG's flat arrays to bytes and back (the cache file of bot/games/gaddag.py).


def gaddag_dump(CGraph G):
    """The flat arrays of a compiled GADDAG as ``(letters, n, edges, first, child, mask,
    term)`` (the arrays as bytes, native byte order) for a cache file; the rest is
    recomputed on loading (:func:`gaddag_load`)."""
    cdef Py_ssize_t ne = G.first[G.n]
    return (tuple(G.letters), G.n, ne,
            PyBytes_FromStringAndSize(<char *>G.first, (G.n + 1) * sizeof(int32_t)),
            PyBytes_FromStringAndSize(<char *>G.child, ne * sizeof(int32_t)),
            PyBytes_FromStringAndSize(<char *>G.mask, G.n * sizeof(uint64_t)),
            PyBytes_FromStringAndSize(<char *>G.term, G.n))


def gaddag_load(tuple parts, root, sep="+"):
    """The compiled GADDAG from :func:`gaddag_dump`'s ``parts``; raises ValueError when
    its letters are not the word graph ``root``'s (in its index order) and ``sep``, or
    the arrays do not fit."""
    cdef CGraph dawg = compiled_graph(root)
    cdef CGraph g = CGraph()
    cdef bytes fb, cb, mb, tb
    cdef Py_ssize_t n, ne
    cdef int32_t i
    letters, n, ne, fb, cb, mb, tb = parts
    if list(letters) != dawg.letters + [sep]:
        raise ValueError("the GADDAG's letters are not the word graph's")
    if (len(fb) != (n + 1) * sizeof(int32_t) or len(cb) != ne * sizeof(int32_t) or len(mb) != n * sizeof(uint64_t)
            or len(tb) != n or n < 1):
        raise ValueError("the GADDAG's arrays do not fit")
    g.n = n
    g.nl = len(letters)
    g.letters = list(letters)
    g.index = {k: j for j, k in enumerate(g.letters)}
    g.first = <int32_t *>malloc((n + 1) * sizeof(int32_t))
    g.child = <int32_t *>malloc((ne + 1) * sizeof(int32_t))
    g.mask = <uint64_t *>malloc(n * sizeof(uint64_t))
    g.term = <uint8_t *>malloc(n * sizeof(uint8_t))
    g.height = <uint8_t *>malloc(n * sizeof(uint8_t))
    g.reach = <uint64_t *>malloc(n * sizeof(uint64_t))
    if not (g.first and g.child and g.mask and g.term and g.height and g.reach):
        raise MemoryError()
    memcpy(g.first, <char *>fb, len(fb))
    memcpy(g.child, <char *>cb, len(cb))
    memcpy(g.mask, <char *>mb, len(mb))
    memcpy(g.term, <char *>tb, len(tb))
    if g.first[0] != 0 or g.first[n] != ne:
        raise ValueError("the GADDAG's arrays do not fit")
    for i in range(n):
        g.height[i] = 255
        if g.first[i + 1] - g.first[i] != sl_popcount(g.mask[i]):
            raise ValueError("the GADDAG's arrays do not fit")
    for i in range(ne):
        if g.child[i] < 0 or g.child[i] >= n:
            raise ValueError("the GADDAG's arrays do not fit")
    for i in range(n):
        _heights(g, i)
    for i in range(1024):
        g.cpidx[i] = dawg.cpidx[i]
    for i in range(g.nl):
        g.lchar[i] = dawg.lchar[i] if i < dawg.nl else ord(sep)
    g.root = None
    g.specs = {}
    return g
