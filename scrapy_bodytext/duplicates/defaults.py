"""The names and defaults of the duplicate check, apart from the code that needs datasketch (whose
import is slow), so that settings can be read without loading it."""

from __future__ import annotations

#: estimated Jaccard similarity of word shingles at which an article is a copy of a stored one (chosen
#: on ``benchmarks/duplicates_benchmark.py``'s figures, see docs/duplicates.md)
DEFAULT_SIMILARITY = 0.5
#: articles the in-memory index remembers before it forgets the oldest (about 0.7 GB, see docs/duplicates.md)
DEFAULT_CAPACITY = 100_000
#: the fields a flagged copy gets: item fields, JSON keys and document metadata alike
FIELDS = ("duplicate_of", "duplicate_similarity")
#: what happens to a copy: kept with ``FIELDS``, left out, or nothing looked up
MODES = ("flag", "drop", "off")
