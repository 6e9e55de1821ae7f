"""privacy/ keeps the shape that makes a rule one row, read in one place: small files, small
functions, no module state changed from inside a function, and imports that run one way
(face -> engine -> checks -> heuristics -> rules)."""

from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRIVACY = os.path.join(ROOT, "jevlin_hooks", "privacy")

# Each part may import the parts of a lower rank (and itself), never a higher one (public.py, the
# tests for public values, is heuristics' and imports nothing of ours; known_ids.py, the record's
# ids in its texts, imports nothing of ours either). regex and automaton wrap the native engines
# (RE2, Aho-Corasick) and import nothing of ours but linear (RE2's engine in pure Python, where
# google-re2 has no wheel); ids.py is the hook path's, stdlib only (tests/test_imports.py pins that).
RANK = {"ids": 0, "known_ids": 0, "regex": 0, "linear": 0, "automaton": 0, "rules": 0, "public": 1, "heuristics": 1,
        "personal": 1,
        "checks": 2, "engine": 3, "scrub": 4,
        "record": 5, "docs": 6, "switches": 6}


def _modules() -> list[str]:
    out = []
    for d, _, names in os.walk(PRIVACY):
        out += [os.path.join(d, n) for n in sorted(names) if n.endswith(".py")]
    return sorted(out)


def _part(path: str) -> str | None:
    rel = os.path.relpath(path, PRIVACY).split(os.sep)
    return None if rel == ["__init__.py"] else rel[0].removesuffix(".py")


def _imported_parts(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module + "." + a.name for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith("jevlin_hooks.privacy."):
                found.add(name.split(".")[2])
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: os.path.relpath(p, PRIVACY))
def test_small_files_small_functions_no_globals_one_way_imports(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        source = f.read()
    assert source.count("\n") <= 600, "over 600 lines: split it where its parts' jobs part"
    tree = ast.parse(source)
    for node in ast.walk(tree):
        assert not isinstance(node, ast.Global), f"line {node.lineno}: a global statement"
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno is not None and node.end_lineno - node.lineno + 1 <= 100, f"{node.name}: over 100 lines"
    part = _part(path)
    if part is None:
        return
    assert part in RANK, f"{part}: give the new part a rank here"
    upward = {p for p in _imported_parts(tree) if p != part and RANK.get(p, 99) > RANK[part]}
    assert not upward, f"{part} imports {sorted(upward)}, which stand above it"
