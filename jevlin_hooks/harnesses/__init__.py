"""The harness registry: which harnesses there are, and where each one's parts live.

One folder per harness, ``harnesses/<folder>/``, each with the same four parts (the interfaces
are in ``parts.py``; docs/architecture.md says how to add one):

  capture.py   the hook payload -> a normalized event: runs inside the agent's hook, so the
               standard library and the hook path only (tests/test_imports.py pins it)
  install.py   what `install` / `uninstall` change in the harness's own files, and what next
  doctor.py    its lines in `jevlin-hooks doctor`
  data/        what it bundles: captured sessions (the demo and the tests), templates

``REGISTRY`` below is the one table the hook entry point, `context`, install/uninstall, doctor and
the CLI read. This module is on the hook path: it imports nothing, and a harness's module is
imported by name only when asked for, so one hook pays for its own harness and no other.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

    from jevlin_hooks.harnesses.parts import Capture, Doctor, Installer


class Spec:
    """One harness: its name (in lineage files, records and ``--harness``), its folder under
    harnesses/, the variable its shell tool carries when it names its session (``context``
    reads only the harnesses whose variable is set, so a lookup imports one module at most),
    and other names an installed command may run under."""

    __slots__ = ("name", "folder", "env_session", "aliases")

    def __init__(self, name: str, folder: str, env_session: str | None = None, aliases: tuple[str, ...] = ()) -> None:
        self.name = name
        self.folder = folder
        self.env_session = env_session
        self.aliases = aliases

    @property
    def package(self) -> str:
        return f"{__name__}.{self.folder}"


REGISTRY = (
    Spec("claude-code", "claude_code", env_session="CLAUDE_CODE_SESSION_ID"),
    Spec("codex", "codex", env_session="CODEX_SESSION_ID", aliases=("codex-notify",)),
    Spec("cursor", "cursor"),
    Spec("hermes", "hermes", env_session="HERMES_SESSION_ID"),
    Spec("pi", "pi", env_session="JEVLIN_PI_SESSION_ID"),
    Spec("gemini-cli", "gemini_cli"),  # its shell tool names no session: the pending call does
    # in a subagent's shell this names an id of Copilot's own, indexed at its first search (capture.from_env)
    Spec("copilot-cli", "copilot_cli", env_session="COPILOT_AGENT_SESSION_ID"),
)

HARNESSES = tuple(s.name for s in REGISTRY)
ENV_SESSION = {s.name: s.env_session for s in REGISTRY if s.env_session}
_BY_NAME = {s.name: s for s in REGISTRY}
_BY_NAME.update({a: s for s in REGISTRY for a in s.aliases})


def spec(name: str) -> Spec:
    """The harness a name (or an alias) belongs to; ValueError for a name we do not know."""
    s = _BY_NAME.get(name)
    if s is None:
        raise ValueError(f"unknown harness {name!r}")
    return s


def _part(name: str, part: str) -> ModuleType:
    # __import__ rather than importlib: importlib is not loaded yet under `python -I -S`.
    return __import__(f"{spec(name).package}.{part}", fromlist=["_"])


def capture(name: str) -> Capture:
    """The harness's capture module (the hook path)."""
    mod: Capture = _part(name, "capture")  # each folder's __init__ has mypy check the module
    return mod


def installer(name: str) -> Installer:
    mod: Installer = _part(name, "install")
    return mod


def doctor(name: str) -> Doctor:
    mod: Doctor = _part(name, "doctor")
    return mod


def data_dir(name: str) -> str:
    """The harness's bundled files (shipped in the package: pyproject.toml's package-data)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), spec(name).folder, "data")
