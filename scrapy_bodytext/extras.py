"""Optional extras: the one error a feature gives when the package its extra installs is missing."""

from __future__ import annotations


class MissingExtra(ImportError):
    """An integration was used without the optional package it needs; the message names the extra."""


def missing_extra(feature: str, extra: str, cause: ImportError) -> MissingExtra:
    """The error for ``feature`` used without its extra: what is missing and the line that installs it."""
    return MissingExtra(
        f"{feature} needs the optional package {(cause.name or extra).split('.')[0]!r}, which is not installed; "
        f'install the extra: pip install "scrapy-bodytext[{extra}]"'
    )
