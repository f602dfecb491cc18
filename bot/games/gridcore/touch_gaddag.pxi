# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's phase (b) over a GADDAG (bot/games/gaddag.py): each line's words searched from the squares they must reach outwards, behind TouchSearcher.use_gaddag (issue 35: docs/development/gaddag-plan.md).


cdef long long _GD_STEPS = 0   # the GADDAG search's calls (part of _STEPS), for benches


def gaddag_steps():
    """How many of the search steps (:func:`steps`) were the GADDAG touch search's
    (:func:`_gd_left`, :func:`_gd_right`): for benches."""
    return _GD_STEPS


cdef CGraph _convert_gaddag(dict root, CGraph dawg, str sep):
    """The flat form of the GADDAG ``root`` with the letter indices of the word graph
    ``dawg`` (so racks, cross-checks and values carry over unchanged) and ``sep`` as the
    letter after them.  Raises ValueError for a letter the word graph lacks."""
    cdef CGraph g = CGraph()
    cdef dict index = dict(dawg.index)
    cdef list letters = list(dawg.letters)
    cdef dict ids = {id(root): 0}
    cdef list nodes = [root]
    cdef Py_ssize_t nedges = 0, n, head = 0
    cdef int32_t e = 0, i
    cdef uint64_t m
    cdef dict node
    if len(letters) >= MAXL:
        raise ValueError("no letter index left for the separator")
    index[sep] = len(letters)
    letters.append(sep)
    # breadth first, children in letter order: the numbers build_gaddag_flat gives
    while head < len(nodes):
        node = nodes[head]
        head += 1
        for k in node:
            if k != END and k not in index:
                raise ValueError(f"the GADDAG has a letter the word graph lacks: {k!r}")
        for k in sorted((k for k in node if k != END), key=index.__getitem__):
            c = node[k]
            nedges += 1
            if id(c) not in ids:
                ids[id(c)] = len(nodes)
                nodes.append(c)
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
    for i in range(n):
        node = nodes[i]
        g.first[i] = e
        g.term[i] = 1 if END in node else 0
        g.height[i] = 255
        m = 0
        for li, ci in sorted((index[k], ids[id(c)]) for k, c in node.items() if k != END):
            m |= (<uint64_t>1) << <int>li
            g.child[e] = ci
            e += 1
        g.mask[i] = m
    g.first[n] = e
    for i in range(n):
        _heights(g, i)
    for i in range(1024):
        g.cpidx[i] = dawg.cpidx[i]
    for i in range(len(letters)):
        g.lchar[i] = dawg.lchar[i] if i < dawg.nl else ord(sep)
    g.root = root
    g.specs = {}
    return g


def convert_gaddag(groot, root, sep="+"):
    """The flat form of the GADDAG ``groot`` with the word graph ``root``'s letter
    indices and ``sep`` after them (not memoised: the caller keeps it)."""
    return _convert_gaddag(groot, compiled_graph(root), sep)


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


_GADDAGS = {}


def compiled_gaddag(groot, root, sep="+"):
    """The flat form of the GADDAG whose root node is ``groot`` (:mod:`bot.games.gaddag`), with
    the letter indices of the word graph ``root`` and ``sep`` as one more letter;
    converted on first use and memoised per pair of roots."""
    key = (id(groot), id(root))
    hit = _GADDAGS.get(key)
    if hit is not None and hit[0] is groot and hit[1] is root:
        return hit[2]
    g = _convert_gaddag(groot, compiled_graph(root), sep)
    if len(_GADDAGS) >= 4:
        _GADDAGS.pop(next(iter(_GADDAGS)))
    _GADDAGS[key] = (groot, root, g)
    return g


cdef class _GdAux:
    """A GADDAG's bounds for one game: per node the most the letters of a path to a
    word's end are worth (``vmax``, the separator worth 0) and the GADDAG's ``most``,
    also as two bit masks per node (``ge2``, ``ge3``: the letters a path holds at least
    twice, three times; with ``reach``, once) for :func:`_gd_cut`'s count of tiles."""
    cdef CGraph G
    cdef CSpec s
    cdef object dawg_spec
    cdef uint64_t *ge2
    cdef uint64_t *ge3

    def __dealloc__(self):
        free(self.ge2)
        free(self.ge3)

    def __init__(self, CGraph G, CSpec dawg_spec):
        cdef int i
        cdef CSpec s = CSpec()
        for i in range(64):
            s.val[i] = dawg_spec.val[i] if i < G.nl - 1 else 0
        s.vmax = <int *>malloc(G.n * sizeof(int))
        if s.vmax == NULL:
            raise MemoryError()
        for i in range(G.n):
            s.vmax[i] = -1
        for i in range(G.n):
            _vmax(G, s, i)
        _ensure_most(G)
        self.ge2 = <uint64_t *>malloc(G.n * sizeof(uint64_t))
        self.ge3 = <uint64_t *>malloc(G.n * sizeof(uint64_t))
        if self.ge2 == NULL or self.ge3 == NULL:
            raise MemoryError()
        _ge_masks(G, self.ge2, self.ge3)
        self.G = G
        self.s = s
        self.dawg_spec = dawg_spec


