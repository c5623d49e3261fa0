"""The README's documentation table: every page of docs/ is in it, and the command line's row names
every command the ``scrapy-bodytext`` parser has, so a newcomer finds each from the README."""

from __future__ import annotations

import re
from pathlib import Path

from scrapy_bodytext.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text("utf-8")
TABLE = README[README.index("## Documentation") :]


def test_the_documentation_table_lists_every_page_of_docs():
    listed = set(re.findall(r"^\| \[(docs/[\w-]+\.md)\]", TABLE, re.M))
    assert listed == {f"docs/{page.name}" for page in (REPO / "docs").glob("*.md")}


def test_the_command_line_row_names_every_command():
    row = next(line for line in TABLE.splitlines() if line.startswith("| [docs/command-line.md]"))
    commands = build_parser()._subparsers._group_actions[0].choices  # noqa: SLF001 - argparse keeps them there
    assert all(f"`{name}`" in row for name in commands), row
