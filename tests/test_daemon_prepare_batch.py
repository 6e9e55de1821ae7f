"""The daemon makes records safe a chunk at a time, their texts scrubbed in one call
(prepare.prepare_chunk -> record.make_safe_many). What leaves must still be exactly what
``make_safe`` gives each record alone (what `preview` shows), whichever records sit beside it,
and a record that cannot be made safe must cost no other record."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
from fault_server import FaultServer
from test_daemon import raw_record, spool_empty, write_config

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.agent_text import generate  # noqa: E402
from jevlin_hooks.base import spool  # noqa: E402
from jevlin_hooks.privacy import ids, record, scrub  # noqa: E402
from jevlin_hooks.ship import codec, prepare  # noqa: E402

KEY = b"k" * 32
SETTINGS = prepare.Settings(KEY, (), False)
K8S_MANIFEST = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n"
K8S_DATA = "the config has\ndata:\n  password: aHVudGVyMi1jb3JyZWN0LWhvcnNl\n  user: YWRtaW4=\n"


def agent_records(seed: int, n: int) -> list[dict[str, Any]]:
    """Search records whose history and query are the agent-text generator's rows (secrets,
    personal data, decoys, non-ASCII), with a Kubernetes Secret's kind in one record and data
    that rule reads in the next."""
    rows = generate.rows(seed, 2 * n)
    out = []
    for i in range(n):
        r = raw_record(seed * 10_000 + i, session=f"s{i % 3}")
        r.update(history=rows[2 * i].text, query=rows[2 * i + 1].text[:300],
                 host_meta={"platform": "linux", "model": "claude-x"})
        out.append(r)
    out[n // 2]["history"] += "\n" + K8S_MANIFEST
    out[n // 2 + 1]["history"] = K8S_DATA + out[n // 2 + 1]["history"]
    return out


@pytest.mark.parametrize("seed", [3, 4])
def test_records_made_safe_together_are_what_each_is_alone(seed):
    recs = agent_records(seed, 160)
    alone = [record.make_safe(r, KEY) for r in recs]
    together = record.make_safe_many(recs, KEY)
    assert together == alone
    assert sum(s["host_meta"]["redactions"] for s in alone) > 50  # the rows planted secrets


def test_the_k8s_rule_reads_the_whole_text_so_such_a_record_is_scrubbed_alone():
    """Why make_safe_many keeps a record with a Secret's kind apart: scrubbed together with it,
    the next record's data would be redacted by another rule than when it is alone."""
    joined = scrub.scrub_many([K8S_MANIFEST, K8S_DATA])[1]
    assert joined != scrub.scrub_many([K8S_DATA])[0]
    recs = [raw_record(1), raw_record(2)]
    recs[0]["history"], recs[1]["history"] = K8S_MANIFEST, K8S_DATA
    assert record.make_safe_many(recs, KEY) == [record.make_safe(r, KEY) for r in recs]


def test_no_record_is_the_context_of_another():
    """Each planted secret cut in two: the text before its value ends one record and the value
    starts the next. Scrubbed together, the keyword before the cut must not reach the value
    (rules look up to 64 characters back), and a PEM block whose END is in a later record must
    not swallow the records between."""
    recs = []
    for row in (r for r in generate.rows(12, 400) if r.secrets):
        v = row.secrets[0]
        cut = row.text.find(v)
        if cut <= 0:
            continue
        for part in (row.text[:cut], row.text[cut:]):
            r = raw_record(len(recs))
            r["history"] = part
            recs.append(r)
    pem = [raw_record(9000 + i) for i in range(4)]
    pem[0]["history"] = "key file:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
    pem[1]["history"] = "an unrelated note about retries"
    pem[3]["history"] = "BKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n done"
    recs[40:40] = pem
    assert len(recs) > 300
    assert record.make_safe_many(recs, KEY) == [record.make_safe(r, KEY) for r in recs]


def test_a_bad_record_among_good_ones_is_refused_alone():
    recs = agent_records(5, 20)
    raws = [codec.dumps(r) for r in recs]
    raws[3] = b"{not json"
    raws[7] = codec.dumps({**recs[7], "session_id": None})
    raws[11] = codec.dumps({**recs[11], "released": 1, "safe": record.make_safe(recs[11], KEY)})
    got = prepare.prepare_many(raws, SETTINGS)
    assert got == [prepare.prepare(raw, SETTINGS) for raw in raws]
    assert got[3] == (None, "invalid record: not valid JSON", None)
    assert got[7][0] is None and got[7][1] == "invalid record: session_id missing"
    assert got[11][0] == record.make_safe(recs[11], KEY)
    assert all(g[0] == record.make_safe(r, KEY) for i, (g, r) in enumerate(zip(got, recs, strict=True)) if i not in (3, 7, 11))


