"""What the record step adds to scrubbing (issue 28, mechanisms 6 and 7): the raw ids a record
carries become their hashes inside its texts too, and a value cut in one place is cut everywhere
in the record. Ids, secrets and texts are drawn from seeded generators; the last test drives the
whole path: real hook processes, the spool, a real daemon run, the local SQLite store.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import string
import subprocess
import sys

import pytest
from conftest import run

from jevlin_hooks.privacy import ids, known_ids, record, scrub
from jevlin_hooks.privacy.engine import EVERYWHERE

KEY = b"\x07" * 32
HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
WORDS = ("the", "deploy", "failed", "again", "retry", "because", "cache", "warm", "run", "then", "check", "logs", "züge",
         "日志", "ошибка", "after", "and", "see", "output", "build")


def _s(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def _uuid(r: random.Random) -> str:
    h = _s(r, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _an_id(r: random.Random) -> str:
    """An id as harnesses make them: a UUID, hex, a Claude tool_use_id, an OpenAI call id, a
    Hermes session or turn id, a Copilot turn id, an agent id."""
    kind = r.randrange(7)
    if kind == 0:
        return _uuid(r)
    if kind == 1:
        return _s(r, HEX, r.choice((16, 17, 32)))
    if kind == 2:
        return "toolu_01" + _s(r, ALNUM, 22)
    if kind == 3:
        return "call_" + _s(r, ALNUM, 24)
    if kind == 4:
        return f"2026{r.randint(1000, 1231)}_{r.randint(100000, 235959)}_{_s(r, HEX, 6)}"
    if kind == 5:
        return "turn-" + _s(r, HEX, 16)
    return "a" + _s(r, HEX, 16)


def _spelled(r: random.Random, raw: str) -> str:
    """One of the spellings a text may show the id in."""
    return r.choice(sorted(known_ids.spellings(raw)))


def _prose(r: random.Random, *planted: str) -> str:
    words = [r.choice(WORDS) for _ in range(r.randint(3, 25))]
    for p in planted:
        form = r.choice(["{}", "`{}`", '"{}"', "({})", "claude --resume {}", "agentId: {}", "session_{}", "{}.jsonl",
                         "id={}", '{{"tool_use_id": "{}"}}', "<{}>", "{}:"])
        words.insert(r.randrange(len(words) + 1), form.format(p))
    return " ".join(words)


def _record(r: random.Random, kind: str, texts: dict[str, str], **id_fields: str | None) -> dict[str, object]:
    rec: dict[str, object] = {"v": 1, "record_id": _s(r, HEX, 32), "kind": kind, "ts": "2026-12-03T09:41:17.000Z",
                              "harness": "claude-code", "window": 0, **id_fields, **texts}
    if kind == "search":
        rec.update(seq=1, tool="Bash", status="ok")
    return rec


@pytest.mark.parametrize("seed", range(6))
def test_raw_ids_in_texts_become_their_hashes(seed: int) -> None:
    r = random.Random(2806 + seed)
    for _ in range(60):
        sid, tid, cid, parent = _an_id(r), _an_id(r), _an_id(r), r.choice([None, _an_id(r)])
        known = [x for x in (sid, tid, cid, parent) if x]
        fields = ["history", "query"]
        texts = {f: _prose(r) for f in fields}
        planted: list[tuple[str, str]] = []
        for raw in known:
            for _ in range(r.randint(1, 2)):
                f = r.choice(fields)
                spelled = _spelled(r, raw)
                texts[f] = _prose(r, spelled) + " " + texts[f]
                planted.append((raw, spelled))
        rec = _record(r, "search", texts, session_id=sid, turn_id=tid, call_id=cid, parent_session_id=parent)
        safe = record.make_safe(rec, KEY)
        out = json.dumps(safe, ensure_ascii=False)
        for raw in known:
            for form in known_ids.spellings(raw):
                assert form not in out, (form, texts)
        for raw, _ in planted:
            assert ids.hash_id(raw, KEY) in safe["history"] + safe["query"], (raw, texts)
        assert safe["session_id"] == ids.hash_id(sid, KEY)


def test_only_whole_ids_of_some_length_are_replaced() -> None:
    r = random.Random(5)
    for _ in range(100):
        raw = _an_id(r)
        longer = raw + r.choice("abcXYZ019")
        short = _s(r, ALNUM, r.randint(1, known_ids.MIN_LENGTH - 1))
        texts = {"query": f"{longer} {r.choice(ALNUM)}{raw} {short} and {short}x", "history": ""}
        safe = record.make_safe(_record(r, "search", texts, session_id=raw, turn_id=short, call_id=short), KEY)
        assert safe["query"] == texts["query"], (raw, safe["query"])  # inside a longer token: another id


def test_a_released_record_is_not_hashed_twice() -> None:
    r = random.Random(6)
    sid = _uuid(r)
    safe = record.make_safe(_record(r, "turn_end", {"prompt": f"resume {sid}"}, session_id=sid), KEY)
    again = record.released(safe)
    assert again["prompt"] == safe["prompt"] == "resume " + ids.hash_id(sid, KEY)


def _password(r: random.Random) -> str:
    return _s(r, string.ascii_letters, 3) + _s(r, string.digits, 2) + r.choice("#%+-_!") + _s(r, ALNUM, r.randint(4, 12))


CONTEXTS = ["password: {v}", "export DB_PASSWORD={v}", 'mysql -u root -p"{v}" shop', "the password is {v}",
            "postgres://app:{v}@db.internal:5432/prod", '{{"client_secret": "{v}"}}', "Passwort: {v}"]
BARE = ["I tried {v} twice", "`{v}`", "then {v}", "echo {v} | wc -c", "it said {v}.", "({v})", "'{v}'"]


@pytest.mark.parametrize("seed", range(6))
def test_a_value_cut_once_is_cut_everywhere_in_the_record(seed: int) -> None:
    r = random.Random(2807 + seed)
    for _ in range(60):
        v = _password(r)
        found = r.choice(CONTEXTS).format(v=v)
        assert v not in scrub.scrub(found)[0], found  # cut where its context says what it is
        bare = [r.choice(BARE).format(v=v) for _ in range(r.randint(1, 3))]
        fields = {"prompt": _prose(r), "final_message": _prose(r)}
        where = r.choice(sorted(fields))
        fields[where] = found + "\n" + fields[where]
        for b in bare:
            f = r.choice(sorted(fields))
            fields[f] = fields[f] + "\n" + b
        safe = record.make_safe(_record(r, "turn_end", fields, session_id=_uuid(r)), KEY)
        assert v not in json.dumps(safe, ensure_ascii=False), (fields, safe)
        off = record.make_safe(_record(r, "turn_end", fields, session_id=_uuid(r)), KEY, (EVERYWHERE,))
        assert v in off["prompt"] + off["final_message"], "turned off, the bare copies stay"


def test_a_user_name_from_a_home_path_goes_from_prompts_and_owner_columns() -> None:
    r = random.Random(8)
    for _ in range(60):
        user = r.choice(["jdoe", "mkowalski", "sofia", "tanaka.k", "ana-maria", "lwei"]) + r.choice(["", str(r.randint(1, 99))])
        host = _s(r, string.ascii_lowercase, 6)
        path = r.choice(["/home/{u}/src/app", "/Users/{u}/Projects", "C:\\Users\\{u}\\AppData"]).format(u=user)
        text = (f"cd {path}\n{user}@{host}:~$ ls -l\n-rw-r--r--  1 {user}  staff  120 Dec  3 09:41 notes.md\n"
                f"drwxr-xr-x  4 {user}  {user}  128 Dec  3 09:40 src")
        clean = scrub.scrub(text)[0]
        assert user not in clean, clean
        assert "notes.md" in clean and host in clean


def test_short_or_plain_values_do_not_wipe_the_word_everywhere() -> None:
    for text, word in (("password: hunter\nthe hunter waits", "the hunter waits"), ("PASSWORD=4821\nport 4821 is open", "port 4821"),
                       ("DB_PASS=admin\nlog in as admin", "as admin")):
        clean = scrub.scrub(text)[0]
        assert word in clean, clean


def _drain(home: str) -> list[dict[str, object]]:
    """A real daemon run to the local SQLite store; every record body it received."""
    subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "daemon", "run", "--once"],
                   env={**os.environ, "JEVLIN_HOME": home}, check=True, capture_output=True, timeout=120)
    db = sqlite3.connect(os.path.join(home, "traces.db"))
    try:
        return [json.loads(b) for (b,) in db.execute("SELECT body FROM records")]
    finally:
        db.close()


@pytest.mark.parametrize("seed", range(3))
def test_through_the_daemon_no_raw_id_and_no_planted_secret_reaches_the_store(probe_home: str, seed: int) -> None:
    """Raw ids in random spellings and secrets (each given once in its context, then bare) planted
    in random text fields of a session's real hook payloads, shipped by a real daemon run to the
    local store (whose search rows also keep the result summary). Each text holds ids of its own
    record: a turn's prompt and final message the session's and the turn's; a search's query and
    output those and its call's; a subagent's search its agent's too."""
    r = random.Random(2808 + seed)
    sid, turn, call, agent, sub_call = _uuid(r), _uuid(r), "toolu_01" + _s(r, ALNUM, 22), "a" + _s(r, HEX, 16), "toolu_01" + _s(r, ALNUM, 22)
    pw, token = _password(r), "ghp_" + _s(r, ALNUM, 36)

    def some(*extra: str) -> str:
        return _prose(r, *extra)

    base = {"session_id": sid, "prompt_id": turn, "cwd": "/srv/app"}
    run(probe_home, {**base, "hook_event_name": "SessionStart"})
    prompt = some(f"claude --resume {_spelled(r, sid)}", _spelled(r, turn)) + f"\nthe DB password is {pw}\n" + some(pw)
    run(probe_home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt})
    for tool_id, agent_id in ((call, None), (sub_call, agent)):
        own = [sid, turn, tool_id] + ([agent_id] if agent_id else [])
        words = [_spelled(r, x) for x in r.sample(own, k=r.randint(1, len(own)))] + [f"with {pw}"] * r.randint(0, 1)
        cmd = "jevlin search '" + some(*words).replace("'", "") + "'"
        extra = {"agent_id": agent_id} if agent_id else {}
        call_payload = {**base, **extra, "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_use_id": tool_id}
        run(probe_home, {**call_payload, "hook_event_name": "PreToolUse"})
        out = some(_spelled(r, r.choice(own))) + f"\nexport GITHUB_TOKEN={token}\n" + some(f"the password is {pw}")
        run(probe_home, {**call_payload, "hook_event_name": "PostToolUse", "tool_response": {"stdout": out, "stderr": ""}})
    final = some(f"I used {pw} and {token}", _spelled(r, sid), f"turn {_spelled(r, turn)}")
    run(probe_home, {**base, "hook_event_name": "Stop", "last_assistant_message": final})
    bodies = _drain(probe_home)
    assert sorted(b["kind"] for b in bodies) == ["search", "search", "turn_end"], bodies
    assert all("preview" in b["result"] for b in bodies if b["kind"] == "search")
    sent = json.dumps(bodies, ensure_ascii=False)
    for raw in (sid, turn, call, agent, sub_call):
        for form in known_ids.spellings(raw):
            assert form not in sent, form
    assert pw not in sent and token not in sent
    turn_end = next(b for b in bodies if b["kind"] == "turn_end")
    assert ids.hash_id(sid, _key(probe_home)) in str(turn_end["prompt"]), turn_end["prompt"]


def _key(home: str) -> bytes:
    key = ids.load_key(home, create=False)
    assert key is not None
    return key