cdef int _GD_TB[MAXS + 1]   # _gd_line: per square of the line, the table tiles' values before it
cdef int _GD_EM[MAXS + 1]   # (and the empty squares before it)
cdef int _GD_LR[MAXS + 1]   # per square c: the first of the squares before c a word can cover up to c (tiles or squares the rack can lay a letter on)
cdef int _GD_RR[MAXS + 1]   # (and one past the last such square from c on)


cdef inline int _gd_cut(_Search S, CGraph G, int32_t node, int msum, int nt, int a0, int a1, int b0,
                        int b1) noexcept:
    """1 when no word from ``node`` reaches the threshold or lays ``min_tiles``: what it
    can still hold lies on squares ``a0 .. a1 - 1`` (left of it) and ``b0 .. b1 - 1``
    (right of it), so it is worth at most the most its path's letters are worth
    (``_GD_VMAX``) and at most the table tiles there plus the rack tiles a path from
    ``node`` can take (per letter up to the most times one path holds it), and it lays
    at most as many tiles as both the empty squares there and those rack tiles."""
    cdef uint64_t m
    cdef int n, li, k, u, vu, tb, em, need_n, need_v
    cdef uint8_t *most
    if S.thr <= 0 and not S.min_tiles:
        return 0
    if a0 < _GD_LR[a1]:
        a0 = _GD_LR[a1]  # (no word covers a square the rack cannot lay a letter on)
    if b1 > _GD_RR[b0]:
        b1 = _GD_RR[b0]
    if a1 < a0:
        a1 = a0
    if b1 < b0:
        b1 = b0
    em = _GD_EM[a1] - _GD_EM[a0] + _GD_EM[b1] - _GD_EM[b0]
    # (the tests cheapest first: each cuts what the one loop over the letters below would)
    need_n = S.min_tiles - nt
    if need_n > 0 and em < need_n:
        return 1  # (the tiles it lays: at most em)
    need_v = 0
    if S.thr > 0:
        if msum + _GD_VMAX[node] < S.thr:
            return 1
        tb = _GD_TB[a1] - _GD_TB[a0] + _GD_TB[b1] - _GD_TB[b0]
        need_v = S.thr - msum - tb
        if em < 63 and S.P[em] < need_v:
            return 1  # (at most em tiles more: the rack's best em values)
    # the rack tiles a path from node can take (n) and their values (vu): both only grow,
    # so the loop stops as soon as they reach what is needed
    n = S.nbl
    vu = 0
    if n >= need_n and vu >= need_v:
        return 0
    if need_v <= 0 and _GD_MASKS:
        # only the count: min(counts, most) summed over the letters is the letters the
        # rack holds at least k times and a path at least k times, summed over k = 1..3
        n += sl_popcount(G.reach[node] & S.rmask)
        if n >= need_n:
            return 0
        n += sl_popcount(_GD_GE2[node] & _GD_RM2)
        if n >= need_n:
            return 0
        n += sl_popcount(_GD_GE3[node] & _GD_RM3)
        return n < need_n
    m = G.reach[node] & S.rmask
    most = &_GD_MOST[<Py_ssize_t>node * _GD_NL]
    while m:
        li = sl_ctz(m)
        m &= m - 1
        k = most[li]
        u = S.counts[li] if S.counts[li] < k else k
        n += u
        vu += u * S.s.val[li]
        if n >= need_n and vu >= need_v:
            return 0
    return 1


cdef int _gd_record(_Search S, int start, int end, int msum, int wmul, int xs, int nt) except -1:
    """:meth:`_Search.record` for the word on squares ``start .. end - 1`` of the line."""
    cdef int fp = start
    if nt == 0:
        return 0
    while not S.is_new[fp]:
        fp += 1
    S.start = start
    S.first_placed = fp
    return S.record(end, msum, wmul, xs, nt)


