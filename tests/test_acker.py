"""Acknowledged records are deleted by the daemon's acker thread, in order, with its own
directory descriptor; flush waits for them; a name already gone is no error; each deleted name
is reported (the daemon stops treating it as its own only then)."""

from __future__ import annotations

import os

from jevlin_hooks.base import spool
from jevlin_hooks.ship.acker import Acker


def test_acked_records_leave_the_spool_and_flush_waits_for_it(home):
    names = spool.enqueue(home, [{"kind": "search", "n": i} for i in range(50)])
    gone: list[str] = []
    acker = Acker(home, gone=gone.append)
    spool.pin(home)
    acker.ack(names[:20])
    spool.unpin()  # the main thread's pinned descriptors close under it: the acker has its own
    acker.ack(names[10:30] + ["never-existed.json"])
    acker.flush()
    assert sorted(os.listdir(os.path.join(home, "spool", "new"))) == sorted(names[30:])
    assert set(gone) == set(names[:30]) | {"never-existed.json"}
    acker.ack(names[30:])
    acker.close()  # close finishes what was handed over
    assert os.listdir(os.path.join(home, "spool", "new")) == []
    assert set(gone) == set(names) | {"never-existed.json"}
    acker.flush()  # after close: returns at once
