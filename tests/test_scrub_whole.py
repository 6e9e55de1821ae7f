"""No fragments, by construction (privacy/engine/whole.py): a secret's cut covers the whole token
it falls in, wrapped pieces included, and nothing beside it. Built from random values: random
secrets in many alphabets and lengths, random wraps (any width, indentation, continuation mark),
random encodings, random neighbours on both sides."""

from __future__ import annotations

import json
import random
import re
import string
from urllib.parse import quote

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from jevlin_hooks.privacy import scrub
from jevlin_hooks.privacy.engine import Finding, Scrubber, whole
from jevlin_hooks.privacy.engine import joints as joints_
from jevlin_hooks.privacy.engine.text import one_byte_view

B64 = string.ascii_letters + string.digits + "+/"
B64URL = string.ascii_letters + string.digits + "-_"
ALPHABETS = [string.hexdigits.lower(), string.ascii_letters + string.digits, B64, B64URL, string.ascii_uppercase + "234567"]
# characters that end a token, whatever the token (whole.py's docstring)
STOPS = " \t\"'=:,;@&?#\\()[]{}<>|`!*$^\u00e9\u4e2d"
SECRET = frozenset(r.name for r in scrub.default().rules if r.category == "secret")


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))


def _token(rng: random.Random) -> str:
    alphabet = rng.choice(ALPHABETS)
    parts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(4, 60))) for _ in range(rng.choice([1, 1, 1, 2, 3]))]
    tok = rng.choice(".~").join(parts) if rng.random() < 0.3 else "".join(parts)
    if alphabet == B64 and rng.random() < 0.5:
        tok += "=" * rng.randint(1, 2)
    return tok


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**64))
@example(9995489338541062729)  # -ljU_HMAu4 cut after -l: read as a flag glued to its value
@example(16971653031871509317)  # -hiEO0wG... cut after -hi
def test_a_cut_grows_to_its_token_and_no_further(seed: int) -> None:
    rng = random.Random(seed)
    tok = _token(rng)
    left = _word(rng) + rng.choice(STOPS)
    right = rng.choice(STOPS.replace("=", "") if tok.endswith("=") else STOPS) + _word(rng)
    text = left + tok + right
    body = len(tok.rstrip("="))  # (no rule matches padding alone)
    a = rng.randrange(body)
    b = rng.randint(a + 1, len(tok))
    got = whole.whole(text, one_byte_view(text), [Finding("github-token", len(left) + a, len(left) + b)], [], SECRET)
    # a / is crossed unless the segment beyond it reads as a path's word; the token's own
    # segments are random, but a short one can read as a word: then the cut may stop there
    s, e = got[0].start, got[0].end
    assert s <= len(left) + a and e >= len(left) + b
    if whole._FLAG.fullmatch(text, len(left), len(left) + a):
        # a token that starts like a flag (-l, -hi) cut just after it: mysql -pSECRET, the flag stays
        assert s == len(left) + a, (text, text[s:e])
        left, tok = left + tok[:a], tok[a:]
    assert text[:s].endswith(left) or "/" in tok, (text, text[s:e])
    assert text[e:].startswith(right) or "/" in tok, (text, text[s:e])
    if "/" not in tok:
        assert (s, e) == (len(left), len(left) + len(tok)), (text, text[s:e])


def test_neighbours_that_are_not_the_token_stay() -> None:
    rng = random.Random(7)
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40))
    cases = {
        f"api_key={body}": "api_key=",  # a key name
        f'{{"token": "{body}", "id": "4f1c"}}': '"id": "4f1c"',  # JSON punctuation and the next pair
        f"https://api.example.com/v1/keys/{body}/charges": "https://api.example.com/v1/keys/",  # a URL's path
        f"/home/dev/.cache/{body}": "/home/dev/.cache/",
        f"token {body}. Next sentence": ". Next sentence",
        f"user:{body}@db.example.com:5432": "@db.example.com:5432",
        f"{body}&se=2027-08-01&sp=rl": "&se=2027-08-01&sp=rl",
        f"Bearer {body} 3f2a9c1e-7b4d-4e21-9a6f-0c8b5d2e1f70": " 3f2a9c1e-7b4d-4e21-9a6f-0c8b5d2e1f70",
    }
    for text, stays in cases.items():
        at = text.index(body)
        got = whole.whole(text, one_byte_view(text), [Finding("github-token", at + 5, at + 20)], [], SECRET)
        s, e = got[0].start, got[0].end
        assert text[s:e] == body, (text, text[s:e])
        assert stays in text[:s] + "#" + text[e:], text


