"""The package's module-level imports form a DAG: no module needs itself to load.

Read with `ast`, not by importing: an edge is a module-level `import`/`from ... import` of a
module of `edgedelivery_async` (relative or absolute). Imports under `if TYPE_CHECKING:` and
inside functions or classes' methods are not edges (they run later, or never). `from X import
name` is an edge to `X.name` when that is a module of the package, else to `X` itself; the
implicit import of parent packages is not counted (every submodule has it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import edgedelivery_async

PACKAGE = "edgedelivery_async"
ROOT = Path(edgedelivery_async.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join([PACKAGE, *parts])] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level(
    body: list[ast.stmt], *, typing_only: bool = False
) -> list[ast.Import | ast.ImportFrom]:
    """Import statements that run when the module loads (not in functions).

    `typing_only` also counts those under `if TYPE_CHECKING:` (what a type checker loads).
    """
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            if typing_only or not _is_type_checking(node.test):
                found += _module_level(node.body, typing_only=typing_only)
            found += _module_level(node.orelse, typing_only=typing_only)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                found += _module_level(block, typing_only=typing_only)
            for handler in node.handlers:
                found += _module_level(handler.body, typing_only=typing_only)
        elif isinstance(node, ast.With | ast.ClassDef):
            found += _module_level(node.body, typing_only=typing_only)
    return found


def _edges(
    name: str, path: Path, modules: dict[str, Path], *, typing_only: bool = False
) -> set[str]:
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    targets: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    for node in _module_level(tree.body, typing_only=typing_only):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
            continue
        if node.level:
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            origin = ".".join(base + ([node.module] if node.module else []))
        else:
            origin = node.module or ""
        for alias in node.names:
            submodule = f"{origin}.{alias.name}"
            targets.add(submodule if submodule in modules else origin)
    return {target for target in targets if target in modules and target != name}


def _graph(*, typing_only: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: _edges(name, path, modules, typing_only=typing_only) for name, path in modules.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_one_cycle(graph, set(component)) for component in components]


def _one_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module, as a path back to it."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & component):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle in {sorted(component)}")  # pragma: no cover


def test_the_reader_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_reader_sees_the_package() -> None:
    graph = _graph()
    assert f"{PACKAGE}.testing._fake" in graph
    assert f"{PACKAGE}.testing._app" in graph[f"{PACKAGE}.testing._fake"]
    assert f"{PACKAGE}._schema" in graph[f"{PACKAGE}.testing._document"]


@pytest.mark.parametrize("typing_only", [False, True], ids=["runtime", "with-type-checking"])
def test_testing_has_no_import_cycles(typing_only: bool) -> None:
    """Within `testing/` not even the imports only a type checker follows make a cycle."""
    testing = f"{PACKAGE}.testing"
    graph = {
        name: {t for t in targets if t.startswith(testing)}
        for name, targets in _graph(typing_only=typing_only).items()
        if name.startswith(testing)
    }
    cycles = _cycles(graph)
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_package_has_no_import_cycles() -> None:
    cycles = _cycles(_graph())
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
