"""The Markdown writer: the main text's tree (``structure.build``) as CommonMark, with GitHub's pipe
tables and strikethrough.

Headings become ``#``..``######``, list items ``-`` or numbered ``1.``, ``2.`` (nested lists indented
under their item), block quotes ``>``, preformatted text a fenced code block, tables pipe tables (the
first row is the header row), definition lists a term line and ``: definition``. Emphasis is ``*``,
strong ``**``, struck text ``~~``, code in backticks, links ``[text](url)``; underline, sub- and
superscript keep their text only. Characters Markdown would read as markup are escaped with ``\\``.
"""

from __future__ import annotations

import re

from lxml import etree

from .structure import HEADINGS, INLINE, text_of

#: markers of inline formatting
_MARKS = {"em": "*", "i": "*", "strong": "**", "b": "**", "s": "~~"}
#: a hard line break inside a paragraph; headings and table cells read on with a space instead
_HARD_BREAK = "\\\n"
_ESCAPED = re.compile(r"([\\`*_\[\]<])")
_ENTITY_LIKE = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
#: line starts Markdown reads as a block: a quote, a heading, a bullet, a numbered item, a rule or
#: the underline of a heading
_BLOCK_START = re.compile(r"(?:[>]|#{1,6}(?:\s|$)|[-+](?:\s|$)|(?:-[ \t]*){3,}$|=+[ \t]*$)")
_NUMBERED = re.compile(r"(\d{1,9})([.)])(?=\s|$)")
_BACKTICKS = re.compile(r"`+")
_URL_UNSAFE = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "|": "%7C"})


def write_markdown(root: etree._Element) -> str:
    """The Markdown text of an ``<article>`` tree (no trailing newline)."""
    return _join(_blocks(root), tight=False)


# ---------------------------------------------------------------------------------------- blocks
def _blocks(el: etree._Element) -> list[tuple[str, str]]:
    """The blocks inside ``el`` as ``(tag, markdown)``; its loose inline content forms paragraphs."""
    blocks: list[tuple[str, str]] = []
    run: list[str] = [_escape(el.text)]

    def end_paragraph() -> None:
        paragraph = _protect_lines(_trimmed("".join(run)))
        if paragraph:
            blocks.append(("p", paragraph))
        run.clear()

    for child in el:
        if child.tag in INLINE or child.tag == "br":
            run.append(_inline_element(child, _HARD_BREAK, frozenset()))
        else:
            end_paragraph()
            written = _block(child)
            if written:
                blocks.append((child.tag, written))
        run.append(_escape(child.tail))
    end_paragraph()
    return blocks


def _join(blocks: list[tuple[str, str]], *, tight: bool) -> str:
    """Blocks one after the other, a blank line apart (in a list item a nested list follows its
    text directly)."""
    parts: list[str] = []
    for tag, text in blocks:
        if parts:
            parts.append("\n" if tight and tag in ("ul", "ol") else "\n\n")
        parts.append(text)
    return "".join(parts)


def _block(el: etree._Element) -> str:
    tag = el.tag
    if tag == "p":
        return _protect_lines(_trimmed(_inline(el, _HARD_BREAK)))
    if tag in HEADINGS:
        text = _single_line(_inline(el, " "))
        text = re.sub(r"(\s)(#+)$", r"\1\\\2", text)  # a closing sequence would be dropped
        return f"{'#' * int(tag[1])} {text}" if text else ""
    if tag in ("ul", "ol"):
        return _list(el)
    if tag == "dl":
        return _definitions(el)
    if tag == "blockquote":
        quoted = _join(_blocks(el), tight=False)
        return "\n".join(f"> {line}" if line else ">" for line in quoted.split("\n")) if quoted else ""
    if tag == "pre":
        return _fenced(el.text or "")
    if tag == "table":
        return _table(el)
    if tag == "figcaption":  # a picture's caption, written inline: an emphasised paragraph
        caption = _trimmed(_inline(el, _HARD_BREAK))
        return _protect_lines(f"*{caption}*") if caption else ""
    return _join(_blocks(el), tight=False)


def _list(el: etree._Element) -> str:
    items = []
    for number, item in enumerate((child for child in el if child.tag == "li"), 1):
        marker = f"{number}. " if el.tag == "ol" else "- "
        items.append(_indented(marker, _join(_blocks(item), tight=True)))
    return "\n".join(items)


def _definitions(el: etree._Element) -> str:
    lines = []
    for child in el:
        if child.tag == "dt":
            term = _protect_lines(_single_line(_inline(child, " ")))
            if term:
                lines.append(term)
        elif child.tag == "dd":
            definition = _join(_blocks(child), tight=True)
            if definition:
                lines.append(_indented(": ", definition))
    return "\n".join(lines)


def _indented(marker: str, body: str) -> str:
    """``body`` after ``marker``, its further lines indented to line up under the first."""
    first, *rest = body.split("\n")
    pad = " " * len(marker)
    return "\n".join([(marker + first).rstrip(), *(pad + line if line else "" for line in rest)])


