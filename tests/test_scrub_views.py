"""Layers of encoding (privacy/engine/views.py, joints.py): each part reads back what its encoding
wrote, maps every character back to what encoded it, and a secret seen through any of them is
cut whole in the original text. Built from random values."""

from __future__ import annotations

import html
import json
import random
import re
import shlex
import string
import unicodedata
import uuid
from urllib.parse import quote

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from jevlin_hooks import config_cmd
from jevlin_hooks.privacy import docs, scrub
from jevlin_hooks.privacy.engine import Scrubber, joints, views, whole
from jevlin_hooks.privacy.engine.text import one_byte_view

TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\t\"'\\/&%<>"), max_size=80)
ALNUM = string.ascii_letters + string.digits
# what a generated password may hold (no space: a value with a space is a phrase, another rule's)
PASSWORD = ALNUM + "!#$%&()*+,-./:;<=>?@[]^_{|}~\"'"


def _plain(text: str) -> str:
    """A view's text with the quotes read inside a word put back."""
    return text.replace("”", "\"").replace("’", "'")


@settings(max_examples=300, deadline=None)
@given(TEXT, st.booleans())
def test_json_escapes_read_back_and_map_each_character_to_its_escape(plain: str, ascii_only: bool) -> None:
    enc = json.dumps(plain, ensure_ascii=ascii_only)[1:-1]
    lay = views.layer(enc, views.escapes(enc))
    assert lay.text == plain
    for i, ch in enumerate(plain):
        s, e = lay.parent(i, i + 1)
        assert json.loads('"' + enc[s:e] + '"') == ch  # a character outside the BMP: its surrogate pair


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_entities_and_url_encoding_read_back(plain: str) -> None:
    enc = html.escape(plain)
    assert views.layer(enc, views.entities(enc)).text == plain
    printable = "".join(c for c in plain if c.isprintable() or c in "\n\t")
    enc = quote(printable, safe="")
    lay = views.layer(enc, views.percents(enc))
    assert lay.text == printable
    for i, ch in enumerate(printable):
        s, e = lay.parent(i, i + 1)
        assert enc[s:e] == quote(ch, safe="")


@settings(max_examples=200, deadline=None)
@given(st.text(ALNUM + " :,{}[]-_.!?", max_size=60), st.integers(1, 3))
def test_json_in_json_is_read_layer_by_layer(plain: str, depth: int) -> None:
    enc = plain
    for _ in range(depth):
        enc = json.dumps({"v": enc})
    layers, _ = views.layers(enc, one_byte_view(enc), set())
    final = layers[-1].text if layers else enc
    assert _plain(final).count(plain) >= 1 and len(layers) <= views.MAX_DEPTH


def test_shell_quoting_reads_as_one_word() -> None:
    for enc, view in [("pw='ab'\\''cd'", "pw='ab’cd'"), ("pw=$'a\\x41\\tb\\'c'", "pw='aA\tb’c'"),
                      ('pw="ab"\\""cd"', "pw=\"ab”cd\""), ("""x='it'"'"'s'""", "x='it’s'"),
                      # two idioms in a row quote two quotes of one word
                      ("pw='a'\\'''\\''b'", "pw='a’’b'"), ("""pw='a'"'"''"'"'b'""", "pw='a’’b'")]:
        assert views.layer(enc, views.decoded(enc, set())).text == view, enc


def test_a_quote_inside_a_word_keeps_the_value_whole() -> None:
    rng = random.Random(11)
    for _ in range(200):
        pw = "".join(rng.choice(ALNUM) for _ in range(8)) + rng.choice("\"'") + "".join(rng.choice(ALNUM) for _ in range(8))
        text = json.dumps({"user": "app", "password": pw})
        clean = scrub.scrub(text)[0]
        assert pw[:8] not in clean and pw[-8:] not in clean and '"user": "app"' in clean, (text, clean)


def _password(rng: random.Random) -> str:
    while True:
        pw = "".join(rng.choice(PASSWORD) for _ in range(rng.randint(12, 24)))
        if pw[0] in ALNUM and sum(c.isdigit() for c in pw) and sum(c.isalpha() for c in pw) > 3:
            return pw