def test_personal_data_is_left_as_found() -> None:
    text = "call +44 20 7946 0958-ext12 now"
    f = Finding("phone-number", 5, 21)
    assert whole.whole(text, one_byte_view(text), [f], [], SECRET) == [f]


def test_a_cut_crosses_the_joints_of_a_wrapped_value() -> None:
    rng = random.Random(3)
    tok = "".join(rng.choice(B64URL) for _ in range(150))
    text = "echo $TOKEN\n" + tok[:80] + "\n    " + tok[80:] + "\n$ next"
    cuts = joints_.joints(text, one_byte_view(text))
    assert cuts, text
    at = text.index(tok[:80])
    got = whole.whole(text, one_byte_view(text), [Finding("github-token", at, at + 30)], cuts, SECRET)
    assert text[got[0].start:got[0].end] == tok[:80] + "\n    " + tok[80:]


# --- after scrubbing: no 8 characters of the planted secret -------------------------------------

def _r(rng: random.Random, alphabet: str, lo: int, hi: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


ALNUM = string.ascii_letters + string.digits
# vendor-shaped secrets, some longer than their rule's pattern reaches
SECRETS = [
    lambda r: "ghp_" + _r(r, ALNUM, 36, 60),
    lambda r: "sk-proj-" + _r(r, B64URL, 40, 160),
    lambda r: "npm_" + _r(r, ALNUM, 36, 70),
    lambda r: "glpat-" + _r(r, B64URL, 20, 40),
    lambda r: "xoxb-" + _r(r, string.digits, 10, 12) + "-" + _r(r, ALNUM, 24, 40),
    lambda r: "eyJ" + _r(r, B64URL, 12, 40) + ".eyJ" + _r(r, B64URL, 20, 90) + "." + _r(r, B64URL, 20, 60),
    lambda r: "AKIA" + _r(r, string.ascii_uppercase + "234567", 16, 16),
    lambda r: "sk_live_" + _r(r, ALNUM, 24, 99),
    lambda r: "hvs." + _r(r, B64URL, 24, 90),
    lambda r: "pypi-AgEIcHlwaS5vcmc" + _r(r, B64URL, 40, 180),
]
# how the value is introduced
INTROS = ["export API_TOKEN={}", "api_key: {}", "Authorization: Bearer {}", "{}", "token={}&expires=3600", "--token {} --verbose"]
MARKS = ["", "", "  ", "    ", "\t", "↪ ", "      "]


def _wrap(line: str, width: int, indent: str) -> str:
    """``line`` hard-wrapped as a terminal does: ``width`` characters, then continuations of the
    same width behind ``indent``."""
    if len(line) <= width:
        return line
    out, pos = [line[:width]], width
    step = width - len(indent)
    while pos < len(line):
        out.append(indent + line[pos:pos + step])
        pos += step
    return "\n".join(out)


def _left_of(secret: str, clean: str) -> list[str]:
    return [secret[i:i + 8] for i in range(len(secret) - 7) if secret[i:i + 8] in clean]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**64))
