"""The daemon stays split by job (issue 29): no class in ``jevlin_hooks/ship`` over 400 lines,
and no import cycle among its modules at import time (an arrow between two parts runs one way)."""

from __future__ import annotations

import ast
import os

import jevlin_hooks.ship

SHIP = os.path.dirname(jevlin_hooks.ship.__file__)
MAX_CLASS_LINES = 400


def modules() -> dict[str, ast.Module]:
    out = {}
    for root, _dirs, files in os.walk(SHIP):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                rel = os.path.relpath(path, os.path.dirname(os.path.dirname(SHIP)))[:-3].replace(os.sep, ".")
                out[rel.removesuffix(".__init__")] = ast.parse(open(path, encoding="utf-8").read())
    return out


def test_no_class_over_400_lines():
    big = [(name, node.name, node.end_lineno - node.lineno + 1)
           for name, tree in modules().items() for node in ast.walk(tree)
           if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES]
    assert big == []


def test_the_daemon_is_split_into_its_parts():
    classes = {(name, node.name) for name, tree in modules().items() for node in tree.body
               if isinstance(node, ast.ClassDef)}
    for part in [("jevlin_hooks.ship.scheduler", "Scheduler"), ("jevlin_hooks.ship.preparer", "Preparer"),
                 ("jevlin_hooks.ship.deliverer", "Deliverer"), ("jevlin_hooks.ship.housekeeping", "Housekeeper")]:
        assert part in classes


def top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements run when the module is imported (not those under ``if TYPE_CHECKING``, nor an
    import inside a function: a package's factory importing its submodules when called)."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.Try):
            out += top_level(node.body)
        else:
            out.append(node)
    return out


def test_no_import_cycle_in_the_daemon():
    mods = modules()
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, tree in mods.items():
        for node in top_level(tree.body):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            graph[name].update(t for t in targets if t in mods and t != name)
    seen: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(n: str, path: list[str]) -> None:
        seen[n] = 1
        for m in sorted(graph[n]):
            assert seen.get(m) != 1, "import cycle: " + " -> ".join([*path, n, m])
            if m not in seen:
                visit(m, [*path, n])
        seen[n] = 2

    for n in sorted(graph):
        if n not in seen:
            visit(n, [])
