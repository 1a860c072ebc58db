"""The engine's modules import one another one way: no cycle, and no layer reaching up.

    errors, layout, units, source_files, signed_cache  <-  load  <-  calc  <-  facts, tables  <-  render  <-  publish, listings,
        importers, measure, plan  <-  cli

Read from the source (every import statement, those inside functions too), so
that an import hidden in a function to dodge a cycle counts as what it is.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

from cli_support import ROOT

PACKAGE = ROOT / "vramsite"

LAYERS = {"errors": 0, "layout": 0, "units": 0, "source_files": 0, "signed_cache": 0, "page_collections": 1,
          "load": 1, "calc": 2, "facts": 3, "tables": 3, "render": 4, "publish": 5, "changes": 5, "listings": 5,
          "importers": 5, "measure": 5, "plan": 5, "cli": 6}
"""The layer of each part of the engine (vramsite/<part>): a module imports from its own layer or those below."""

def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The engine modules ``name`` names in its import statements (a name imported from a package may be one)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            source = ".".join(base + ([node.module] if node.module else []))
            submodules = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in modules]
            targets = submodules or [source]
        else:
            continue
        found.update(target for target in targets if target in modules and target != name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = engine_modules()
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def layer(module: str) -> int:
    part = module.split(".")[1] if "." in module else ""
    assert part in LAYERS, f"{module} belongs to no layer: add vramsite/{part} to LAYERS"
    return LAYERS[part]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the modules along it (the first repeated at the end), or None."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        state[module] = "done"
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


NEEDS_MEASURE_EXTRA = {"vramsite.measure.probe", "vramsite.measure.run"}
"""Modules that import torch: only `build.py measure` reaches them, with the measure extra installed."""


@pytest.mark.parametrize("name", sorted(engine_modules()))
def test_every_module_imports(name):
    if name in NEEDS_MEASURE_EXTRA and importlib.util.find_spec("torch") is None:
        pytest.skip("needs the measure extra (torch): pip install -e '.[measure]'")
    importlib.import_module(name)


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_layers_point_one_way():
    upward = sorted(f"{module} (layer {layer(module)}) imports {target} (layer {layer(target)})"
                    for module, targets in import_graph().items() for target in targets
                    if layer(target) > layer(module))
    assert not upward, "\n".join(upward)


def test_the_checks_see_an_import_inside_a_function_and_a_cycle(tmp_path):
    modules = {"vramsite.load.a": tmp_path / "a.py", "vramsite.load.b": tmp_path / "b.py"}
    (tmp_path / "a.py").write_text("def late():\n    from .b import thing\n", encoding="utf-8")
    assert imported_modules("vramsite.load.a", tmp_path / "a.py", modules) == {"vramsite.load.b"}
    assert find_cycle({"vramsite.load.a": {"vramsite.load.b"}, "vramsite.load.b": {"vramsite.load.a"}}) == [
        "vramsite.load.a", "vramsite.load.b", "vramsite.load.a"]
    assert find_cycle({"vramsite.load.a": {"vramsite.load.b"}, "vramsite.load.b": set()}) is None
