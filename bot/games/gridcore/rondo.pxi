# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Rondo / RONDO: every valid move of a position.

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
