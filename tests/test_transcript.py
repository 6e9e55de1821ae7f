"""Transcript tail reading: right text, right turn, and a bounded cost whatever the file size."""

from __future__ import annotations

import json
import os

import pytest

from jevlin_hooks import replay
from jevlin_hooks.capture import transcript

T = os.path.join(replay.data_dir(), "transcripts")
MAIN = os.path.join(T, "basic", "9291ef5c-ce95-4fb4-83c9-c62badd920cd.jsonl")
SUB = os.path.join(T, "subagent", "9c6348be-271d-4ac2-abe5-e2d8cbfe883e.jsonl")
AGENT = os.path.join(T, "subagent", "agent-a055573b55a64ddb3.jsonl")


def line(obj) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


def assistant(mid: str, blocks: list, model: str = "m1", usage=None) -> str:
    return line({"type": "assistant", "message": {"id": mid, "role": "assistant", "model": model, "content": blocks,
                                                  "usage": usage or {"input_tokens": 10, "output_tokens": 5}}})


def user(pid: str, content) -> str:
    return line({"type": "user", "promptId": pid, "message": {"role": "user", "content": content}})


def test_history_from_real_transcripts():
    assert transcript.history(SUB, "toolu_cc_0020") == (
        "This needs the migration conventions and a look at the refund model; I'll hand the convention lookup to "
        "a subagent while I read the code.")
    assert transcript.history(AGENT, "toolu_cc_0022") == "Searching the team docs for the migration pattern."
    assert transcript.history(SUB, "toolu_missing") is None


def test_history_is_this_turns_text_before_the_call(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text(
        user("p1", "first prompt") + assistant("m1", [{"type": "text", "text": "old turn text"}])
        + user("p2", "second prompt")
        + assistant("m2", [{"type": "text", "text": "Thinking about it."}])
        + assistant("m2", [{"type": "tool_use", "id": "call_a", "name": "Bash", "input": {}}])
        + user("p2", [{"type": "tool_result", "tool_use_id": "call_a", "content": "SECRET OUTPUT"}])
        + assistant("m3", [{"type": "text", "text": "Now the second search."},
                           {"type": "tool_use", "id": "call_b", "name": "Bash", "input": {}}])
        + '{"type":"assistant","partial li'  # a line still being written
    )
    assert transcript.history(str(p), "call_a") == "Thinking about it."
    assert transcript.history(str(p), "call_b") == "Thinking about it.\n\nNow the second search."


def test_history_is_capped_at_32_kib(tmp_path):
    p = tmp_path / "t.jsonl"
    big = "x" * 20000
    p.write_text(user("p", "go") + "".join(assistant(f"m{i}", [{"type": "text", "text": f"{i}{big}"}]) for i in range(5))
                 + assistant("mz", [{"type": "tool_use", "id": "c", "name": "Bash", "input": {}}]))
    h = transcript.history(str(p), "c")
    assert len(h.encode()) == transcript.HISTORY_LIMIT and h.endswith("x")


def test_turn_summary_counts_each_message_once():
    s = transcript.turn_summary(MAIN, "da67ffb2-675f-4f3d-b8a0-db8c673d90c2")
    assert s["tokens"] == {"input": 200, "output": 40, "cache_read": 0, "cache_creation": 0}
    assert s["messages"] == 2 and s["last_text"].startswith("Our convention: retries=3 on the transport")
    s = transcript.turn_summary(SUB, "44f6f3b2-0198-4fa7-a97c-fe770c393004")  # the subagent's report, one answer
    assert s["messages"] == 1 and s["tokens"]["input"] == 100


def test_huge_transcript_costs_the_same(tmp_path, monkeypatch):
    """200 MB before the turn (sparse, so the test is cheap): only the tail is read."""
    p = tmp_path / "huge.jsonl"
    with open(p, "wb") as f:
        f.truncate(200 << 20)
        f.seek(0, 2)
        f.write(b"\n" + (user("p", "go") + assistant("m", [{"type": "text", "text": "tail text"},
                                                          {"type": "tool_use", "id": "c1", "name": "Bash", "input": {}}])).encode())
    read = []
    real = os.pread
    monkeypatch.setattr(os, "pread", lambda fd, n, off: read.append(n) or real(fd, n, off))
    assert transcript.history(str(p), "c1") == "tail text"
    assert sum(read) <= transcript.BLOCK
    read.clear()
    assert transcript.history(str(p), "not-there") is None
    assert sum(read) <= transcript.MAX_SCAN
    read.clear()
    transcript.turn_summary(str(p), "p")
    assert sum(read) <= transcript.BLOCK


@pytest.mark.parametrize("content", [b"", b"\n\n\n", b"\xff\xfe garbage\n{]\n", b'{"type":"assistant"}\n'])
def test_garbage_transcripts(tmp_path, content):
    p = tmp_path / "g.jsonl"
    p.write_bytes(content)
    assert transcript.history(str(p), "c") is None
    assert transcript.turn_summary(str(p), "p")["found"] is False


def test_polling_for_a_late_call_reads_only_the_appended_bytes(tmp_path):
    """PostToolUse waits for Claude Code's lazy flush: after the first look (the bounded tail),
    each poll reads what was appended since, and finds what a full read would."""
    p = tmp_path / "t.jsonl"
    filler = "".join(user("old", [{"type": "tool_result", "tool_use_id": f"x{i}", "content": "o" * 4000}])
                     for i in range(1000))  # 4 MB of an earlier turn's tool output
    complete = filler + user("p2", "search please") + assistant("m1", [{"type": "text", "text": "First I look."}])
    p.write_text(complete + '{"type":"assistant","partial')  # Claude Code is mid-write
    poll = transcript.HistoryPoll(str(p), "call_late")
    assert poll.poll() is None
    first = poll.bytes_read
    assert first >= len(filler)  # the first look reads the tail backwards
    with open(p, "a") as f:  # the rest of that line, another text, and more of nothing yet
        f.write(' line"}\n' + assistant("m2", [{"type": "text", "text": "Then the docs."}]))
    grown = os.path.getsize(p)
    assert poll.poll() is None
    assert poll.bytes_read - first == grown - len(complete)  # from the last complete line on
    assert poll.poll() is None and poll.bytes_read - first == grown - len(complete)  # nothing new: nothing read
    call = assistant("m3", [{"type": "text", "text": "Searching now."},
                            {"type": "tool_use", "id": "call_late", "name": "Bash", "input": {}}])
    with open(p, "a") as f:
        f.write(call)
    before = poll.bytes_read
    got = poll.poll()
    assert poll.bytes_read - before == len(call)  # only the new line
    assert got == "First I look.\n\nThen the docs.\n\nSearching now." == transcript.history(str(p), "call_late")
    assert poll.info["model"] == "m1"


def test_polling_starts_over_at_a_new_turn_or_a_replaced_file(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text(user("p1", "one") + assistant("m1", [{"type": "text", "text": "old turn"}]))
    poll = transcript.HistoryPoll(str(p), "c9")
    assert poll.poll() is None
    with open(p, "a") as f:
        f.write(user("p2", "two") + assistant("m2", [{"type": "text", "text": "new turn"},
                                                     {"type": "tool_use", "id": "c9", "name": "Bash", "input": {}}]))
    assert poll.poll() == "new turn" == transcript.history(str(p), "c9")
    q = transcript.HistoryPoll(str(p), "c10")
    assert q.poll() is None
    p.write_text(assistant("m", [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "c10", "name": "Bash", "input": {}}]))
    assert q.poll() == "x"  # shorter than before: read again from the tail
