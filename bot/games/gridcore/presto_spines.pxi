# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Presto: the spines in C arrays (PrestoSpines).

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


cdef int _grow_to(void **buf, Py_ssize_t *cap, Py_ssize_t need, size_t item, Py_ssize_t first) noexcept:
    """Grow the array ``buf[0]`` of ``cap[0]`` items of ``item`` bytes to hold ``need``
    (doubling from ``first``); -1 when memory is short (``buf`` and ``cap`` unchanged)."""
    cdef Py_ssize_t c = cap[0]
    cdef void *p
    if need <= c:
        return 0
    c = c * 2 if c else first
    while c < need:
        c *= 2
    p = realloc(buf[0], c * item)
    if p == NULL:
        return -1
    buf[0] = p
    cap[0] = c
    return 0


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
        if _grow_to(<void **>&self.keys, &self.cap, need_words, sizeof(SpineKey), 1024) < 0:
            return -1
        return _grow_to(<void **>&self.buf, &self.capbuf, need_letters, sizeof(Py_UCS4), 8192)

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
