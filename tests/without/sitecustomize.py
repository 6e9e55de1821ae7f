"""Makes the modules named in JEVLIN_TEST_WITHOUT (comma-separated) unimportable, as on a platform
where they have no wheel: tests/test_platform_fallbacks.py puts this folder first on PYTHONPATH of
the processes it starts. Only tests set the variable; nothing of the package reads it."""

from __future__ import annotations

import importlib.abc
import os
import sys

_BLOCKED = frozenset(m for m in os.environ.get("JEVLIN_TEST_WITHOUT", "").split(",") if m)


class _Without(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname.partition(".")[0] in _BLOCKED:
            raise ImportError(f"No module named {fullname!r} (blocked by JEVLIN_TEST_WITHOUT)", name=fullname)
        return None


if _BLOCKED:
    sys.meta_path.insert(0, _Without())
