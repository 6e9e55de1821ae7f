"""One module per harness: its hook payload -> a normalized event (see engine.py)."""

HARNESSES = ("claude-code", "codex", "cursor")