def _secret(rng: random.Random) -> tuple[str, str]:
    """A random secret and a line that holds it as a rule knows it."""
    kind = rng.randrange(5)
    if kind == 0:
        pw = _password(rng)
        return pw, rng.choice([json.dumps({"username": "svc", "password": pw}), f"DB_PASSWORD={shlex.quote(pw)}"])
    if kind == 1:
        tok = "ghp_" + "".join(rng.choice(ALNUM) for _ in range(36))
        return tok, f"GITHUB_TOKEN={tok}"
    if kind == 2:
        key = "".join(rng.choice(ALNUM + "+/") for _ in range(86)) + "=="
        return key, f"DefaultEndpointsProtocol=https;AccountName=st{rng.randrange(99)};AccountKey={key};EndpointSuffix=core.windows.net"
    if kind == 3:
        body = "\n".join("".join(rng.choice(ALNUM + "+/") for _ in range(64)) for _ in range(6))
        pem = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
        return pem, json.dumps({"type": "service_account", "private_key": pem})
    tok = "sk-proj-" + "".join(rng.choice(ALNUM + "-_") for _ in range(rng.randint(40, 120)))
    return tok, f"Authorization: Bearer {tok}"


def test_an_escaped_quote_inside_a_value_beside_any_character_keeps_it_whole() -> None:
    """A value opened by a quote its text shows as is closes only at such a quote: one escaped a
    layer deeper (\\" &quot; %22 \\u0022) is part of it, whatever stands beside it. (Not a colon:
    a value that reads Word: is a label, and one followed by ": the next key of an object.)"""
    rng = random.Random(28)
    for _ in range(300):
        q = rng.choice("\"'")
        pw = "".join(rng.choice(ALNUM) for _ in range(8)) + rng.choice(";,{}[]()<>=\\") + q \
            + rng.choice(["", rng.choice(";,{}[]()<=")]) + "".join(rng.choice(ALNUM) for _ in range(8))
        line = json.dumps({"user": "app", "password": pw})
        for how, text in [("plain", line), *_encodings(rng, line)]:
            clean = scrub.scrub(text)[0]
            assert pw[:8] not in clean and pw[-8:] not in clean, (how, text, clean)
            assert "user" in clean and "app" in clean, (how, text, clean)


def _encodings(rng: random.Random, line: str) -> list[tuple[str, str]]:
    """``line`` as tools show it: (how, text)."""
    once = json.dumps({"role": "tool", "content": line}, ensure_ascii=rng.random() < 0.5)
    # .NET's encoder writes + as \u002B, Go's & < > as \u0026 \u003c \u003e
    dotnet = json.dumps(line)[1:-1].replace("+", "\\u002B").replace("&", "\\u0026")
    return [("json", once), ("json in json", json.dumps({"message": once})), ("unicode escapes", dotnet),
            ("entities", f'<input value="{html.escape(line)}">'),
            # (the line ends the URL: a bare value under an id name runs on over a following
            # &next=1 in plain text as well, the rule's own reading and not the view's)
            ("url", f"https://app.example.com/cb?next=1&q={quote(line, safe='')}"),
            ("shell", "bash -c '" + line.replace("'", "'\\''") + "'")]


_REDACTED = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def _pieces(secret: str) -> list[str]:
    flat = secret.replace("\n", "")
    return [flat[i:i + 8] for i in range(len(flat) - 7)]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**64))
# a JSON password holding \" after ; or { (a quote a parent's own quote opened: not its end), plain
# and inside entities; a password ending in a colon (read as a label Password: before)
@example(9287)
@example(1785762049244410672)
@example(9476422725250360312)
# pieces of an encoded form that the encoding's structure or a redaction's label also holds
@example(6744063508010978493)
@example(3420559596510854578)
@example(1631086216428320817)
def test_a_secret_through_any_encoding_is_cut_whole(seed: int) -> None:
    rng = random.Random(seed)
    secret, line = _secret(rng)
    decoy = str(uuid.UUID(int=rng.getrandbits(128)))
    line = f"{line} request_id={decoy}"
    # what the rules cut whole in plain text (no 4 characters of it left), they cut whole through any encoding
    plain = scrub.scrub(line)[0]
    assume(not [secret[i:i + 4] for i in range(len(secret) - 3) if secret[i:i + 4] in plain])
    # the same encodings of the line without the secret: a piece of an encoded form that the
    # encoding's own structure holds too (&quot;sv of &quot;svc, %22%2C%2 of %22%2C%20) is no leak
    without = line
    for form in (json.dumps(secret)[1:-1], shlex.quote(secret), secret):
        without = without.replace(form, "")
    assert _pieces(secret)[0] not in without
    state = rng.getstate()
    bare = dict(_encodings(random.Random(0), without))
    rng.setstate(state)
    for how, text in _encodings(rng, line):
        clean = _REDACTED.sub("\x00", scrub.scrub(text)[0])  # (t]&#x27; of ...assignment]&#x27;: neither)
        forms = {secret, json.dumps(secret)[1:-1], json.dumps(json.dumps(secret)[1:-1])[1:-1], html.escape(secret),
                 quote(secret, safe=""), secret.replace("'", "'\\''")}
        left = [p for f in forms for p in _pieces(f) if p in clean and p not in bare[how]]
        assert not left, (how, left[:3], text, clean)
        # and what they keep in plain text (most UUIDs: not every one, after a long token) they keep
        assert decoy in clean or decoy not in plain, (how, text, clean)


