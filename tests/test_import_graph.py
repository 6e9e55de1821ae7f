"""The package's import graph, read statically (ast): no cycle anywhere, and each harness's parts
import what their part may.

Every import statement counts, wherever it is (module level, inside a function, under
``if TYPE_CHECKING``): a cycle through a lazy import is still a cycle, only hidden until the
day someone moves that import up. What is not an import statement (the registry's
``__import__`` of a harness module by name) is not an edge: that is the one indirection the
harness table exists for.
"""

from __future__ import annotations

import ast
import os
import sys

import pytest

from jevlin_hooks import harnesses

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "jevlin_hooks"


def modules(root: str = ROOT, package: str = PACKAGE) -> dict[str, str]:
    """Dotted module name -> file, for every .py file of the package."""
    out: dict[str, str] = {}
    base = os.path.join(root, package)
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        rel = os.path.relpath(d, root).replace(os.sep, ".")
        for f in files:
            if f.endswith(".py"):
                name = rel if f == "__init__.py" else f"{rel}.{f[:-3]}"
                out[name] = os.path.join(d, f)
    return out


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_nodes(tree: ast.AST, runtime_only: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in the tree; with ``runtime_only``, not those under ``if
    TYPE_CHECKING:`` (which never run)."""
    out: list[ast.Import | ast.ImportFrom] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        if runtime_only and _is_type_checking(node):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def imports(name: str, path: str, known: set[str], runtime_only: bool = False) -> set[str]:
    """The package's own modules that module ``name`` imports, by any import statement."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_pkg = path.endswith("__init__.py")
    here = name if is_pkg else name.rpartition(".")[0]
    out: set[str] = set()
    for node in import_nodes(tree, runtime_only):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
            continue
        if node.level:
            parts = here.split(".")
            base = ".".join(parts[: len(parts) - node.level + 1])
            mod = f"{base}.{node.module}" if node.module else base
        else:
            mod = node.module or ""
        for a in node.names:
            # `from pkg import sub` imports the submodule; `from mod import name` the module
            out.add(f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod)
    return {m for m in out if m in known and m != name}


def graph(runtime_only: bool = False) -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports(name, path, known, runtime_only) for name, path in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(g) + 100))

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_the_package_has_no_import_cycle():
    found = cycles(graph())
    assert not found, "import cycles (each line: modules that import each other, directly or not):\n" + \
        "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    """The check above can fail: modules that import each other lazily inside a function,
    through a relative import, or for the type checker only, are caught."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("def f():\n    from pkg.b import g\n    return g\n")
    (pkg / "b.py").write_text("from .sub import a\n\ndef g():\n    return a\n")
    (pkg / "c.py").write_text("import pkg.b\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n    from pkg import d\n")
    (pkg / "d.py").write_text("from pkg.c import x\n")
    mods = modules(str(tmp_path), "pkg")
    g = {n: imports(n, p, set(mods)) for n, p in mods.items()}
    assert g["pkg.b"] == {"pkg.sub.a"} and g["pkg.sub.a"] == {"pkg.b"} and g["pkg.c"] == {"pkg.b", "pkg.d"}
    assert sorted(cycles(g)) == [["pkg.b", "pkg.sub.a"], ["pkg.c", "pkg.d"]]
    # at run time, c's import of d never happens
    assert imports("pkg.c", mods["pkg.c"], set(mods), runtime_only=True) == {"pkg.b"}


# --- each harness's parts, by what they may import --------------------------------------------

# what a harness's capture module may use besides the standard library: the hook path's own
# packages (the same ones tests/test_imports.py allows a hook process)
HOOK_PATH = ("jevlin_hooks.base", "jevlin_hooks.capture", "jevlin_hooks.privacy.ids")


@pytest.mark.parametrize("name", harnesses.HARNESSES)
def test_a_harness_capture_module_imports_only_the_hook_path(name):
    """A harness's capture module (and its folder's __init__, which a hook imports first) runs
    inside the agent's hook: the standard library and the hook path only, never its own
    installer or doctor, nor another harness. Imports under TYPE_CHECKING never run."""
    mods = modules()
    spec = harnesses.spec(name)
    for part in (spec.package, f"{spec.package}.capture"):
        with open(mods[part], encoding="utf-8") as f:
            tree = ast.parse(f.read())
        bad = []
        for node in import_nodes(tree, runtime_only=True):
            if isinstance(node, ast.ImportFrom) and node.level:
                bad.append(f"relative import from {node.module}")
                continue
            for m in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]):
                top = m.split(".")[0]
                if top == PACKAGE and not m.startswith(HOOK_PATH):
                    bad.append(m)
                elif top != PACKAGE and top not in sys.stdlib_module_names and top != "__future__":
                    bad.append(m)
        assert not bad, f"{part} imports {bad}"


def test_the_registry_imports_nothing_at_run_time():
    """The registry is read by every hook: at run time it imports nothing of ours (a harness's
    module is imported by name when asked for), and only os of the standard library."""
    assert graph(runtime_only=True)["jevlin_hooks.harnesses"] == set()
    with open(modules()["jevlin_hooks.harnesses"], encoding="utf-8") as f:
        nodes = import_nodes(ast.parse(f.read()), runtime_only=True)
    assert sorted(a.name for n in nodes if isinstance(n, ast.Import) for a in n.names) == ["os"]


SHARED = ("jevlin_hooks.harnesses", "jevlin_hooks.harnesses.parts")  # the registry, the interfaces


@pytest.mark.parametrize("name", harnesses.HARNESSES)
def test_no_harness_folder_reaches_into_another(name):
    """A harness's folder imports the shared pieces, never another harness's folder (what two
    harnesses share lives outside both: capture/payloads.py, installkit.py)."""
    g = graph()
    own = harnesses.spec(name).package
    for mod, deps in g.items():
        if mod == own or mod.startswith(own + "."):
            other = sorted(d for d in deps if d.startswith("jevlin_hooks.harnesses") and d not in SHARED
                           and not (d == own or d.startswith(own + ".")))
            assert not other, f"{mod} imports {other}"


def test_nothing_outside_the_harnesses_imports_a_harness_folder():
    """Everything else reaches a harness through the registry, by name, so that adding one is
    its folder and one registry line."""
    g = graph()
    for mod, deps in g.items():
        if mod.startswith("jevlin_hooks.harnesses"):
            continue
        reached = sorted(d for d in deps if d.startswith("jevlin_hooks.harnesses.") and d not in SHARED)
        assert not reached, f"{mod} imports {reached}"
