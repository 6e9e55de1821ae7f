"""Read back: local views over the local store and lineage (threads, thread, status, ui)."""