def test_personal_data_is_found_encoded_but_never_across_a_joint() -> None:
    assert "jane.doe" not in scrub.scrub("mailto:jane.doe%40example.com?subject=hi")[0]
    assert "jane.doe" not in scrub.scrub(json.dumps({"email": "jane.doe@example.com"}, ensure_ascii=True).replace("@", "\\u0040"))[0]
    # two numbers a pane's edge put side by side are not one phone number
    line = "x" * 70 + " id 415555"
    text = line + "\n" + "2671 ok and more words here\n"
    assert len(line) == 80 and joints.joints(text, one_byte_view(text)) == []  # (not secret-like: no joint)
    text = "a" * 70 + "Zq9x415555\n2671Kp8w more\n"
    assert joints.joints(text, one_byte_view(text))
    assert all(f.rule != "phone-number" for f in scrub.find(text))


def test_each_part_turns_off_by_name() -> None:
    s = Scrubber()
    rng = random.Random(8)
    pw = "".join(rng.choice(ALNUM) for _ in range(16))
    cases = {  # what only that part finds
        views.JSON_ESCAPES: (json.dumps({"c": json.dumps({"password": pw})}), pw),
        views.ENTITIES: (f'<add value="{html.escape(json.dumps({"password": pw}))}"/>', pw),
        views.URL: ("cb?q=" + quote(json.dumps({"password": pw}), safe=""), pw),
        views.SHELL: ("DB_PASSWORD='" + pw[:8] + "'\\''" + pw[8:] + "'", pw[8:]),
        views.JOINTS: ("cfg = {'password': '" + pw[:8] + "'\n       '" + pw[8:] + "'}", pw[8:]),
    }
    for name, (text, piece) in cases.items():
        assert piece not in s.scrub(text)[0], (name, text)
        assert piece in s.scrub(text, [name])[0], (name, text)


def test_text_without_a_trigger_builds_no_view() -> None:
    rng = random.Random(2)
    for _ in range(200):
        text = " ".join("".join(rng.choice(string.ascii_letters + string.digits + ".,:;=") for _ in range(rng.randint(1, 12)))
                        for _ in range(rng.randint(1, 40)))
        assert views.layers(text, one_byte_view(text), set()) == ([], [])


# --- wraps ---------------------------------------------------------------------------------------

def _token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(ALNUM + "_-") for _ in range(n))


def _columns(c: str) -> int:
    return 2 if unicodedata.east_asian_width(c) in "WF" else 1


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**64))
def test_a_wrap_is_found_at_any_width_indent_and_mark(seed: int) -> None:
    """A value hard-wrapped as a pane, a log viewer or fold does: at a usual width, or at any
    width the text shows twice in a row; flush left, indented (like its first line or not) or
    behind a mark; a line counted in terminal columns where it holds wide characters."""
    rng = random.Random(seed)
    width = rng.choice([64, 76, 80, 100, 120, 132, 160, rng.randint(40, 200)])
    indent = rng.choice(["", "  ", "    ", "\t", "↪ ", "       "])
    line = rng.choice(["", "ログ: ", "密码 ", "Пароль: "]) + "token=" + _token(rng, 3 * width)
    lines, cur, cols = [], "", 0
    for c in line:
        if cols + _columns(c) > width:
            lines.append(cur)
            cur, cols = indent, len(indent)
        cur += c
        cols += _columns(c)
    lines.append(cur)
    text = "\n".join(lines) + "\n$ done"
    ends = {a for a, _, r in joints.joints(text, one_byte_view(text)) if not r}
    at = -1
    for k, ln in enumerate(lines[:-1]):
        at += 1 + len(ln)
        piece = lines[k + 1][len(indent):].split(" ")[0]
        if piece.isalpha() and piece[1:].islower():
            continue  # a piece that reads as a word of prose is not joined (joints._word_beside)
        if k + 2 == len(lines) and re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*", piece) and not re.search(r"[0-9][A-Z]+[0-9]", piece):
            continue  # nor a last piece that reads as a bare ENV_NAME (Y4ZRPS_A): the next record's
        assert at in ends, (width, repr(indent), text)


