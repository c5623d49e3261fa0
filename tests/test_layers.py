"""The package's folders are layers: every import runs down them, never back up, and the extraction
core imports no Scrapy. Read from the source with ``ast``, so lazy imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "scrapy_bodytext"

#: lowest first; a module may import from its own layer and the layers below it
LAYERS: tuple[tuple[str, ...], ...] = (
    ("metadata",),  # values a page states about itself, read from an lxml tree
    ("page",),  # bytes to the shared Document: sniffing, decoding, parsing, columns, tokens, language
    ("output",),  # text, Markdown and HTML writers
    ("extractors",),  # the methods
    (
        "api",
        "config",
        "result",
        "extras",
        "_core",
    ),  # the front door: extract(), its configuration, its result, extras, which build of the core runs
    ("stores",),  # shared stores (Redis): URLs checked, calls bounded by timeouts, outages guarded
    ("duplicates",),  # content fingerprints and the crawl-wide index of stored articles
    ("sites",),  # site memory: a site's confident verdicts per URL shape and template, its furniture lines
    ("workers", "archives"),  # where extraction runs; web archives read record by record
    ("plugin",),  # the Scrapy components
    ("evaluation",),  # scoring methods on labelled pages
    ("training",),  # fitting the default method
    ("cli",),  # the command line
    ("integrations",),  # other engines
    ("__init__", "__main__"),  # the package's public names
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
#: names of the package itself that any layer may read
SHARED = frozenset({"__version__"})
#: the layers that run inside extract(): no Scrapy, no Twisted
CORE = ("metadata", "page", "output", "extractors", "api", "config", "result", "_core")
#: layers that import no Scrapy either, though they run outside extract()
ENGINE_FREE = (*CORE, "stores", "duplicates", "sites")


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def layer_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of every import in ``path``, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    base = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    base = base[:-1] if base[-1] == "__init__" else base[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module != "scrapy_bodytext":
                found.append((node.lineno, module))
            found.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names if alias.name not in SHARED)
    return found


def target_layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "scrapy_bodytext":
        return None
    if len(parts) == 1:
        return "__init__"
    return parts[1] if parts[1] in RANK else None


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_down_the_layers(path: Path) -> None:
    own = layer_of(path)
    assert own in RANK, f"{path}: not in a known layer; add its folder to LAYERS"
    upward = []
    for line, module in imports(path):
        layer = target_layer(module)
        if layer is not None and RANK[layer] > RANK[own]:
            upward.append(f"line {line}: {module} ({layer} is above {own})")
    assert not upward, f"{path.relative_to(PACKAGE)} imports from a layer above it: " + "; ".join(upward)


@pytest.mark.parametrize(
    "path", [p for p in modules() if layer_of(p) in ENGINE_FREE], ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_the_core_imports_no_scrapy(path: Path) -> None:
    engines = [m for _, m in imports(path) if m.split(".")[0] in {"scrapy", "twisted", "itemadapter", "parsel"}]
    assert not engines, f"{path.relative_to(PACKAGE)} imports {engines}"


def test_at_most_ten_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 10, top


def test_every_folder_is_a_layer() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(RANK), folders - set(RANK)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, known: frozenset[str]) -> set[str]:
    """The package's modules ``path`` imports (lazy ones too): ``from X import a`` names ``X.a`` when
    that is a module, else ``X``."""
    names = [name for _, name in imports(path)]
    found = {name for name in names if name in known}
    # ``X`` itself counts only when none of its imported names is a module
    for name in names:
        if name in known and any(other.startswith(name + ".") and other in known for other in names):
            found.discard(name)
    return found


def test_no_two_modules_import_each_other() -> None:
    paths = modules()
    known = frozenset(module_name(p) for p in paths)
    graph = {module_name(p): imported_modules(p, known) - {module_name(p)} for p in paths}
    pairs = sorted({tuple(sorted((a, b))) for a, targets in graph.items() for b in targets if a in graph.get(b, ())})
    assert not pairs, f"modules that import each other (give the idea one owner): {pairs}"
