"""Language tags as declared (``en_US``, ``EN-us``, ``zh-hans-CN``) in BCP 47 form (``en-US``,
``zh-Hans-CN``)."""

from __future__ import annotations

import re

_TAG_RE = re.compile(r"^([a-z]{2,3})((?:-[a-z0-9]{1,8})*)$")
#: obsolete or common wrong primary codes seen in ``lang`` attributes (country codes written for
#: language codes among them): the package's one alias table
ALIASES = {
    "iw": "he",
    "in": "id",
    "ji": "yi",
    "jp": "ja",
    "cn": "zh",
    "kr": "ko",
    "gr": "el",
    "cz": "cs",
    "dk": "da",
    "se": "sv",
    "ua": "uk",
    "vn": "vi",
}


def bcp47(value: str | None) -> str | None:
    """``value`` as a BCP 47 tag (language lower case, script title case, region upper case), or
    ``None`` when it is no language tag (``x-default``, ``und``, ``*``, free text)."""
    if not value:
        return None
    text = value.strip().split(",")[0].split(";")[0].strip().replace("_", "-").lower()
    found = _TAG_RE.match(text)
    if not found or found.group(1) in ("und", "mul", "zxx", "xx"):
        return None
    primary = ALIASES.get(found.group(1), found.group(1))
    parts = [primary]
    for sub in found.group(2).split("-")[1:]:
        if len(sub) == 4 and sub.isalpha():
            parts.append(sub.title())
        elif (len(sub) == 2 and sub.isalpha()) or (len(sub) == 3 and sub.isdigit()):
            parts.append(sub.upper())
        else:
            parts.append(sub)
    return "-".join(parts)