cdef int _gd_lay(_Search S, CGraph G, int32_t node, int c, int q, int lo, int start, int msum, int wmul,
                 int xs, int nt, int right) except -1:
    """Every rack tile (a letter or a Jolly for it) square ``c`` can take after ``node``
    (its cross-check, the GADDAG's edges, walked in letter order up to the last letter
    a rack tile or a Jolly left gives), laid there, then the word read on: leftwards from
    ``c`` (:func:`_gd_left`) or, ``right``, rightwards from ``c + 1`` (:func:`_gd_right`);
    scores as :meth:`_Search.extend`."""
    global _GD_RM2, _GD_RM3, _GD_JM
    cdef int li, k, v, lmc = S.llm[c], wmc = S.lwm[c], xc = S.lxs[c]
    cdef int32_t e, ch
    cdef uint64_t m = G.mask[node], bit
    cdef uint64_t ok = S.lok[c] & (S.rmask | _GD_JM)  # (what the square takes and a tile can give)
    e = G.first[node]
    S.is_new[c] = 1
    while m & ok:
        li = sl_ctz(m)
        bit = (<uint64_t>1) << li
        m ^= bit
        ch = G.child[e]
        e += 1
        if not (ok & bit):
            continue
        S.line[c] = li
        S.lch[c] = G.lchar[li]
        if S.counts[li]:
            S.counts[li] -= 1
            if S.counts[li] == 0:
                S.rmask ^= bit
            elif S.counts[li] == 1:
                _GD_RM2 ^= bit
            elif S.counts[li] == 2:
                _GD_RM3 ^= bit
            S.left -= 1
            v = S.s.val[li] * lmc
            if right:
                _gd_right(S, G, ch, c + 1, start, msum + v, wmul * wmc, xs if xc < 0 else xs + (xc + v) * wmc, nt + 1)
            else:
                _gd_left(S, G, ch, c, q, lo, msum + v, wmul * wmc, xs if xc < 0 else xs + (xc + v) * wmc, nt + 1)
            S.left += 1
            S.counts[li] += 1
            S.rmask |= bit
            if S.counts[li] == 2:
                _GD_RM2 |= bit
            elif S.counts[li] == 3:
                _GD_RM3 |= bit
        if _GD_JM & bit:
            k = S.s.kind_of[li]
            S.bl[k] -= 1
            if S.bl[k] == 0:
                _GD_JM &= ~_GD_KM[k]
            S.nbl -= 1
            S.left -= 1
            S.blank_at[c] = 1
            if right:
                _gd_right(S, G, ch, c + 1, start, msum, wmul * wmc, xs if xc < 0 else xs + xc * wmc, nt + 1)
            else:
                _gd_left(S, G, ch, c, q, lo, msum, wmul * wmc, xs if xc < 0 else xs + xc * wmc, nt + 1)
            S.blank_at[c] = 0
            S.left += 1
            S.nbl += 1
            if S.bl[k] == 0:
                _GD_JM |= _GD_KM[k]
            S.bl[k] += 1
    S.line[c] = EMPTY
    S.lch[c] = u'.'
    S.is_new[c] = 0
    return 0


cdef int _gd_right(_Search S, CGraph G, int32_t node, int col, int start, int msum, int wmul, int xs,
                   int nt) except -1:
    """The word holds squares ``start .. col - 1``, ``node`` is past the separator: read
    the table's tiles from ``col`` on, record the word where it may end, lay rack tiles
    on the next empty square (as :meth:`_Search.extend`)."""
    global _STEPS, _GD_STEPS
    _STEPS += 1
    _GD_STEPS += 1
    cdef int size = S.size, h
    while col < size and S.line[col] != EMPTY:
        node = G.get(node, S.line[col])
        if node < 0:
            return 0
        msum += S.lbv[col]
        col += 1
    if G.term[node]:
        _gd_record(S, start, col, msum, wmul, xs, nt)
    if col >= size or S.left == 0 or G.mask[node] == 0:
        return 0
    if S.min_tiles and nt + S.left < S.min_tiles:
        return 0
    h = col + G.height[node]
    if _gd_cut(S, G, node, msum, nt, col, col, col, h if h < size else size):
        return 0
    return _gd_lay(S, G, node, col, 0, 0, start, msum, wmul, xs, nt, 1)


cdef int _gd_left(_Search S, CGraph G, int32_t node, int col, int q, int lo, int msum, int wmul, int xs,
                  int nt) except -1:
    """The word holds squares ``col .. q`` (read from ``q`` leftwards; ``node`` after
    them): where it may start on ``col`` (no tile before it), record it when it ends on
    ``q`` (no separator: the GADDAG's word ends there) and read on rightwards past the
    separator; then grow it one square left, but not before square ``lo`` (a word
    holding an earlier square to reach is that square's)."""
    global _STEPS, _GD_STEPS
    _STEPS += 1
    _GD_STEPS += 1
    cdef int size = S.size, sep = G.nl - 1  # (the separator: the GADDAG's last letter)
    cdef int32_t ch
    cdef int h = G.height[node]
    if _gd_cut(S, G, node, msum, nt, lo if col - h < lo else col - h, col, q + 1,
               q + 1 + h if q + 1 + h < size else size):
        return 0
    if col == 0 or S.line[col - 1] == EMPTY:
        if G.term[node] and (q + 1 >= size or S.line[q + 1] == EMPTY):
            _gd_record(S, col, q + 1, msum, wmul, xs, nt)
        if q + 1 < size and (S.left or S.line[q + 1] != EMPTY):
            ch = G.get(node, sep)
            if ch >= 0:
                _gd_right(S, G, ch, q + 1, col, msum, wmul, xs, nt)
    if col - 1 < lo:
        return 0
    if S.line[col - 1] != EMPTY:
        ch = G.get(node, S.line[col - 1])
        if ch < 0:
            return 0
        return _gd_left(S, G, ch, col - 1, q, lo, msum + S.lbv[col - 1], wmul, xs, nt)
    if S.left == 0:
        return 0
    if S.min_tiles and nt + S.left < S.min_tiles:
        return 0
    return _gd_lay(S, G, node, col - 1, q, lo, 0, msum, wmul, xs, nt, 0)


