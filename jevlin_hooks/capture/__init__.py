"""The hook path: runs inside the agent's hook process. Standard library only (pinned by
tests/test_imports.py)."""
