"""The daemon: ships queued records, scrubbed and hashed, to a sink, durably."""
