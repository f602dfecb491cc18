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
from cpython.bytes cimport PyBytes_FromStringAndSize

cdef extern from *:
    """
    #if defined(__POPCNT__)
    static inline int sl_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    #else
    /* without the popcnt instruction the builtin is a call into libgcc; this is the
       same count inline (issue 35: about a tenth of phase (b)'s instructions) */
    static inline int sl_popcount(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    #endif
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
cdef long long _LAY_STEPS = 0   # can_lay's graph walk steps, for benches


def steps():
    """How many search steps (extension and left-part calls) the grid search has taken
    in this process: a load-independent measure of its work, for benches."""
    return _STEPS


def lay_steps():
    """How many nodes ``can_lay``'s graph walks (its own and the search's) have visited in
    this process: a load-independent measure of their work, for benches."""
    return _LAY_STEPS


__all__ = ["steps", "lay_steps", "search", "can_lay", "compiled_graph", "TouchBound", "MultisetIndex", "PlanListing", "spellings", "sort_spines", "rondo_moves"]

# The core's parts, in this order (Cython's include: one module, one compilation unit).
include "gridcore/graph.pxi"
include "gridcore/search.pxi"
include "gridcore/canlay.pxi"
include "gridcore/entry.pxi"
include "gridcore/touch_parts.pxi"
include "gridcore/touch_left.pxi"
include "gridcore/touch_counts.pxi"
include "gridcore/touch_gaddag.pxi"
include "gridcore/list_gaddag.pxi"
include "gridcore/gaddag_build.pxi"
include "gridcore/touch.pxi"
include "gridcore/presto_spell.pxi"
include "gridcore/rondo.pxi"
include "gridcore/plan_scans.pxi"
include "gridcore/presto_spines.pxi"
include "gridcore/presto_tree.pxi"
include "gridcore/plan_records.pxi"
include "gridcore/plan_pass.pxi"
include "gridcore/plan.pxi"
include "gridcore/plan_loop.pxi"
