"""pyproject.toml asks for a native package exactly where a wheel of it exists.

A platform where pip finds no wheel builds the sdist, which needs a compiler (C, C++ or Rust) and
the library's headers: the install fails. So a package with a fallback (tests/
test_platform_fallbacks.py) is asked for only where a wheel exists, and wherever one exists (a
marker that leaves out a platform that has since got wheels fails here when tools/wheels.json is
refreshed). The markers are evaluated with packaging.markers for each platform users have (the
marker variables as pip sees them there: tools/wheels.py), against the wheels PyPI listed in
tools/wheels.json. What no marker can say (musl and glibc are both sys_platform linux; the glibc
a wheel needs) is listed here, and said in docs/platforms.md.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import wheels  # noqa: E402

# the packages whose absence a test shows to change nothing but speed (or, for cryptography, to
# hold a record rather than send or drop it): only these may be left out anywhere
WITH_FALLBACK = {"google-re2", "ahocorasick-rs", "hyperscan", "isal", "cryptography"}

# asked for where no wheel fits, because no marker can tell that platform apart: pip builds them
# there (docs/platforms.md says what it needs, and how to install without them)
NO_MARKER_CAN_TELL = {
    **{("google-re2", p, py): "musl" for p in ("Linux x86-64 musl", "Linux aarch64 musl")
       for py in ("3.11", "3.12", "3.13", "3.14")},
    **{("ahocorasick-rs", p, py): "musl" for p in ("Linux x86-64 musl", "Linux aarch64 musl")
       for py in ("3.11", "3.12", "3.13", "3.14")},
    # orjson's wheels for CPython 3.15 on Linux need glibc 2.39 (Ubuntu 24.04); the table's is 2.28
    **{("orjson", p, "3.15"): "glibc" for p in ("Linux x86-64 glibc", "Linux aarch64 glibc")},
    # watchdog has no musllinux wheel, but its sdist is pure Python on Linux: it builds without a compiler
    **{("watchdog", p, py): "pure sdist" for p in ("Linux x86-64 musl", "Linux aarch64 musl")
       for py in ("3.11", "3.12", "3.13", "3.14", "3.15")},
}


def _requirements() -> list[Requirement]:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return [Requirement(r) for r in tomllib.load(f)["project"]["dependencies"]]


def _cells() -> list[tuple[Requirement, wheels.Platform, tuple[int, int]]]:
    return [(r, p, py) for r in _requirements() for p in wheels.PLATFORMS for py in wheels.PYTHONS]


def test_the_table_covers_every_runtime_dependency() -> None:
    listed = {canonicalize_name(n) for n in wheels.NATIVE + wheels.PURE}
    missing = {canonicalize_name(r.name) for r in _requirements()} - listed
    assert not missing, f"tools/wheels.py does not look at {sorted(missing)}: add them and run it"
    snapshot = wheels.load()
    assert set(snapshot) == set(wheels.NATIVE + wheels.PURE), "tools/wheels.json is stale: run tools/wheels.py"


def test_a_native_package_is_asked_for_exactly_where_a_wheel_of_it_exists() -> None:
    snapshot = wheels.load()
    wrong, gaps = [], {}
    for req, platform, py in _cells():
        name = canonicalize_name(req.name)
        if name not in wheels.NATIVE:
            continue
        asked = req.marker is None or req.marker.evaluate(wheels.marker_env(platform, py))
        wheel = wheels.best_wheel(snapshot[name]["files"], platform, py) is not None
        where = f"{name} on {platform.name}, CPython {py[0]}.{py[1]}"
        if asked and not wheel:
            gaps[(name, platform.name, f"{py[0]}.{py[1]}")] = where
        elif not asked and wheel:
            wrong.append(f"{where}: left out, but a wheel exists (widen the marker)")
        elif not asked and name not in WITH_FALLBACK:
            wrong.append(f"{where}: left out, and nothing takes its place")
    assert not wrong, "\n".join(wrong)
    unexpected = sorted(v for k, v in gaps.items() if k not in NO_MARKER_CAN_TELL)
    assert not unexpected, "asked for where pip would build it from source:\n" + "\n".join(unexpected)
    assert set(gaps) == set(NO_MARKER_CAN_TELL), "a gap closed: take it out of NO_MARKER_CAN_TELL and the docs"


def test_a_pure_package_has_a_wheel_everywhere() -> None:
    snapshot = wheels.load()
    for name in wheels.PURE:
        for platform in wheels.PLATFORMS:
            for py in wheels.PYTHONS:
                assert wheels.best_wheel(snapshot[name]["files"], platform, py), (name, platform.name, py)


@pytest.mark.parametrize("name", sorted(WITH_FALLBACK))
def test_the_markers_name_platforms_as_pip_sees_them(name: str) -> None:
    """platform_machine is what platform.machine() says: x86_64 and aarch64 on Linux, arm64 and
    x86_64 on macOS, AMD64 and ARM64 on Windows (an x64 Python under emulation on ARM says ARM64
    too, and gets the fallback: slower, never broken). PEP 508 has no `not`: its negations are
    spelt with != and or."""
    (req,) = [r for r in _requirements() if canonicalize_name(r.name) == name]
    values = set(re.findall(r"platform_machine\s*[!=]=\s*['\"]([^'\"]+)['\"]", str(req.marker)))
    assert values <= {"x86_64", "aarch64", "arm64", "AMD64", "ARM64"}, values
    assert set(re.findall(r"sys_platform\s*[!=]=\s*['\"]([^'\"]+)['\"]", str(req.marker))) <= {"linux", "darwin", "win32"}


def test_hyperscan_is_asked_for_on_linux_aarch64() -> None:
    (req,) = [r for r in _requirements() if r.name == "hyperscan"]
    for platform in wheels.PLATFORMS:
        if platform.name.startswith("Linux aarch64"):
            assert req.marker is not None and req.marker.evaluate(wheels.marker_env(platform, (3, 12)))


def test_the_docs_musl_install_names_every_dependency_but_the_two_without_musl_wheels() -> None:
    """docs/platforms.md's install for Alpine (--no-deps, then the rest by hand) must not drift
    from pyproject.toml: a dependency added later and left out there would fail at import."""
    with open(os.path.join(ROOT, "docs", "platforms.md"), encoding="utf-8") as f:
        doc = f.read()
    (line,) = [ln.strip() for ln in doc.splitlines() if ln.strip().startswith("pip install ") and "--no-deps" not in ln]
    named = {canonicalize_name(n) for n in line.split()[2:]}
    want = {canonicalize_name(r.name) for r in _requirements()} - {"google-re2", "ahocorasick-rs"}
    assert named == want
