# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Presto: the words a set of tiles spells (_Spell, spellings, sort_spines).

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
