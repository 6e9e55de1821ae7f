"""Stdlib-only ground every part stands on: paths, fastjson, log, config, the spool."""
