# Part of bot/games/_gridcore.pyx (included there: one compilation unit). Typ-Dom's plan listing (search() into a PlanListing) over a GADDAG: every line read from its table tiles outwards (issue 35, branch i35-gdlist).
#
# When ``search`` gets ``gaddag`` (a compiled GADDAG of the word graph's words), its sink
# is a PlanListing, the game requires a table tile in the word (``require_old``), the
# table is not empty and there is no ``touch``, the lines are not searched by anchors
# and left parts but over the GADDAG, with phase (b)'s reading (touch_gaddag.pxi,
# ``_gd_prep``, ``_gd_left``, ``_gd_right``, ``_gd_lay``): the squares a word must reach
# (``nxt``) are the first tiles of the line's runs of table tiles.
#
# Why every record of the anchors' search comes out, and each exactly once. The anchors'
# search records (``_Search.record``) exactly the words W on squares s .. e-1 of a line
# with e - s >= 2, no tile just before s or at e, every empty square of W filled by a
# rack tile (a letter, or a Jolly standing for one) its cross-check allows, the letters a
# word of the graph, at least one new tile and (``require_old``) at least one table tile
# of the line (then the filters of ``record``: ``min_tiles``, the threshold, the single
# tile once, the PlanListing's pass).  The squares to reach are the first tiles of the
# line's runs of table tiles (a run: tiles on consecutive squares, an empty square or
# the edge on both sides).  A word holding a tile of a run holds the whole run (W has no
# tile just before or after it), so W's first table tile q is the first tile of a run:
# square q-1 is empty (then in W, filled by the move) or before s.  ``_gd_listing``
# visits the runs in order, q among them, with ``lo`` = two past the last tile of the
# run before q (0 if none): W holds no tile of that run (they lie before q, W's first
# table tile), and square s-1 is empty or the edge, so s >= lo.  From q it reads
# leftwards: the table tile q, then squares q-1 .. s, all empty, each taking a rack tile
# over the GADDAG's edges (``_gd_lay``, the same cross-check and rack test as
# ``extend``); at s (square s-1 empty or the edge) it records W if W ends at q, else
# follows the separator and reads squares q+1 .. e-1 rightwards (``_gd_right``: table
# tiles read, empty squares laid) and records where the square after is empty.  The
# GADDAG holds rev(W[: i]) + '+' + W[i :] for every split and rev(W) alone, so this
# path exists.  Once: a path read from q never reads left of ``lo`` (``_gd_left``), so
# the words it records hold no tile before q: their first table tile is q, and W is
# read only from its own q.
# For one q, one start s and one choice per square (the letter or a Jolly for it), the
# GADDAG's path is unique (a deterministic automaton: the one string rev(W[: q - s + 1])
# + '+' + W[q - s + 1 :], or rev(W) when W ends at q).  The scores are the anchors'
# (``msum``, ``wmul``, ``xs`` summed square by square the same way), and ``record`` is
# the same function on the same squares, so the records are equal field by field; only
# their order differs.  A single new tile is such a W in each line where it forms a word
# of two or more squares (it holds a table tile there), and ``record``'s
# ``dedupe_single`` treats it as before.  The empty table (the first move covers the
# centre, no table tile) stays with the anchors.
#
# Cuts: ``_gd_cut`` by ``min_tiles`` and the threshold (in the plan's second pass the
# least need, a valid bound for every record); the pass filters of ``_plan_push`` do the
# rest.  Tested equal to the anchors' listing record by record:
# tests/test_typdom_gdlist.py.


cdef int _gd_listing(_Search S, _GdAux aux) except -1:
    """Every move of both passes over the GADDAG of ``aux``, each line read from the
    first tile of each run of its table tiles (``S`` set up by :func:`_run_search`:
    table, rack, cross-checks, sink)."""
    global _GD_LISTINGS, _GD_VMAX, _GD_MOST, _GD_NL, _GD_GE2, _GD_GE3, _GD_MASKS
    cdef CGraph G = aux.G
    cdef int p, ln, q, e, lo, size = S.size, any_run
    cdef int32_t node
    _GD_LISTINGS += 1
    _GD_VMAX = aux.s.vmax  # (_gd_cut's bounds, as _gd_line sets them)
    _GD_MOST = G.most
    _GD_NL = G.nl
    _GD_GE2 = aux.ge2  # (_gd_cut's count of repeated letters by bit masks, as _gd_line)
    _GD_GE3 = aux.ge3
    S.nxt_on = 1
    try:
        for p in range(2):
            for ln in range(size):
                # the squares to reach: the first tile of each run of table tiles
                S.nxt[p][ln][size] = size
                any_run = 0
                for q in range(size - 1, -1, -1):
                    if S.grid[p][ln][q] != EMPTY and (q == 0 or S.grid[p][ln][q - 1] == EMPTY):
                        S.nxt[p][ln][q] = q
                        any_run = 1
                    else:
                        S.nxt[p][ln][q] = S.nxt[p][ln][q + 1]
                if not any_run or not _gd_prep(S, p, ln):
                    continue
                _gd_rack_masks(S)  # (the whole rack: every line starts with it)
                # (as _gd_line, with lo past the square after the run before: a word
                # starts after an empty square, so none from q holds that square)
                lo = 0
                q = S.lnxt[0]
                while q < size:
                    S.anchor = q
                    node = G.get(0, S.line[q])
                    if node >= 0:
                        _gd_left(S, G, node, q, q, lo, S.lbv[q], 1, 0, 0)
                    e = q
                    while e + 1 < size and S.line[e + 1] != EMPTY:
                        e += 1
                    lo = e + 2
                    q = S.lnxt[e + 1] if e + 1 < size else size
    finally:
        S.nxt_on = 0
        _GD_MASKS = 0
    return 0


cdef long long _GD_LISTINGS = 0   # listings run over a GADDAG (_gd_listing), for tests and benches


def gaddag_listings():
    """How many :func:`search` calls in this process listed over a GADDAG (tests and
    benches: whether the ``gaddag`` argument was used)."""
    return _GD_LISTINGS


cdef CGraph _gd_checked(G, CGraph g):
    """``G`` as a compiled GADDAG with the letter indices of the word graph ``g``;
    ValueError otherwise."""
    if not isinstance(G, CGraph) or (<CGraph>G).letters[:-1] != g.letters:
        raise ValueError("the GADDAG's letters are not the word graph's")
    return <CGraph>G
