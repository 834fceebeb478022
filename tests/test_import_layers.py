"""The import layering of ARCHITECTURE.md: nothing imports upward, and no module takes part
in an import circle.

Read from the source with ``ast``, so that an import inside a function (the CLI's lazy
imports) counts for the layering as much as one at the top; circles are judged on the
imports a module runs when it is loaded (top level, outside ``if TYPE_CHECKING``).
"""

from __future__ import annotations

import ast
from itertools import pairwise
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

BASE = {"teamwire", "_version", "_resources", "spec_version", "json_text", "json_members",
        "bounded_read", "near_names", "site"}
"""The package root and its small shared modules, which any part may use."""

ALLOWED: dict[str, set[str]] = {
    "envelope": set(),
    "schemas": {"envelope"},
    "validator": {"envelope", "schemas"},
    "router": {"envelope", "schemas"},
    "importers": {"envelope", "schemas"},
    "view": {"envelope", "schemas", "validator"},
    "conformance": {"envelope", "schemas", "validator", "router", "view"},
    "cli": {"envelope", "schemas", "validator", "router", "importers", "view", "conformance"},
    "__main__": {"cli"},
}
"""Which parts each part may import, besides itself and the base."""


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _target(name: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[:len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _imports(name: str, path: Path, *, loaded_only: bool) -> set[str]:
    """The teamwire modules ``name`` imports (all of them, or only those run on loading)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: list[ast.stmt] = []
    if loaded_only:
        for statement in tree.body:
            if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.unparse(statement.test):
                continue
            nodes.append(statement)
        walked = [n for statement in nodes for n in ast.walk(statement)
                  if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # ast.walk goes into function bodies through the class or module: drop those
        inner = {id(n) for statement in nodes for f in ast.walk(statement)
                 if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(f)}
        walked = [n for n in walked if id(n) not in inner]
    else:
        walked = list(ast.walk(tree))
    out: set[str] = set()
    for node in walked:
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = _target(name, path, node)
            out.add(module)
            out |= {f"{module}.{alias.name}" for alias in node.names
                    if f"{module}.{alias.name}" in MODULES}
    return {m for m in out if m in MODULES}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "teamwire"


def test_nothing_imports_upward() -> None:
    wrong = []
    for name, path in MODULES.items():
        part = _part(name)
        for target in _imports(name, path, loaded_only=False):
            other = _part(target)
            if other == part or other in BASE:
                continue
            if part in BASE or other not in ALLOWED.get(part, set()):
                wrong.append(f"{name} imports {target}")
    assert not wrong, "imports against the layering of ARCHITECTURE.md:\n" + "\n".join(wrong)


def test_the_router_never_imports_the_validator() -> None:
    assert "validator" not in ALLOWED["router"]
    assert not [t for n, p in MODULES.items() if _part(n) == "router"
                for t in _imports(n, p, loaded_only=False) if _part(t) == "validator"]


def test_no_import_circles() -> None:
    graph = {name: _imports(name, path, loaded_only=True) - {name}
             for name, path in MODULES.items()}
    # A package imports its own submodules when loaded (``from teamwire.envelope.ids import``
    # in ``teamwire.envelope``); a submodule importing its package back is the circle that
    # counts, so the package → submodule edges stay.
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                circle = [*trail[trail.index(target):], target]
                # a submodule importing its own package while that package loads it is how
                # packages re-export; only circles between siblings or across parts count
                if not all(a.startswith(b + ".") or b.startswith(a + ".")
                           for a, b in pairwise(circle)):
                    circles.append(circle)
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not circles, "import circles:\n" + "\n".join(" -> ".join(c) for c in circles)


def test_the_checker_sees_imports() -> None:
    """The test above would pass on a reader that finds nothing: it must find the known ones."""
    found = _imports("teamwire.view.page", MODULES["teamwire.view.page"], loaded_only=True)
    assert "teamwire.view.sequence" in found
    lazy = _imports("teamwire.cli.certify_cmd", MODULES["teamwire.cli.certify_cmd"],
                    loaded_only=False)
    assert "teamwire.conformance.report_html" in lazy
    assert "teamwire.conformance.report_html" not in _imports(
        "teamwire.cli.certify_cmd", MODULES["teamwire.cli.certify_cmd"], loaded_only=True)


def test_the_scenario_model_and_its_matching_language_import_no_harness() -> None:
    """A scenario and its expected values are data: reading them needs no server, router or
    check, so another harness can take the two modules as they are."""
    for name in ("teamwire.conformance.scenario", "teamwire.conformance.matching"):
        found = _imports(name, MODULES[name], loaded_only=False)
        assert found <= {"teamwire.conformance.scenario", "teamwire.schemas", "teamwire"}, \
            (name, found)


def test_vector_sources_tools_and_benches_import_no_test() -> None:
    """The vector sources, the tools and the benchmarks stand on their own: the tests may
    use them, never the other way round (a vector must not change with a test helper)."""
    root = SRC.parent
    offenders = []
    for folder in ("conformance", "tools", "bench"):
        for path in (root / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                offenders += [f"{path.relative_to(root)}: {n}" for n in names
                              if n == "tests" or n.startswith("tests.")]
    assert offenders == []
