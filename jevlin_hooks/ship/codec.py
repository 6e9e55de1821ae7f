"""JSON for the daemon's hot path: orjson, with the standard library as the fallback.

Per record the daemon parses one spool file and, per batch, encodes the request body; with the
standard ``json`` those two were about a sixth of the daemon's CPU per record, orjson does them
in a fraction of that. orjson refuses a few things ``json`` accepts (a lone surrogate, NaN,
and, when encoding, an integer over 64 bits): those go through ``json``, so they parse and
encode as before. One difference stays: orjson reads an integer over 64 bits as a float, so a
record holding one (no hook writes one) fails validation and is quarantined, never altered.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def loads(data: bytes) -> Any:
    """Invalid UTF-8 is replaced (U+FFFD), as the standard reader was always given it."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data.decode("utf-8", "replace"))  # ValueError for what is really not JSON


def dumps(obj: Any) -> bytes:
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, separators=(",", ":")).encode()


def dumps_strict(obj: Any) -> bytes:
    """Standard JSON only: orjson writes NaN and infinity as null (what ``make_safe`` already made
    of them); what orjson refuses (a lone surrogate, an integer over 64 bits) goes through the
    standard encoder, which raises ValueError for NaN rather than write a token no reader accepts
    and TypeError for what JSON cannot hold."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()
