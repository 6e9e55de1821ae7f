"""docs/privacy.md, generated from the rule table and the record allow-lists.

`jevlin-hooks scrub --list-rules --markdown > docs/privacy.md`; a test keeps the two equal.
"""

from __future__ import annotations

from jevlin_hooks.base import config, spool
from jevlin_hooks.privacy import record
from jevlin_hooks.privacy.checks import LEFT_ALONE
from jevlin_hooks.privacy.checks.judges import JUDGES
from jevlin_hooks.privacy.engine import fieldend, joints, views, whole
from jevlin_hooks.privacy.rules import ALPHABETS, RULES
from jevlin_hooks.privacy.rules.printed import COMMANDS

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
   hashed before no longer join threads hashed after (quarantined records sealed under the old
   key are resealed under the new one, and it says how many). A raw id the record carries that
   also appears inside one of its texts (`claude --resume <session id>` in a prompt, `agentId: ...`,
   a query or history quoting a tool_use_id) becomes that same hash there too (see "Ids inside
   the text" below);
3. **scrubs every free-text field** (`history`, `query`, `prompt`, `final_message`, tool and model
   names, string values in `host_meta`) with the rules below: each finding becomes
   `[REDACTED:<rule>]`; overlapping findings merge; nothing of a secret survives; and a value cut
   in one place is cut wherever else it occurs in the record (see "Once found, everywhere"
   below). Free text is cut to its first 64 KiB first.

A tool's input or output never leaves. Turn-end records are sent only with
`[miner] turn_end = true`.

**The local store only**: with the local sink (the default), each search also keeps a short
summary of what it returned (`result`: how many lines came back and the first 2 KiB, scrubbed with
the same rules), so `jevlin-hooks thread` and `jevlin-hooks ui` show whether a search moved the
task along. It is not in any record's field list below, so no other sink (the platform, OTLP) can
receive it. `[privacy] local_results = false` stops it being queued at all.

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


SPLIT = """
## Encoded values, values split across lines, and whole tokens

**Layers of encoding.** A value often arrives encoded: inside a JSON string (`\\"`, `\\n`,
`\\u00e9`, a surrogate pair; JSON in a JSON string, escaped twice), as HTML or XML entities
(`&quot;`, `&#x2F;`, `&#47;`, `&amp;`), URL-encoded (`%%2F`, `%%40`), or shell-quoted (`'\\''`,
`'"'"'`, `"\\""`, `$'...'`). The scrubber also reads the text with those decoded (a *view*),
up to %(depth)d layers deep, runs the same rules on it, and redacts what they find over its whole
encoded form in the original text. A quote decoded inside a word (a password holding `"` or `'`)
is read as part of the value, and so is an escaped quote inside a quoted value, whatever stands
beside it: a value opened by a quote the text shows as is (`"password": "`) ends only at such a
quote, not at one escaped a layer deeper (`\\"`, `&quot;`, `%%22`, `\\u0022`). A `+` in a URL is
left as it is (base64 values carry it), and `%%VAR%%` references that are not UTF-8 stay as they
are. A view is built only where its trigger
occurs (a backslash, an `&`, a `%%`, a quoting idiom, a joint), and only around what it decodes.

**Values split across lines.** Agents and terminals cut long values: Python's implicit string
concatenation (`("sk-proj-abc"\\n "def")`), `"abc" + "def"`, a shell line continuation (`abc\\`
then `def` on the next line), a block of lines that each hold one piece of a token (`fold -w N`,
a base64 blob), and a pane or log viewer's hard wrap at any width: a line exactly as wide as the
pane (%(widths)s columns, or a width two lines in a row show; counted in terminal columns where
it holds wide characters) whose value goes on at the start of the next line, flush left,
indented, or behind a continuation mark (%(marks)s). Those joints are taken out in the view, and
a secret found across one is redacted over every piece and the joints. A next line that starts a
record of its own (`KEY=value`, `key: value`, a timestamp, a list bullet, a shell prompt), or a
word of prose beside the cut, is not a piece. Personal-data rules never read across a joint (two
numbers side by side are not one phone number).

**Whole tokens.** Wherever a rule matched, a secret's redaction covers the whole token it falls
in: the run of letters, digits, `_ - +` around it (`.` and `~` between them; `/` unless what
follows it reads as a word of a path or URL; `%%2F %%2B %%3D`; `=` padding at the end), and a
wrapped value's other pieces, also where a line that reaches the pane's edge goes on with a
random-looking piece at a width nothing else in the text shows. A space, a quote, `= : , ; @ & ?
#` and every other character end a token, so a key name, JSON punctuation, a URL's host and the
next word stay; a command-line flag glued to a value (`-pSECRET`) stays too. Personal data is
redacted as found.

**Field ends.** An unquoted value given to a credential-named key (`credential-assignment`,
`generic-high-entropy`, `credential-i18n`) where the key starts its field (a line, after
indentation, a list or quote mark, `export`; a `` `code span` ``; a `; `-separated setting) is
redacted to the field's end: `password = staple otter battery rocket` is one passphrase, and a
Django key's `( ) & %% #` do not end it. A shell variable's `NAME=value` is one shell word: it
ends at the first blank too (`PGPASSWORD=x psql -h host`). The field ends at the line's end, a comment (` #`, ` //`),
an aside (` (`, ` - `), two blanks or a tab, `; `, ` && `, ` || `, ` | `, the next `key=`, or the
code span's closing backtick; a value a vendor rule knows by its format (`ghp_...`) ends where the
format does, and a key inside a line (logfmt's `level=info password=x user=y`) is read as before.

Each part can be turned off like a rule, by its name in `disabled_rules`: %(names)s. YAML literal
and folded blocks (`password: |`, `api_secret: >-`) under a credential-named key are redacted line
by line (`yaml-block-secret`). Turning a rule off turns it off in the views too.

The rules for agent text (command-line passwords, cloud CLIs, base64 keys, credentials in other
languages, phone numbers, cards, IBANs, SSNs) are in the table above and turn off by name like the
others: `disabled_rules = ["phone-number", "phone-number-labelled", "payment-card", "iban",
"us-ssn"]` keeps every number, for one.
"""


LAYOUTS = """
## Tables, columns and labelled fields

What tools print is often not `KEY=value`, and a key there names the value in another cell, on
another line or in a column's header. The layout reader turns these layouts into fields (a key,
and where its value is) and a field judge decides each one:

- **tables** between `|` or box-drawing bars (Markdown, psql and mysql results, AWS CLI
  `--output table`, the boxes of `doppler secrets` and other CLIs): each row's first cell is the
  key of its second, and under a header row each cell is also under its column's name;
- **aligned columns** (`vault kv get`, `heroku config`, PowerShell's `Name  Value`, `kubectl`,
  `gcloud` and `az` table output): a first column and a second one starting at one position;
- **CSV, semicolon-separated and TSV** under a header line: each cell under its column's name
  (`User name,Password,Access key ID,...`);
- **a key on the line above its value**, as web consoles are copied (`Secret access key`, then
  the key);
- **`Name:`/`Value:` pairs** (Azure app settings, AWS SSM, GitLab variables, Kubernetes env
  lists, `{"name": ..., "value": ...}` JSON, terraform's `{"sensitive": true, "value": ...}`,
  Spring Boot's `Property:`/`Value:`, a Terraform `variable` or `output` block's `default`/`value`),
  with `Value` in the user's language (`Valeur`, `Wert`, `Значение`, `値`, `값`, ...).

`credential-field` is the first judge: a key named like a credential (the names
`credential-assignment` and `generic-high-entropy` read before `=`) whose value looks like one.
A table also holds documentation, so its value must look like a credential: a type, a default or
a description (`| password | string | ... |`), one plain word, a count or a duration
(`TOKEN_TTL_SECONDS  86400`), a mask (`****`, `sk-...abcd`), a reference (`${X}`,
`@Microsoft.KeyVault(...)`) and an empty cell stay. A value of several words is taken when it is a
passphrase (three or more words and no sentence in them) or a code in groups (a TOTP setup key).
`disabled_rules = ["credential-field"]` turns it off; `disabled_rules = ["layout"]` turns the
whole layout reader off (every field judge; the rules reading `KEY=value` still run).
"""


PERSONAL = """
## Personal data named by its field

A label or a column header says what a value is (`Telefon:`, `"date_of_birth":`, `<taxId>`, a
CSV column `national_id`, `생년월일` in a table), in any key style and many languages; the value
must then be it, judged by the field's own library where there is one: phone numbers by
libphonenumber (every country's numbering plan), national identifiers, VAT numbers and IBANs by
python-stdnum (each format's structure and check digits, over 50 countries' ids). A label naming
no country (`national_id`, `tax id`) accepts any of them. Under a label, a value that is not what
it names stays (a wrong check digit, a date under `phone`, a step's name under `name`). Inline
labels are read by the rules below; tables, CSV/TSV columns, aligned columns and a key above its
value by the layout reader, whose `personal-field` judge asks the same question and whose
findings carry the family's rule. The reader also reads tables printed with a rule of dash runs
under their header and no bars (SQLite's `.mode column`, `sqlcmd`, PowerShell), and a column
headed by a short word that hides inside others (`Tel`, `SIN`, `Nom`, `plate`) when the header
cell is that word alone. Passports, driving licences, licence plates and medical record numbers
have no check digit that holds across countries: they are taken only under a label or column
naming them. Names are also taken where a message's shape gives them: a chat message's heading,
a greeting's addressee, a list of contact details, a CJK honorific, and near a personal e-mail
address whose local part spells them. A value found by a label or a place is cut at its other
places in the text too (`everywhere`).

Each family turns off with one switch in `config.toml` (all on by default; a misspelt one is
refused), which turns off these rules:

```toml
[privacy]
national_ids = false
```

| switch | rules turned off |
| --- | --- |
"""


PRINTED = """
## Values printed alone

When a text shows a command that prints a credential and then what it printed, what it printed is
the secret, whatever it looks like (`hunter2` has no shape of its own). `printed-secret` reads the
command after a shell prompt (`$`, `%`, `#`, `❯`, `user@host:~$`, `PS C:\\>`) or alone on its line,
in a Claude-Code-like `⏺ Bash(...)` / `⎿` block, a Codex-like `exec` or `• Ran` block, or a JSON
tool call followed by its result, and takes the output's first line (a PEM block, a JSON document
or a value wrapped over lines whole). An error message (`Error: ...`, `not found`, `denied`), an
empty, masked or placeholder value, and a command in a sentence stay; where the command names what
it prints (`-field=NAME`, `printenv NAME`, `{.data.NAME}`), the name must be a credential's as
`KEY=value` reads it (`-field=username`, `printenv HOME` stay). `disabled_rules =
["printed-secret"]` turns it off. The commands:

"""


def _printed() -> str:
    rows = [f"- {c.what}" + (": the name it prints must say credential" if c.name else "") + "\n" for c in COMMANDS]
    return PRINTED + "".join(rows)


ONCE_FOUND = """
## Ids inside the text

The ids a record carries (its thread, turn and call, the parent thread, call and turn, a fork's
source) are looked for in each of its texts before scrubbing. Each occurrence, as a whole word (no
letter or digit right before or after it), becomes the id's keyed hash: the very value of the
hashed field, so the text still points at the thread or call it named, and joins it. An id of hex
digits is found in upper and lower case, and a UUID with and without its dashes; any other id
(`toolu_01...`, `call_...`) only as it is. Ids shorter than 8 characters are not looked for (a
turn numbered `3` names nothing). This is part of "nothing raw leaves" and cannot be turned off.
It covers the ids of the record itself: a turn's final message quoting the id of a call or a
subagent (which its record does not carry) keeps it.

## Once found, everywhere

A value a rule found by its context (a key name, a flag, a word such as *password*, a home path)
is cut at every other place it occurs in the same text and in the record's other texts, where its
context is gone: a password caught in a config and repeated in the narration, a user name found in
`/home/jdoe` and shown again in a prompt `jdoe@host` or an `ls -l` owner column. Such an
occurrence is redacted as `[REDACTED:<the rule that found the value>]`. Only values that cannot
be a common word spread: a user name of 3 characters or more, any other value of 8 characters or
more (a bare number only from 12 digits), or of 6 or more mixing letters with digits or symbols;
so `admin` or `1234` cut in one place does not wipe the word elsewhere. An occurrence counts only
as a whole word, unless the value is 16 characters or longer. A value a rule finds on its own (a
vendor token, a JWT, an e-mail address) is found again wherever it is anyway.

Turn it off with the name `everywhere` in the disabled rules:

```toml
[privacy]
disabled_rules = ["everywhere"]
```
"""


EXAMPLES = """
## Examples, rule by rule

Each rule removes what its examples show and leaves what its counter-examples show (a test runs
every one of them, and fails when a rule stops doing what is written here). In them,
`{alnum:36}` stands for 36 random letters and digits, and likewise `{hex:n}`, `{b64:n}` and the
other alphabets: the random part is drawn when the test runs, so that no secret-shaped string
sits in this page or in the code. A line break is shown as `\\n`, a backslash as `\\\\`.
Alphabets: %s.

"""


def _code(text: str) -> str:
    """``text`` as inline code on one line, whatever backticks it holds."""
    text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown() -> str:
    out = [HEADER]
    for kind, fields in record.ALLOWED.items():
        out.append(f"- `{kind}`: " + ", ".join(f"`{f}`" for f in fields) + "\n")
    out.append(f"- `host_meta` keys: {', '.join(f'`{k}`' for k in record.HOST_META_KEYS)}, and `redactions` "
               "(how many findings were redacted in the record)\n")
    out.append(f"- `host_meta` ids, hashed like the id fields: {', '.join(f'`{k}`' for k in record.HOST_META_IDS)} "
               "(the thread a forked Pi session came from)\n")
    out.append(f"- size: a queued record is at most {spool.MAX_RECORD >> 20} MiB, the limit hooks write and the daemon "
               f"reads, so a record a hook accepted is always read (a 12 MB prompt in CJK is 24 MiB as queued JSON). "
               f"A text longer than {spool.TEXT_LIMIT} characters is cut to that when queued and ends in "
               "`[... cut: N characters in all]` (no sink gets more of a text); a record still over the limit has "
               f"its texts cut to {spool.SHORT_TEXT} characters and its lists to {spool.SHORT_LIST} items, "
               "marked `truncated` (no hook record comes near). Ids are never cut.\n")
    out.append(RULES_INTRO)
    for r in RULES:
        desc = r.description.replace("|", "\\|")
        out.append(f"| `{r.name}` | {r.category} | {desc} |\n")
    for j in JUDGES:
        desc = j.description.replace("|", "\\|")
        out.append(f"| `{j.name}` | {j.category} | {desc} |\n")
    out.append(SPLIT % {"depth": views.MAX_DEPTH, "widths": ", ".join(map(str, sorted(joints.WRAP_WIDTHS))),
                         "marks": " ".join(f"`{m}`" for m in sorted(joints.CONTINUATION_MARKS)),
                         "names": ", ".join(f"`{n}`" for n in (*views.OFF, whole.NAME, fieldend.NAME))})
    out.append(LAYOUTS)
    out.append(PERSONAL)
    for switch, names in config.PERSONAL_FAMILIES.items():
        out.append(f"| `{switch} = false` | " + ", ".join(f"`{n}`" for n in names) + " |\n")
    out.append(_printed())
    out.append(ONCE_FOUND)
    out.append("\n## What a matching rule still leaves alone\n\n")
    out.append(LEFT_ALONE)
    out.append(EXAMPLES % ", ".join(f"`{name}`" for name in ALPHABETS))
    rows: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [(r.name, r.examples, r.counter_examples) for r in RULES]
    rows += [(j.name, j.examples, j.counter_examples) for j in JUDGES]
    for name, shown, left in rows:
        out.append(f"- `{name}` removes " + ", ".join(map(_code, shown)))
        if left:
            out.append("; leaves " + ", ".join(map(_code, left)))
        out.append("\n")
    return "".join(out)
