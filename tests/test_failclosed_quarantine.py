"""Issue 29, the quarantine's edges (items 3, 8 and the file-name half of 16): the CLI, the real
daemon as a subprocess, a real sink server on 127.0.0.1, real files."""

from __future__ import annotations

import json
import os
import time

from fault_server import FaultServer
from test_daemon import raw_record, spool_empty, write_config
from test_failclosed_daemon import cli
from test_failclosed_daemon_records import GH, RAW_CALL, RAW_SESSION, quarantine_bytes, secret_record

from jevlin_hooks.base import spool
from jevlin_hooks.privacy import ids, record

QDIR = ("spool", "quarantine")


def put_entry(home: str, name: str, body: dict) -> None:
    """A quarantine entry as an older version left it, or as someone copied it in by hand."""
    qdir = os.path.join(home, *QDIR)
    os.makedirs(qdir, mode=0o700, exist_ok=True)
    with open(os.path.join(qdir, name), "w") as f:
        json.dump(body, f)


def safe_entry(safe: dict) -> dict:
    return {"quarantine": 1, "at": time.time(), "reason": "jevlin: HTTP 400: schema says no",
            "kind": safe.get("kind"), "record_id": safe.get("record_id"), "safe": safe}


# --- 3: release makes an entry safe again with today's rules -------------------------------------

def test_release_refuses_an_entry_whose_ids_are_not_hashes(home):
    write_config(home)
    ids.load_key(home)
    put_entry(home, "00000001764500000000000000.1234.deadbeef.json", safe_entry(secret_record(0)))
    p = cli(home, "quarantine", "release")
    assert p.returncode == 1 and "0 quarantined record(s) queued again" in p.stdout
    (line,) = p.stderr.splitlines()
    assert line == ("jevlin-hooks: not released: deadbeef: refused, left in quarantine: session_id is not a "
                    "hashed id (an entry of an older version, or copied in by hand): never sent, it could be a raw id")
    assert spool.count(home, "new") == 0 and spool.count(home, "quarantine") == 1


def test_release_scrubs_again_with_todays_rules_and_sends_no_secret(home):
    """An entry whose text an older version's rules let through: the token is redacted before it
    is queued again and again before it is sent; its ids (hashes) are not hashed twice."""
    key = ids.load_key(home)
    safe = record.make_safe(raw_record(1, RAW_SESSION), key)
    safe.update(history=f"I will use the token {GH} now.", query=f"rotate {GH}")  # as older rules left it
    put_entry(home, "00000001764500000000000001.1234.cafe0001.json", safe_entry(safe))
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        p = cli(home, "quarantine", "release", "cafe0001")
        assert p.returncode == 0 and "1 quarantined record(s) queued again" in p.stdout, p.stderr
        queued = b"".join(open(os.path.join(home, "spool", "new", n), "rb").read()
                          for n in os.listdir(os.path.join(home, "spool", "new")))
        assert GH.encode() not in queued and b"[REDACTED:" in queued
        assert cli(home, "daemon", "run", "--once").returncode == 0
        assert spool_empty(home) and spool.count(home, "quarantine") == 0
        (got,) = srv.records.values()
        assert all(GH.encode() not in body for body in srv.raw)
    assert "[REDACTED:" in got["history"] and "[REDACTED:" in got["query"]
    assert got["session_id"] == safe["session_id"] == ids.hash_id(RAW_SESSION, key), "hashed once"
    assert got["host_meta"]["redactions"] >= 2


def test_a_released_record_with_raw_ids_planted_in_the_queue_is_never_sent(home):
    with FaultServer() as srv:
        write_config(home, "jevlin", srv.url)
        ids.load_key(home)
        new = os.path.join(home, "spool", "new")
        os.makedirs(new, mode=0o700)
        with open(os.path.join(new, f"{time.time_ns():020d}.1.0badc0de.json"), "w") as f:
            json.dump({"v": 1, "released": 1, "safe": secret_record(2)}, f)
        assert cli(home, "daemon", "run", "--once").returncode == 0
        assert srv.received == {} and all(RAW_SESSION.encode() not in b for b in srv.raw)
    assert spool_empty(home) and spool.count(home, "quarantine") == 1
    assert "session_id is not a hashed id" in cli(home, "quarantine", "list").stdout
    for raw in (RAW_SESSION, RAW_CALL, GH):
        assert raw.encode() not in quarantine_bytes(home)


# --- 8: key rotate keeps sealed entries readable -----------------------------------------------