def test_the_local_sink_keeps_each_result_summary_scrubbed_as_alone():
    recs = agent_records(9, 30)
    rows = generate.rows(19, 30)
    for r, row in zip(recs[::2], rows, strict=False):
        r["result"] = {"lines": 7, "preview": row.text}
    local = prepare.Settings(KEY, (), True)
    raws = [codec.dumps(r) for r in recs]
    got = prepare.prepare_many(raws, local)
    assert got == [prepare.prepare(raw, local) for raw in raws]
    assert sum("result" in g[0] for g in got if g[0]) == 15


def test_a_scrubber_failure_on_one_record_costs_no_other(monkeypatch):
    """A scrubber bug that only one record's text triggers (injected: no real one is known)."""
    real = scrub.scrub_fields

    def scrub_fields(texts: list[str], *a: Any, **kw: Any) -> Any:
        if any("TRIGGERS-A-BUG" in t for t in texts):
            raise IndexError("a bug")
        return real(texts, *a, **kw)

    monkeypatch.setattr(scrub, "scrub_fields", scrub_fields)
    recs = agent_records(6, 12)
    recs[5]["history"] += " TRIGGERS-A-BUG"
    got = prepare.prepare_many([codec.dumps(r) for r in recs], SETTINGS)
    assert got[5][0] is None and got[5][1] is not None and "could not be made safe (IndexError)" in got[5][1]
    assert isinstance(got[5][2], IndexError)
    assert all(g[0] is not None for i, g in enumerate(got) if i != 5)


def test_a_chunk_read_from_the_spool_keeps_its_order_and_what_is_gone(home):
    recs = agent_records(7, 70)
    names = spool.enqueue(home, recs)
    os.unlink(os.path.join(home, "spool", "new", names[10]))  # delivered by someone else meanwhile
    items = prepare.prepare_chunk(home, names, SETTINGS)
    assert [it.name for it in items] == names
    assert items[10].safe is None and items[10].reason is None and items[10].error is None
    for it, r in zip(items, recs, strict=True):
        if it.name != names[10]:
            assert it.safe == record.make_safe(r, KEY) and it.size > 0


@pytest.mark.parametrize("workers", [False, True])
def test_what_the_daemon_sends_is_what_preview_shows(home, workers):
    """A backlog drained by the real daemon, by itself (no workers: the default) or with a
    worker process: every record arrives as make_safe makes it alone."""
    if workers and prepare.worker_count(1) < 1:
        pytest.skip("one core: no worker processes")
    n = prepare.MIN_BACKLOG + 100
    recs = agent_records(8, 150)
    recs += [raw_record(i) for i in range(100_000, 100_000 + n - len(recs))]
    spool.enqueue(home, recs)
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url + "/v1/records", extra="workers = 1\n" if workers else "")
        p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                           env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr
    assert spool_empty(home)
    log = os.path.join(home, "logs", "daemon.log")
    said = open(log).read() if os.path.exists(log) else ""
    assert ("worker process(es) beside the daemon" in said) == workers
    key = ids.load_key(home)
    assert key is not None
    for r in recs:
        got = srv.records[record.make_safe(r, key)["record_id"]]
        assert json.loads(json.dumps(got)) == json.loads(json.dumps(record.make_safe(r, key)))


def test_ids_and_values_cut_once_stay_within_their_own_record_when_scrubbed_together():
    """Known ids (mechanism 6) and values cut once (mechanism 7) are each record's own: batched,
    a record's raw session id still becomes its hash, a password caught in its config is cut in
    its query too, and neither reaches into the record next to it."""
    rng = random.Random(11)
    recs = agent_records(5, 40)
    planted = []
    for i, r in enumerate(recs[:30]):
        sid = "".join(rng.choice("0123456789abcdef") for _ in range(32))
        pw = "".join(rng.choice("abcdefghjkmnpqrstuvwxyzABCDEFGH23456789") for _ in range(14)) + "!7"
        r["session_id"] = sid
        r["history"] = f"run `claude --resume {sid}` then set\nDB_PASSWORD={pw}\n" + r["history"]
        r["query"] = f"why does login fail with {pw}"
        planted.append((i, sid, pw))
    recs[31]["query"] = planted[0][2][:6] + " is just a word here"
    together = record.make_safe_many(recs, KEY)
    assert together == [record.make_safe(r, KEY) for r in recs]
    for i, sid, pw in planted:
        blob = json.dumps(together[i])
        assert sid not in blob and pw not in blob
        assert ids.hash_id(sid, KEY) in together[i]["history"]
    assert together[31]["query"].startswith(planted[0][2][:6])