@example(12979745565757596879)  # a vault token's piece WAQ8_87K wrapped to a line's start: reads as ENV_NAME
def test_no_piece_of_a_secret_is_left_wrapped_or_encoded(seed: int) -> None:
    # values drawn from a seed, not shrunk by hypothesis: a secret that shrinks to aaaa... is a
    # placeholder, rightly left alone
    rng = random.Random(seed)
    secret = rng.choice(SECRETS)(rng)
    before, after = _word(rng) + " " + _word(rng), _word(rng) + " " + _word(rng)
    line = f"{before} {rng.choice(INTROS).format(secret)} {after}"
    how = rng.choice(["plain", "wrap", "json", "json2", "url"])
    if how == "wrap":
        # a pane at least 40 columns wide, cutting the secret
        width = rng.randint(max(40, line.index(secret) + 2), max(40, min(160, line.index(secret) + len(secret) - 2)))
        indent = rng.choice(MARKS)[:max(0, width - 10)]
        text = f"$ cat notes.txt\n{_wrap(line, width, indent)}\n$ exit"
        # At a width of its own (not 64, 76, 80, 100, 120, 132, 160) a wrap is told by the pane's
        # other lines of that width (a pane wraps every long line at one width); without them,
        # only a cut that reaches the line's end is carried over (joints.continues), and a value
        # cut before any rule can match its first piece is not found. (Enough prose for two lines
        # in a row cut inside a word: a pane's line that ends on a space shows no width.)
        if width not in joints_.WRAP_WIDTHS or rng.random() < 0.5:
            text += "\n" + _wrap(" ".join(_word(rng) for _ in range(80)), width, indent)
        # a piece of the value that reads as a word of prose is not joined (joints._word_beside):
        # the random value happened to cut into words
        pieces = [ln.removeprefix(indent).split(" ")[0] for ln in _wrap(line, width, indent).split("\n")[1:]]
        pieces += [ln.split(" ")[-1] for ln in _wrap(line, width, indent).split("\n")[:-1]]
        assume(not any(p.isalpha() and (p[1:].islower() or p.isupper()) and p in secret for p in pieces))
        # nor a continuation that reads as a bare ENV_NAME (WAQ8_87K): the next record's (joints._RECORD_START)
        assume(not any(re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*", p) and not re.search(r"[0-9][A-Z]+[0-9]", p)
                       and p in secret for p in pieces))
    elif how == "plain":
        text = line
    elif how in ("json", "json2"):
        text = json.dumps({"type": "tool_result", "content": line}, ensure_ascii=rng.random() < 0.5)
        if how == "json2":
            text = json.dumps({"message": text})
    else:
        text = f"GET /cb?state={_word(rng)}&note={quote(line, safe='')} HTTP/1.1"
    clean = scrub.scrub(text)[0]
    assert not _left_of(secret, clean.replace("\n", "").replace("↪ ", "")), (how, text, clean)
    for w in (before.split()[0], after.split()[-1]):
        assert w not in text or w in clean, (w, text, clean)  # (a word the wrap cut in two is not looked for)


def test_whole_token_can_be_turned_off() -> None:
    s = Scrubber()
    rng = random.Random(1)
    body = "ghp_" + "".join(rng.choice(ALNUM) for _ in range(36))
    text = f"x-{body}"
    assert s.scrub(text)[0] == "[REDACTED:github-token]"
    assert s.scrub(text, [whole.NAME])[0] == "x-[REDACTED:github-token]"


def test_a_token_that_starts_with_its_prefix_is_not_carried_onto_the_line_above() -> None:
    """A match that starts with its rule's keyword starts its token: a random-looking value ending
    the line above (a public key, a digest, an id) is not taken for the token's wrapped first piece."""
    rng = random.Random(28)
    bech32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
    for _ in range(200):
        above = rng.choice(["# public key: age1" + _r(rng, bech32, 58, 58), "recipient " + _r(rng, ALNUM, 40, 90),
                            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + _r(rng, ALNUM + "+/", 43, 43)])
        secret = rng.choice([lambda: "AGE-SECRET-KEY-1" + _r(rng, string.ascii_uppercase + "023456789", 58, 58),
                             lambda: "ghp_" + _r(rng, ALNUM, 36, 36), lambda: "glpat-" + _r(rng, B64URL, 20, 20)])()
        text = f"$ cat key.txt\n{above}\n{secret}\n$ exit"
        clean = scrub.scrub(text)[0]
        assert above.split()[-1] in clean and not _left_of(secret, clean), (text, clean)