def quarantine_one_sealed_one_safe(home: str) -> tuple[str, str]:
    """Through the real daemon: a record that can never be made safe (sealed) and one the
    platform refuses (kept in safe form). Their ids in `quarantine list`."""
    with FaultServer(["reject:1"]) as srv:
        write_config(home, "jevlin", srv.url)
        bad = secret_record(0)
        bad["window"] = "zero"
        spool.enqueue(home, [bad, secret_record(1)])
        assert cli(home, "daemon", "run", "--once").returncode == 0
    listed = cli(home, "quarantine", "list").stdout.splitlines()
    sealed = next(line.split()[0] for line in listed if " sealed " in line)
    safe = next(line.split()[0] for line in listed if " safe " in line)
    return sealed, safe


def test_key_rotate_reseals_sealed_entries_and_says_what_it_did(home):
    sealed, safe = quarantine_one_sealed_one_safe(home)
    old = ids.load_key(home)
    p = cli(home, "key", "rotate", "--yes")
    assert p.returncode == 0, p.stderr
    assert "quarantine: 1 sealed record(s) resealed under the new key" in p.stdout
    assert "quarantine: 1 safe record(s) unchanged: their ids stay hashed with the old key" in p.stdout
    assert ids.load_key(home) != old
    assert not os.path.exists(os.path.join(home, "state", "key.previous")), "the old key is not kept"
    for raw in (RAW_SESSION, RAW_CALL, GH):
        assert raw.encode() not in quarantine_bytes(home)
    p = cli(home, "quarantine", "release", sealed)
    assert p.returncode == 0 and "1 quarantined record(s) queued again" in p.stdout, p.stderr
    (back,) = spool.read_all(home, "new")
    assert back["window"] == "zero" and back["session_id"] == RAW_SESSION, "the record as it was sealed"
    assert safe in cli(home, "quarantine", "list").stdout


def test_a_rotation_stopped_half_way_still_opens_and_is_finished_by_the_next(home):
    """The state a crash between writing the new key and resealing leaves: the old key as
    state/key.previous, the entry still under it."""
    sealed, _ = quarantine_one_sealed_one_safe(home)
    old = ids.load_key(home)
    sdir = os.path.join(home, "state")
    fd = os.open(os.path.join(sdir, "key.previous"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, old)
    os.close(fd)
    ids.rotate_key(home)  # then the crash
    p = cli(home, "key", "rotate", "--yes")
    assert p.returncode == 0 and "1 sealed record(s) resealed" in p.stdout, p.stdout + p.stderr
    assert not os.path.exists(os.path.join(sdir, "key.previous"))
    p = cli(home, "quarantine", "release", sealed)
    assert p.returncode == 0, p.stderr
    assert spool.read_all(home, "new")[0]["window"] == "zero"


def test_rotation_is_refused_while_sealed_entries_cannot_be_resealed(home):
    quarantine_one_sealed_one_safe(home)
    key = os.path.join(home, "state", "key")
    before = open(key, "rb").read()
    os.chmod(key, 0o644)
    p = cli(home, "key", "rotate", "--yes")
    assert p.returncode == 1 and f"key unchanged: state/key is readable by others (mode 644); run `chmod 600 {key}`" \
        in p.stderr, p.stderr
    assert open(key, "rb").read() == before


def test_the_daemon_says_chmod_for_a_key_with_the_wrong_mode_not_rotate(home):
    write_config(home)
    ids.load_key(home)
    key = os.path.join(home, "state", "key")
    os.chmod(key, 0o640)
    spool.enqueue(home, [raw_record(0)])
    p = cli(home, "daemon", "run", "--once")
    assert p.returncode == 1
    problem = next(line for line in cli(home, "status").stdout.splitlines() if "cannot use the local key" in line)
    assert f"state/key is readable by others (mode 640); run `chmod 600 {key}`" in problem, problem
    assert "rotate" not in problem
    doctor = cli(home, "doctor").stdout
    assert f"run `chmod 600 {key}`" in doctor and "rotate" not in doctor


# --- 16: quarantine list makes file names inert -------------------------------------------------

def test_quarantine_list_shows_a_hostile_file_name_escaped_and_can_select_it(home):
    write_config(home)
    key = ids.load_key(home)
    name = "evil\x1b]52;c;aGk=\x07\n\u202eX.json"  # an OSC 52 clipboard write, a line break, a bidi override
    put_entry(home, name, safe_entry(record.make_safe(raw_record(3), key)))
    p = cli(home, "quarantine", "list")
    assert p.returncode == 0
    (line,) = p.stdout.splitlines()
    assert "\x1b" not in p.stdout and "\x07" not in p.stdout and "\u202e" not in p.stdout
    shown = line.split()[0]
    assert shown == "evil\\x1b]52;c;aGk=\\x07\\x0a\\u202eX"
    p = cli(home, "quarantine", "release", shown)
    assert p.returncode == 0 and "1 quarantined record(s) queued again" in p.stdout, p.stderr
    assert spool.count(home, "quarantine") == 0 and spool.count(home, "new") == 1