def _fenced(code: str) -> str:
    runs = [len(run) for run in _BACKTICKS.findall(code)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}\n{code}\n{fence}"


def _table(el: etree._Element) -> str:
    caption = ""
    rows: list[etree._Element] = []
    for child in el:
        if child.tag == "caption":
            caption = _protect_lines(_single_line(_inline(child, " ")))
        elif child.tag == "tr":
            rows.append(child)
        elif child.tag in ("thead", "tbody", "tfoot"):
            rows.extend(row for row in child if row.tag == "tr")
    cells_of = [[cell for cell in row if cell.tag in ("td", "th")] for row in rows]
    if _lays_out(cells_of):
        blocks = [block for cells in cells_of for cell in cells for block in _blocks(cell)]
        return _join([("p", caption), *blocks] if caption else blocks, tight=False)
    grid = []
    for cells in filter(None, cells_of):
        grid.append([])
        for cell in cells:
            grid[-1].append(_cell(cell))
            grid[-1].extend([""] * (int(cell.get("colspan", "1")) - 1))
    if not grid:
        return caption
    width = max(map(len, grid))
    lines = [_row(grid[0], width), "|" + " --- |" * width, *(_row(cells, width) for cells in grid[1:])]
    return "\n\n".join(filter(None, (caption, "\n".join(lines))))


def _lays_out(rows: list[list[etree._Element]]) -> bool:
    """Whether a table only lays out its content: one column, or cells holding code blocks or
    tables (a pipe table could not show them); it is then written as that content."""
    return all(len(cells) <= 1 for cells in rows) or any(
        next(cell.iter("pre", "table"), None) is not None for cells in rows for cell in cells
    )


def _cell(cell: etree._Element) -> str:
    """A cell's content on one line (its paragraphs or lists, if any, one after the other)."""
    return " ".join(filter(None, (_single_line(text) for _, text in _blocks(cell)))).replace("|", "\\|")


def _row(cells: list[str], width: int) -> str:
    cells = cells + [""] * (width - len(cells))
    return "|" + "".join(f" {cell} |" if cell else "  |" for cell in cells)


def _edges(text: str) -> tuple[str, str, str]:
    """``text`` split into the spaces and line breaks at its start, the rest, and those at its end
    (markers go around the rest: ``** bold **`` is no emphasis in Markdown)."""
    start, end, size = 0, len(text), len(_HARD_BREAK)
    while start < end:
        if text[start].isspace():
            start += 1
        elif text.startswith(_HARD_BREAK, start):
            start += size
        else:
            break
    while end > start:
        if text.endswith(_HARD_BREAK, start, end):
            end -= size
        elif text[end - 1].isspace():
            end -= 1
        else:
            break
    return text[:start], text[start:end], text[end:]


def _trimmed(text: str) -> str:
    """``text`` without spaces and line breaks at its ends."""
    return _edges(text)[1]


def _single_line(text: str) -> str:
    return " ".join(text.replace(_HARD_BREAK, " ").split())


def _protect_lines(text: str) -> str:
    """Escape line starts Markdown would read as the start of a block."""
    return "\n".join(map(_protect_line, text.split("\n"))) if text else text


def _protect_line(line: str) -> str:
    if _BLOCK_START.match(line):
        return "\\" + line
    numbered = _NUMBERED.match(line)
    if numbered:
        return numbered[1] + "\\" + line[len(numbered[1]) :]
    return line


# ---------------------------------------------------------------------------------------- inline
def _inline(el: etree._Element, newline: str, styles: frozenset[str] = frozenset()) -> str:
    """The inline content of ``el``; ``styles`` are the markers already open around it."""
    parts = [_escape(el.text)]
    for child in el:
        parts.append(_inline_element(child, newline, styles))
        parts.append(_escape(child.tail))
    return "".join(parts)


def _inline_element(el: etree._Element, newline: str, styles: frozenset[str]) -> str:
    tag = el.tag
    if tag == "br":
        return newline
    if tag == "code":
        return _code_span(text_of(el))
    mark = _MARKS.get(tag, "")
    inner = _inline(el, newline, styles | {mark})
    if tag == "a":
        href = el.get("href")
        if not href or not inner.strip():
            return inner
        lead, core, trail = _edges(inner)
        return f"{lead}[{core}]({href.translate(_URL_UNSAFE)}){trail}"
    if not mark or mark in styles:
        return inner
    lead, core, trail = _edges(inner)
    return f"{lead}{mark}{core}{mark}{trail}" if core else inner


def _code_span(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _escape(text: str | None) -> str:
    """Text with the characters Markdown reads as inline markup escaped."""
    if not text:
        return ""
    text = _ESCAPED.sub(r"\\\1", text)
    return _ENTITY_LIKE.sub(r"\\&", text) if "&" in text else text
