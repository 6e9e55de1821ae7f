"""Which of jevlin-hooks' dependencies have a wheel on the platforms its users have.

    .venv/bin/python tools/wheels.py            # ask PyPI's JSON API, write tools/wheels.json, print the tables
    .venv/bin/python tools/wheels.py --offline  # the tables from tools/wheels.json
    .venv/bin/python tools/wheels.py --only NAME [NAME ...]  # refresh those packages only (a new dependency)

For each dependency (the runtime ones and theirs, native or not), the newest release's files are
read from ``https://pypi.org/pypi/<name>/json`` (what pip would install: it takes the newest
release, and builds it from source where none of its wheels fits). A wheel fits a platform and
Python when one of its tags is among the tags pip accepts there (``packaging.tags``, for the
platform's macOS version, glibc or musl, and architecture). The snapshot, tools/wheels.json, is
what tests/test_platform_markers.py checks pyproject.toml's markers against; docs/platforms.md
shows the tables this prints. Run it again before a release and commit both.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request
from dataclasses import dataclass
from typing import Any

from packaging import tags
from packaging.utils import parse_wheel_filename

SNAPSHOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wheels.json")
PYTHONS = ((3, 11), (3, 12), (3, 13), (3, 14), (3, 15))

# the runtime dependencies and theirs; native ones first (those with a C, C++ or Rust part)
NATIVE = ("google-re2", "ahocorasick-rs", "hyperscan", "isal", "orjson", "cryptography", "cffi", "watchdog", "protobuf")
PURE = ("httpx", "httpcore", "h11", "anyio", "idna", "certifi", "typing-extensions", "platformdirs", "tomli-w",
        "ruamel-yaml", "opentelemetry-proto", "pycparser", "phonenumbers", "python-stdnum")
GLIBC = (2, 28)  # RHEL 8, Debian 10, Ubuntu 18.10 and every later one
MUSL = (1, 2)  # Alpine 3.13 and later


@dataclass(frozen=True)
class Platform:
    name: str
    env: dict[str, str]  # the marker variables that tell it (PEP 508), as pip sees them there
    platforms: tuple[str, ...]  # the platform tags pip accepts there, best first


def _manylinux(arch: str) -> tuple[str, ...]:
    out = [f"manylinux_{GLIBC[0]}_{m}_{arch}" for m in range(GLIBC[1], 16, -1)]
    out += [f"manylinux2014_{arch}"]
    if arch == "x86_64":
        out += [f"manylinux_2_{m}_{arch}" for m in range(16, 4, -1)] + [f"manylinux2010_{arch}", f"manylinux1_{arch}"]
    return tuple(out)


def _musllinux(arch: str) -> tuple[str, ...]:
    return tuple(f"musllinux_{MUSL[0]}_{m}_{arch}" for m in range(MUSL[1], -1, -1))


def _env(sys_platform: str, machine: str, system: str, release: str) -> dict[str, str]:
    return {"sys_platform": sys_platform, "platform_machine": machine, "platform_system": system,
            "platform_release": release, "os_name": "nt" if sys_platform == "win32" else "posix",
            "implementation_name": "cpython", "platform_python_implementation": "CPython"}


PLATFORMS = (
    Platform("macOS 12 Apple silicon", _env("darwin", "arm64", "Darwin", "21.6.0"), tuple(tags.mac_platforms((12, 0), "arm64"))),
    Platform("macOS 13 Apple silicon", _env("darwin", "arm64", "Darwin", "22.6.0"), tuple(tags.mac_platforms((13, 0), "arm64"))),
    Platform("macOS 14 Apple silicon", _env("darwin", "arm64", "Darwin", "23.6.0"), tuple(tags.mac_platforms((14, 0), "arm64"))),
    Platform("macOS 15 Apple silicon", _env("darwin", "arm64", "Darwin", "24.6.0"), tuple(tags.mac_platforms((15, 0), "arm64"))),
    Platform("macOS 12 Intel", _env("darwin", "x86_64", "Darwin", "21.6.0"), tuple(tags.mac_platforms((12, 0), "x86_64"))),
    Platform("macOS 13 Intel", _env("darwin", "x86_64", "Darwin", "22.6.0"), tuple(tags.mac_platforms((13, 0), "x86_64"))),
    Platform("Linux x86-64 glibc", _env("linux", "x86_64", "Linux", "6.8.0"), _manylinux("x86_64")),
    Platform("Linux aarch64 glibc", _env("linux", "aarch64", "Linux", "6.8.0"), _manylinux("aarch64")),
    Platform("Linux x86-64 musl", _env("linux", "x86_64", "Linux", "6.8.0"), _musllinux("x86_64")),
    Platform("Linux aarch64 musl", _env("linux", "aarch64", "Linux", "6.8.0"), _musllinux("aarch64")),
    Platform("Windows x86-64", _env("win32", "AMD64", "Windows", "11"), ("win_amd64",)),
    Platform("Windows arm64", _env("win32", "ARM64", "Windows", "11"), ("win_arm64",)),
)


def marker_env(platform: Platform, python: tuple[int, int]) -> dict[str, str]:
    """The marker environment (packaging.markers) of ``platform`` running CPython ``python``."""
    v = f"{python[0]}.{python[1]}"
    return dict(platform.env, python_version=v, python_full_version=f"{v}.0", implementation_version=f"{v}.0",
                platform_version="", extra="")


def accepted(platform: Platform, python: tuple[int, int]) -> list[tags.Tag]:
    """The tags pip accepts for ``platform`` and CPython ``python``, best first."""
    interp = f"cp{python[0]}{python[1]}"
    return list(tags.cpython_tags(python, abis=[interp], platforms=list(platform.platforms))) + \
        list(tags.compatible_tags(python, interp, list(platform.platforms)))


def best_wheel(files: list[str], platform: Platform, python: tuple[int, int]) -> str | None:
    """The wheel pip would take among ``files`` there, or None (it would build the sdist)."""
    rank = {t: i for i, t in enumerate(accepted(platform, python))}
    best: tuple[int, str] | None = None
    for name in files:
        if not name.endswith(".whl"):
            continue
        for t in parse_wheel_filename(name)[3]:
            if t in rank and (best is None or rank[t] < best[0]):
                best = (rank[t], name)
    return best[1] if best else None


def fetch(names: tuple[str, ...]) -> dict[str, Any]:
    out = {}
    for name in names:
        with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=60) as r:  # noqa: S310
            info = json.load(r)
        out[name] = {"version": info["info"]["version"], "files": sorted(f["filename"] for f in info["urls"])}
    return out


def load() -> dict[str, Any]:
    with open(SNAPSHOT, encoding="utf-8") as f:
        snapshot: dict[str, Any] = json.load(f)
    return snapshot


def cell(files: list[str], platform: Platform) -> str:
    """What a user of ``platform`` gets: a wheel for every Python (3.11-3.15), for some, or none."""
    found = [best_wheel(files, platform, py) for py in PYTHONS]
    if all(w is not None and w.endswith("-none-any.whl") for w in found):
        return "pure"
    have = [f"{py[0]}.{py[1]}" for py, w in zip(PYTHONS, found, strict=True) if w is not None]
    if len(have) == len(PYTHONS):
        return "yes"
    if not have:
        return "**none**"
    return f"{have[0]}-{have[-1]}" if len(have) > 1 else have[0]


def table(snapshot: dict[str, Any]) -> str:
    cols = PLATFORMS
    lines = ["| package (version) | " + " | ".join(p.name for p in cols) + " |",
             "| --- | " + " | ".join("---" for _ in cols) + " |"]
    for name in NATIVE + PURE:
        got = snapshot[name]
        lines.append(f"| {name} ({got['version']}) | " + " | ".join(cell(got["files"], p) for p in cols) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--offline", action="store_true", help="read tools/wheels.json instead of asking PyPI")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="ask PyPI about these packages only, keep the rest")
    args = ap.parse_args()
    if args.offline:
        snapshot = load()
    else:
        snapshot = dict(load(), **fetch(tuple(args.only))) if args.only else fetch(NATIVE + PURE)
        with open(SNAPSHOT, "w", encoding="utf-8") as f:
            json.dump(snapshot, f, indent=1, sort_keys=True)
            f.write("\n")
    print(table(snapshot))
    print(f"\nyes: a wheel for CPython {PYTHONS[0][0]}.{PYTHONS[0][1]} to {PYTHONS[-1][0]}.{PYTHONS[-1][1]}; "
          f"3.x-3.y: only those; none: pip builds the sdist; pure: a py3-none-any wheel. "
          f"glibc {GLIBC[0]}.{GLIBC[1]}, musl {MUSL[0]}.{MUSL[1]}.", file=sys.stderr)


if __name__ == "__main__":
    main()
