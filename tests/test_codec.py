"""The daemon's JSON (orjson) reads and writes what the standard library does, falling back to
it for what orjson refuses, so no record that shipped before is refused now."""

from __future__ import annotations

import json

import pytest

from jevlin_hooks.ship import codec


@pytest.mark.parametrize("raw", [
    b'{"history":"caf\\u00e9 \\ud83d\\ude00","seq":3}',
    b'{"history":"a lone surrogate \\ud800 from a cut transcript"}',
    b'{"x":NaN}',
])
def test_loads_matches_the_standard_library(raw):
    got, want = codec.loads(raw), json.loads(raw)
    assert json.dumps(got) == json.dumps(want)


def test_an_integer_over_64_bits_is_refused_not_changed():
    """orjson reads it as a float: the record fails validation and goes to quarantine (kept,
    with the reason) instead of leaving with another number. No hook writes such a number."""
    from jevlin_hooks.privacy import record

    rec = {"v": 1, "record_id": "ab" * 16, "kind": "search", "ts": "t", "harness": "claude-code",
           "session_id": "s", "call_id": "c", "window": 0, "seq": 2**70}
    parsed = codec.loads(json.dumps(rec).encode())
    with pytest.raises(record.InvalidRecord):
        record.validate(parsed)


def test_dumps_round_trips_what_orjson_refuses():
    for obj in ({"history": "lone \ud800 surrogate"}, {"n": 2**70}, {"records": [{"query": "é ✓"}]}):
        assert json.loads(codec.dumps(obj)) == obj


def test_not_json_is_still_a_value_error():
    with pytest.raises(ValueError):
        codec.loads(b"{not json")


def test_request_bodies_are_standard_gzip():
    """Whatever compresses them (ISA-L or the standard library), a body is gzip any reader opens."""
    import gzip

    from jevlin_hooks.ship.sinks.http import compress

    data = b'{"records":[' + b",".join(b'{"record_id":"%032x","history":"retry backoff %d"}' % (i, i)
                                       for i in range(2000)) + b"]}"
    body = compress(data)
    assert body[:2] == b"\x1f\x8b" and len(body) < len(data) // 5
    assert gzip.decompress(body) == data
    assert gzip.decompress(compress(b"")) == b""
