"""docs/privacy.md, generated from the rule table and the record allow-lists.

`jevlin-hooks scrub --list-rules --markdown > docs/privacy.md`; a test keeps the two equal.
"""

from __future__ import annotations

from jevlin_hooks.privacy import record, scrub
from jevlin_hooks.privacy.rules import RULES

HEADER = """# What leaves your machine, and how to turn each part off

This page is generated from the code (`jevlin-hooks scrub --list-rules --markdown`); a test fails
when the two disagree.

Nothing is sent while `JEVLIN_TRACE=off` or `trace = "off"`. Otherwise the daemon takes each
queued record and, before any sink sees it:

1. **keeps only the fields listed below** for its kind; anything else in the record is dropped;
2. **hashes every id** (`session_id`, `turn_id`, `call_id`, `parent_session_id`,
   `parent_call_id`: the call that started a subagent, `parent_turn_id`: the root turn it was
   started in) with
   HMAC-SHA256 and the 32-byte key in `$JEVLIN_HOME/state/key` (created once, 0600; refused if
   others can read it). The same key hashes the ids `jevlin-hooks context` prints, so a search's
   in-band call id matches the shipped one. `jevlin-hooks key rotate` makes a new key: threads
   hashed before no longer join threads hashed after;
3. **scrubs every free-text field** (`history`, `query`, `prompt`, `final_message`, tool and model
   names, string values in `host_meta`) with the rules below: each finding becomes
   `[REDACTED:<rule>]`; overlapping findings merge; nothing of a secret survives. Free text is cut
   to its first 64 KiB first.

A tool's input or output is never queued, so it never leaves. Turn-end records are sent only with
`[miner] turn_end = true`.

`jevlin-hooks preview` prints exactly what would be sent for the records now queued, without
sending anything. `jevlin-hooks scrub --explain < file` shows which rules fire, with positions
and never the secret.

## Fields

"""

RULES_INTRO = """
## Scrub rules

Every rule can be turned off by name in `config.toml`:

```toml
[privacy]
disabled_rules = ["ipv4", "email"]
```

Rules run on RE2 (linear time: no input can make them slow) behind a keyword prefilter.

| rule | kind | what it removes |
| --- | --- | --- |
"""


def markdown() -> str:
    out = [HEADER]
    for kind, fields in record.ALLOWED.items():
        out.append(f"- `{kind}`: " + ", ".join(f"`{f}`" for f in fields) + "\n")
    out.append(f"- `host_meta` keys: {', '.join(f'`{k}`' for k in record.HOST_META_KEYS)}, and `redactions` "
               "(how many findings were redacted in the record)\n")
    out.append(f"- `host_meta` ids, hashed like the id fields: {', '.join(f'`{k}`' for k in record.HOST_META_IDS)} "
               "(the thread a forked Pi session came from)\n")
    out.append(RULES_INTRO)
    for r in RULES:
        desc = r.description.replace("|", "\\|")
        out.append(f"| `{r.name}` | {r.category} | {desc} |\n")
    out.append("\n## What a matching rule still leaves alone\n\n")
    out.append(scrub.LEFT_ALONE)
    return "".join(out)
