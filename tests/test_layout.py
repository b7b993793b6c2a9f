"""The package's shape, as ARCHITECTURE.md describes it, checked on the source.

Layers import only from the layers above them; imports sit at module top (``cli/`` excepted: it
imports a command's module only when that command runs); no import cycle, between modules or
between folders, function-level imports included (``TYPE_CHECKING`` aside); no module over 400
lines and no function over 60, so each stays readable whole.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from conftest import PROJECT

PACKAGE = PROJECT / "installer/agent_memory"
# Top to bottom: a module may import from its own layer and the layers before it.
LAYERS = (
    "errors",
    "patterns",
    "layout",
    "resources",
    "parse",
    "core",
    "upgrade",
    "shell",
    "commands",
    "cli",
)
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def _name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


def _layer(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


# Imports inside a function, each with the start-up cost it saves every other command.
DEFERRED = {
    # fact add's --cite: 19M instructions a plain `fact add` does not spend
    "commands.fact": {"commands.cite"},
    # the citations' check and git, for a memory whose facts cite or are scoped: 3M
    # instructions of every session start, and git of a prompt's check of the start context
    "commands.context": {"shell.cited", "shell.focus"},
}


def _top_level(tree: ast.Module) -> set[int]:
    """Ids of the import nodes at module level, ``if TYPE_CHECKING:`` blocks included."""
    nodes = list(tree.body)
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            nodes += node.body
    return {id(node) for node in nodes}


def _imports(path: Path) -> list[tuple[str, ast.ImportFrom, bool]]:
    """(module imported, node, at top level) for each import of the package's own modules."""
    package = list(path.relative_to(PACKAGE).parts[:-1])
    found = []
    tree = ast.parse(path.read_text())
    top = _top_level(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            at_top = id(node) in top
            if node.module:
                found.append((".".join([*base, node.module]), node, at_top))
            else:
                found += [(".".join([*base, alias.name]), node, at_top) for alias in node.names]
    return found


def _architecture() -> dict[str, list[str]]:
    """ARCHITECTURE.md's module map: each package heading (``### `core/review/` ``) with the
    modules its bullets name (``- `tiers` — …``)."""
    text = (PROJECT / "ARCHITECTURE.md").read_text().split("## Modules", 1)[1]
    named: dict[str, list[str]] = {}
    package = None
    for line in text.splitlines():
        if heading := re.fullmatch(r"### `([a-z_/.]+)/`", line):
            package = heading.group(1).strip(".")
            named[package] = []
        elif (bullet := re.match(r"- `([a-z_0-9]+)` — ", line)) and package is not None:
            named[package].append(bullet.group(1))
    return named


def test_architecture_names_every_package_and_module() -> None:
    named = _architecture()
    packages = {str(p.parent.relative_to(PACKAGE)).strip(".") for p in PACKAGE.rglob("__init__.py")}
    assert set(named) == packages, "ARCHITECTURE.md's headings are not the package's folders"
    for package, modules in named.items():
        folder = PACKAGE / package
        found = {
            p.stem for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py")
        }
        assert sorted(modules) == sorted(found), f"ARCHITECTURE.md § {package or './'}"
    layers = [layer for layer in LAYERS if (PACKAGE / layer).is_dir()]
    assert {p.split("/")[0] for p in packages if p} == set(layers)


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_imports_point_down_and_sit_at_the_top(path: Path) -> None:
    module = _name(path)
    for imported, node, at_top in _imports(path):
        assert _layer(imported) <= _layer(module), f"{module} imports {imported} from below"
        if not module.startswith("cli") and imported not in DEFERRED.get(module, ()):
            assert at_top, f"{module}:{node.lineno} imports {imported} inside code"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_modules_and_functions_stay_short(path: Path) -> None:
    source = path.read_text()
    assert source.count("\n") <= 400, f"{_name(path)} has {source.count(chr(10))} lines"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            assert length <= 60, f"{_name(path)}.{node.name} has {length} lines"


def _runtime_imports(path: Path) -> Iterator[str]:
    """Each module of the package that ``path`` imports when it runs, wherever the import sits
    (in a function too), but not under ``if TYPE_CHECKING:``."""
    package = list(path.relative_to(PACKAGE).parts[:-1])
    tree = ast.parse(path.read_text())
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level and id(node) not in typing_only:
            base = [*package[: len(package) - (node.level - 1)], *filter(None, [node.module])]
            for alias in node.names:
                named = ".".join([*base, alias.name])
                yield named if named in _GRAPH_NODES else ".".join(base)


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")


_GRAPH_NODES = {_module_name(p) for p in PACKAGE.rglob("*.py")}


def _graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports at run time (itself and ``__main__`` left out)."""
    graph = {}
    for path in PACKAGE.rglob("*.py"):
        module = _module_name(path)
        graph[module] = {m for m in _runtime_imports(path) if m in _GRAPH_NODES} - {module}
    return graph


def _cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one node (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = stack[stack.index(node) :]
                del stack[stack.index(node) :]
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def _folder(module: str) -> str:
    return module if module in _PACKAGES else module.rpartition(".")[0]


_PACKAGES = {_module_name(p) for p in PACKAGE.rglob("__init__.py")}


def test_no_module_imports_itself_back() -> None:
    assert _cycles(_graph()) == []


def _inside(folder: str, other: str) -> bool:
    return folder.startswith(f"{other}.") or other.startswith(f"{folder}.")


def test_no_folder_imports_itself_back() -> None:
    """Between families (``core/facts`` and ``core/checks``); a folder and one inside it are one
    family, whose modules the test above keeps free of cycles."""
    folders: dict[str, set[str]] = {}
    for module, imported in _graph().items():
        folders.setdefault(_folder(module), set()).update(_folder(m) for m in imported)
    for folder, edges in folders.items():
        edges -= {folder}
        edges -= {other for other in edges if _inside(folder, other)}
    assert _cycles(folders) == []


def test_the_package_imports_itself_only_by_relative_names() -> None:
    """The graphs above read relative imports; an absolute ``agent_memory.`` one would be an
    edge they never see. A module found by name at run time (``importlib.import_module``) is
    only the command line's way to load a command: ``cli`` is the top layer, which nothing
    below imports, so such an edge cannot close a cycle."""
    for path, node in ((p, n) for p in MODULES for n in ast.walk(ast.parse(p.read_text()))):
        if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            absolute = [n for n in names if n and n.split(".")[0] == "agent_memory"]
            assert not absolute, f"{_name(path)}:{node.lineno} imports {absolute} by absolute name"
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module"):
            assert _name(path).startswith("cli."), f"{_name(path)}:{node.lineno} imports by name"


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    graph = _graph()
    assert "cli.app" in graph["cli"]  # imported inside a function: an edge all the same
    assert "commands.runner" not in graph["cli.declared"]  # under TYPE_CHECKING: none


def _is_record(node: ast.ClassDef) -> bool:
    return any(ast.unparse(base) in ("NamedTuple", "typing.NamedTuple") for base in node.bases)


def test_records_are_made_from_evaluated_annotations() -> None:
    """``typing.NamedTuple`` compiles each field's annotation that is a string when the class is
    made: with ``from __future__ import annotations`` every one is, 3-5 % of each command's
    instructions (ARCHITECTURE.md § What is kept for speed). A module that makes a record leaves
    its annotations evaluated and quotes only a name not bound yet."""
    for path in MODULES:
        _evaluated(path)


def _evaluated(path: Path) -> None:
    tree = ast.parse(path.read_text())
    future = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    )
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    records = [node.name for node in classes if _is_record(node)]
    assert not (future and records), f"{_name(path)} makes {records} from string annotations"