cdef int _gd_prep(_Search S, int p, int ln) noexcept:
    """Set line ``ln`` of pass ``p`` and its prefix sums (``_GD_TB``, ``_GD_EM``) and
    reach limits (``_GD_LR``, ``_GD_RR``); 0 when no square to reach can hold a move:
    around each, the stretch of squares that are tiles or take a rack letter (after the
    square to reach before it) has no empty square, fewer than ``min_tiles``, or its table
    tiles and the rack's best tiles on its empty squares stay below the threshold."""
    cdef int size = S.size, q, lo = 0, a, b, em, ok = 0
    S.set_line(p, ln)
    _GD_TB[0] = _GD_EM[0] = _GD_LR[0] = 0
    for q in range(size):
        _GD_TB[q + 1] = _GD_TB[q] + (S.lbv[q] if S.line[q] != EMPTY else 0)
        _GD_EM[q + 1] = _GD_EM[q] + (1 if S.line[q] == EMPTY else 0)
        _GD_LR[q + 1] = _GD_LR[q] if S.line[q] != EMPTY or (S.lok[q] & S.pmask) else q + 1
    _GD_RR[size] = size
    for q in range(size - 1, -1, -1):
        _GD_RR[q] = _GD_RR[q + 1] if S.line[q] != EMPTY or (S.lok[q] & S.pmask) else q
    q = S.lnxt[0]
    while q < size and not ok:
        if S.line[q] != EMPTY or (S.lok[q] & S.pmask):
            a = _GD_LR[q] if _GD_LR[q] > lo else lo
            b = _GD_RR[q]
            em = _GD_EM[b] - _GD_EM[a]
            if em > S.left:
                em = S.left
            ok = em >= 1 and em >= S.min_tiles and (S.thr <= 0 or _GD_TB[b] - _GD_TB[a] + S.P[em] >= S.thr)
        lo = q + 1
        q = S.lnxt[q + 1]
    return ok


cdef int _gd_line(_Search S, _GdAux aux, int p, int ln, int prepared) except -1:
    """Every move of line ``ln`` of pass ``p`` holding a square it must reach (``nxt``),
    each once: from the first such square it holds (``q``), read leftwards to its start
    (after the square to reach before ``q``), then rightwards.  ``prepared``:
    :func:`_gd_prep` ran for this line already."""
    global _GD_VMAX, _GD_MOST, _GD_NL, _GD_GE2, _GD_GE3, _GD_MASKS
    cdef CGraph G = aux.G
    cdef int size = S.size, lo = 0, q
    _GD_VMAX = aux.s.vmax
    _GD_MOST = G.most
    _GD_NL = G.nl
    _GD_GE2 = aux.ge2
    _GD_GE3 = aux.ge3
    if not prepared and not _gd_prep(S, p, ln):
        return 0
    _gd_rack_masks(S)  # (on for this line only; _gd_listing sets them per line too)
    try:
        q = S.lnxt[0]
        while q < size:
            S.anchor = q
            if S.line[q] != EMPTY:
                node = G.get(0, S.line[q])
                if node >= 0:
                    _gd_left(S, G, node, q, q, lo, S.lbv[q], 1, 0, 0)
            elif S.left:
                _gd_lay(S, G, 0, q, q, lo, 0, 0, 1, 0, 0, 0)
            lo = q + 1
            q = S.lnxt[q + 1]
    finally:
        _GD_MASKS = 0
    return 0


_GD_AUX = {}


cdef _GdAux _gd_aux(CGraph G, CSpec s):
    """The :class:`_GdAux` of the GADDAG ``G`` with the letter values of ``s`` (built on
    first use, memoised per pair)."""
    key = (id(G), id(s))
    hit = _GD_AUX.get(key)
    if hit is not None and (<_GdAux>hit).G is G and (<_GdAux>hit).dawg_spec is s:
        return hit
    aux = _GdAux(G, s)
    if len(_GD_AUX) >= 4:
        _GD_AUX.pop(next(iter(_GD_AUX)))
    _GD_AUX[key] = aux
    return aux
