"""GitHub Copilot CLI: one hooks file of our own in ``~/.copilot/hooks/``, Copilot's native format.

This folder is the whole harness (harnesses/__init__.py lists the parts); this file imports
nothing at run time, since every hook of this harness imports it before its capture module.
docs/harnesses/copilot-cli.md says what is recorded and how.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # mypy checks that the folder provides every part (harnesses/parts.py)
    from jevlin_hooks.harnesses.copilot_cli import capture, doctor, install
    from jevlin_hooks.harnesses.parts import Capture, Doctor, Installer

    _capture: Capture = capture
    _install: Installer = install
    _doctor: Doctor = doctor
