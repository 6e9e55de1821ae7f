"""Privacy: scrubbing free text and keyed hashing of ids (imported by submodule)."""
