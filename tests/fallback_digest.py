"""What the scrubber returns on a fixed set of texts, as one SHA-256 per corpus and call: run by
tests/test_platform_fallbacks.py in processes where native modules are made unimportable
(tests/without/sitecustomize.py), and compared with a process where none is.

    python tests/fallback_digest.py        # prints one JSON object

The texts: the gitleaks corpus (its first 3,000, where shared/corpus is present), one seed of the
labelled agent-text rows, varied 32 KiB agent-text messages (bench/scrub_speed.py's) and the
hostile texts of bench/scrub_adversarial.py cut to 32 KiB. The calls: ``scrub`` (the clean text,
each finding's rule and span) on all of them, ``find`` (every finding before merging, in order) on
the rows and messages, and ``scrub_many`` over the rows in fives; canonical forms from
bench/scrub_equivalence.py. The default scrubber, its Hyperscan prefilter waited for where
Hyperscan is there.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from bench import scrub_adversarial, scrub_eval, scrub_speed  # noqa: E402
from bench.agent_text import generate  # noqa: E402
from bench.scrub_equivalence import canonical  # noqa: E402

PIECE = 32 * 1024


def corpora() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if os.path.exists(scrub_eval.CORPUS):
        with open(scrub_eval.CORPUS, encoding="utf-8") as f:
            out["gitleaks"] = [json.loads(line)["text"] for line in f][:3000]
    rows = [r.text for r in generate.rows(13, 700)]
    out["agent-text"] = rows
    rng = random.Random(7)
    out["messages"] = [scrub_speed.varied_message(rng, rows) for _ in range(6)] + [scrub_speed.bench_message(rng)]
    out["hostile"] = [t[:PIECE] for t in scrub_adversarial.cases().values()]
    return out


def main() -> None:
    from jevlin_hooks.privacy import automaton, regex, scrub
    from jevlin_hooks.privacy.engine import prefilter

    s = scrub.default()
    s.wait_prefilter(60)
    digests: dict[str, str] = {}
    for name, texts in corpora().items():
        calls = ["scrub"] + (["find"] if name in ("agent-text", "messages") else [])
        for call in calls:
            h = hashlib.sha256()
            for t in texts:
                h.update(json.dumps(canonical(call, getattr(s, call)(t)), ensure_ascii=True).encode() + b"\n")
            digests[f"{name} {call}"] = h.hexdigest()
        if name == "agent-text":
            h = hashlib.sha256()
            for i in range(0, len(texts), 5):
                h.update(json.dumps(canonical("scrub_many", s.scrub_many(texts[i:i + 5])), ensure_ascii=True).encode())
            digests[f"{name} scrub_many"] = h.hexdigest()
    print(json.dumps({"regex": regex.ENGINE, "automaton": automaton.ENGINE, "hyperscan": prefilter.available(),
                      "prefilter_ready": s.hyperscan is not None, "digests": digests}))


if __name__ == "__main__":
    main()