def test_lines_that_start_records_of_their_own_are_not_joined() -> None:
    rng = random.Random(4)
    for _ in range(100):
        w = rng.choice([80, 100, 120])
        key = rng.choice(["PATH", "HOME", "GOPATH"])
        first = f"{key}=" + "/".join(_token(rng, 6) for _ in range(w))
        first = first[:w - 1] + rng.choice(ALNUM)
        digest = "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice([32, 40, 64])))
        for nxt in (f"{digest}  backup.sql.gz", f"{digest} *dist/app.tar.gz", "SMTP_PASSWORD=", "  HOSTNAME=web-7f9c", "2026-12-03T10:41:17Z INFO ready", " user: alice",
                    "+DOPPLER_TOKEN=${DOPPLER_TOKEN}", "    # rotate monthly", "HF_TOKEN", "K8S_TOKEN", "OAUTH2_CLIENT_ID",
                    "AWS_S3_BUCKET", "- item",
                    # a table's row (test_scrub_precision's settings family on another seed: a
                    # Bearer line as wide as the row under it took the row's border)
                    "| `TOKEN_ENDPOINT` | `https://auth.example.com/oauth2/token` |", "| DB_HOST | db.internal |"):
            text = f"{first}\n{nxt}\n"
            assert joints.joints(text, one_byte_view(text)) == [], (nxt, text)


def test_prose_cut_at_a_panes_edge_is_not_joined() -> None:
    rng = random.Random(5)
    for _ in range(200):
        width = rng.choice([80, rng.randint(40, 200)])
        words = " ".join("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) + rng.choice(["", "", ",", "."])
                         for _ in range(120))
        text = "\n".join(words[i:i + width] for i in range(0, len(words), width))
        assert joints.joints(text, one_byte_view(text)) == [], text


def _reads_as_a_word(before: str, after: str) -> bool:
    """joints._word_beside's rule: letters only, lower case after an optional capital (before the
    cut: more than 6 of them, or a capital first); or all capitals, the other side not capitals
    and digits."""
    for k, (run, other) in enumerate(((before, after), (after, before))):
        if run.isalpha() and (run[1:].islower() and (k or run[0].isupper() or len(run) > 6)
                              or run.isupper() and not (other.isupper() and other.isalnum())):
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**64))
# the second row's piece read as a word: tnxajhetlvkj, WINSKIWOUS, Txvcdrgtxrr (not joined, rightly)
@example(13674449971712048190)
@example(18260774143662815900)
@example(9195889450651056095)
def test_a_width_two_rows_show_counts_where_the_second_row_ends_anywhere(seed: int) -> None:
    """A long log line wrapped at a width no pane usually has: the first row ends inside a value,
    the second goes on with it and ends wherever the pane cut it (a comma, a bracket, a stop)."""
    rng = random.Random(seed)
    width = rng.choice([w for w in range(40, 201) if w not in joints.WRAP_WIDTHS])
    tok = "".join(rng.choice(ALNUM) for _ in range(40))
    k = rng.randint(6, 30)
    first = ("log " + "x" * width + " token=")[-(width - k):] + tok[:k]
    words = " ".join(rng.choice(["request", "went", "on", "retry", "ok"]) for _ in range(80))
    second = (tok[k:] + " " + words)[:width - 1] + rng.choice(".,;)]")
    # a piece either side of the cut that reads as a word of prose is not joined (joints._word_beside)
    assume(not _reads_as_a_word(tok[:k], tok[k:]))
    text = f"{first}\n{second}\nend of it\n"
    assert width in {a for a, _, r in joints.joints(text, one_byte_view(text)) if not r}, text


def test_the_example_config_and_the_docs_name_every_part() -> None:
    example, page = config_cmd.example_text(), docs.markdown()
    for name in (*views.OFF, whole.NAME):
        assert name in example and f"`{name}`" in page, name
