"""Feature tables: the values of some rows (paragraphs or pages), one column per feature name.

Features are built by name (``Table.of``: a mapping name -> column) and read by name: a model asks
for its columns in its own order (``Table.select``), so a row can never be scored with one feature's
value in another's place. A table whose names differ from the ones declared, or a model asking for
a feature the table lacks, is a ``ModelError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


class ModelError(ValueError):
    """A model and the features the code computes disagree (missing or unknown names, bad shape)."""


def differences(found: Sequence[str], expected: Sequence[str], part: str) -> str:
    """The message of a ``ModelError``: which names are missing and which are unknown."""
    missing = [name for name in expected if name not in set(found)]
    unknown = [name for name in found if name not in set(expected)]
    if missing or unknown:
        return f"{part}: the features differ (missing {missing}, unknown {unknown})"
    return f"{part}: the features are in another order ({list(found)} instead of {list(expected)})"


@dataclass(frozen=True, slots=True)
class Table:
    """Rows of feature values: ``values[r, j]`` is feature ``names[j]`` of row ``r`` (float64, C order)."""

    names: tuple[str, ...]
    values: np.ndarray

    @classmethod
    def of(
        cls,
        columns: Mapping[str, Sequence[float] | np.ndarray],
        names: tuple[str, ...],
        rows: int,
        part: str = "features",
    ) -> Table:
        """The ``columns`` (name -> one value per row) stacked in the order of ``names``, which must
        be exactly the names given (``ModelError`` otherwise)."""
        if len(columns) != len(names) or not all(name in columns for name in names):
            raise ModelError(differences(tuple(columns), names, part))
        values = np.empty((rows, len(names)))
        for j, name in enumerate(names):
            values[:, j] = columns[name]
        return cls(names, values)

    @classmethod
    def of_rows(cls, rows: Sequence[Mapping[str, float]], names: tuple[str, ...], part: str = "features") -> Table:
        """A table of ``rows`` (pages), each a mapping name -> value with exactly ``names``."""
        for row in rows:
            if len(row) != len(names) or not all(name in row for name in names):
                raise ModelError(differences(tuple(row), names, part))
        values = np.array([[row[name] for name in names] for row in rows], float)
        return cls(names, values.reshape(len(rows), len(names)))

    def __len__(self) -> int:
        return len(self.values)

    def column(self, name: str) -> np.ndarray:
        """The values of feature ``name``, one per row."""
        return self.values[:, self.names.index(name)]

    def select(self, names: tuple[str, ...], part: str = "model") -> np.ndarray:
        """The values of the features ``names``, in that order (the table itself when its order is
        that one; ``ModelError`` when a name is missing)."""
        if names == self.names:
            return self.values
        index = {name: j for j, name in enumerate(self.names)}
        try:  # C order as a table built in that order is: the products then round alike
            return np.ascontiguousarray(self.values[:, [index[name] for name in names]])
        except KeyError:
            raise ModelError(differences(self.names, names, part)) from None

    def join(self, other: Table) -> Table:
        """The columns of both tables side by side (the same rows)."""
        return Table((*self.names, *other.names), np.hstack([self.values, other.values]))
