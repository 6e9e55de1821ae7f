"""JSON without importing :mod:`json`.

``import json`` pulls in :mod:`re` and costs about as much as the interpreter's own start-up,
which is the whole budget of a hook. The C accelerator ``_json`` that :mod:`json` wraps is
loaded in a fraction of that, so the hook path uses it directly. Output is ASCII-only
compact JSON, byte-compatible with ``json.dumps(obj, separators=(",", ":"))``.
"""

from __future__ import annotations

import _json

# typing (which imports re) costs more than a hook's whole start-up budget: types only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _constant(name: str) -> float:
    return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


class _ScanContext:
    strict = False  # transcripts sometimes carry raw control characters inside strings
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)


# typeshed wants a JSONDecoder; the C scanner reads only these attributes
_scan = _json.make_scanner(_ScanContext())  # type: ignore[arg-type]
_WS = " \t\n\r"


class JSONError(ValueError):
    pass


def loads(text: str | bytes) -> Any:
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    n = len(text)
    i = 0
    while i < n and text[i] in _WS:
        i += 1
    try:
        obj, end = _scan(text, i)
    except StopIteration:
        raise JSONError(f"invalid JSON at offset {i}") from None
    except RecursionError:
        raise JSONError("JSON nested too deeply") from None
    except ValueError as exc:  # json.decoder.JSONDecodeError subclasses ValueError
        raise JSONError(str(exc)) from None
    except SystemError:
        # The C scanner fails this way on some truncated documents (`{"a": 1`): without this,
        # a half-written file bypasses every caller's ValueError handling.
        raise JSONError(f"invalid JSON (truncated?) after offset {i}") from None
    while end < n and text[end] in _WS:
        end += 1
    if end != n:
        raise JSONError(f"extra data at offset {end}")
    return obj


def _default(obj: Any) -> Any:
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


_encode = _json.make_encoder(
    None, _default, _json.encode_basestring_ascii, None, ":", ",", False, False, True
)
_encode_sorted = _json.make_encoder(
    None, _default, _json.encode_basestring_ascii, None, ":", ",", True, False, True
)


def dumps(obj: Any, sort_keys: bool = False) -> str:
    return "".join((_encode_sorted if sort_keys else _encode)(obj, 0))


def valid_text(value: str) -> str:
    """``value`` with invalid code points (lone surrogates, from a JSON ``\\ud83d``) replaced by
    U+FFFD, so that it can be encoded, clipped, scrubbed and sent. Cheap when there are none."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)


def valid(obj: Any) -> Any:
    """``obj`` with every string in it made ``valid_text`` (keys too); other values as they are."""
    if isinstance(obj, str):
        return valid_text(obj)
    if isinstance(obj, dict):
        return {valid_text(k) if isinstance(k, str) else k: valid(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [valid(v) for v in obj]
    return obj
