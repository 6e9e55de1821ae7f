"""The layout reader (privacy/engine/fields.py) and the credential field judge, on tables drawn at
random: widths, alignments, borders, header words in several languages, real credential and
non-credential key names, random secrets and random harmless values. Every secret under a
credential's name goes, nothing of 8 characters or more is left of it; every harmless value
stays as it was."""

from __future__ import annotations

import json
import random
import string

import pytest

from jevlin_hooks.privacy import scrub
from jevlin_hooks.privacy.checks.judges import JUDGES, credential_key, judge_counter_examples, judge_examples
from jevlin_hooks.privacy.engine import Scrubber, fields
from jevlin_hooks.privacy.engine.text import one_byte_view

SCRUBBERS = {"hyperscan": scrub.default(), "automaton": Scrubber(prefilter=False)}
ALNUM = string.ascii_letters + string.digits

SECRET_KEYS = ["DB_PASSWORD", "API_KEY", "SECRET_KEY", "GITHUB_TOKEN", "client_secret", "Password", "Secret access key",
               "STRIPE_SECRET_KEY", "JWT_SECRET", "SESSION_SECRET", "encryption_key", "MASTER_KEY", "signing_key",
               "auth_token", "access_token", "REFRESH_TOKEN", "passphrase", "SMTP_PASS", "REDIS_PASSWORD", "db.password",
               "app.secret", "FIELD_ENCRYPTION_KEY", "webhook_secret", "PAYMENTS_API_KEY", "admin-password",
               "Client secret", "GPG_PASSPHRASE", "slack_signing_secret", "/prod/db/password", "payments.api.key"]
PLAIN_KEYS = ["LOG_LEVEL", "PORT", "REGION", "HOSTNAME", "NODE_ENV", "TZ", "name", "created_at", "provider", "Description",
              "BUILD_NUMBER", "service_version", "Expires", "SHELL", "owner", "status"]
# credential-like names of settings that are not credentials, each with the kind of value it holds
SETTING_KEYS = {"TOKEN_TTL_SECONDS": "n", "PASSWORD_MIN_LENGTH": "n", "SECRET_ROTATION_DAYS": "n", "JWT_EXPIRES_IN": "d",
                "ACCESS_TOKEN_LIFETIME": "d", "OAUTH_TOKEN_REFRESH_MARGIN": "d", "TOKEN_ENDPOINT": "u", "token_url": "u",
                "API_KEY_HEADER": "X-Api-Key", "DB_PASSWORD_FILE": "/run/secrets/db_password", "secret_name": "prod/db-creds"}
VALUE_HEADERS = ["Value", "VALUE", "Valeur", "Wert", "Valor", "Valore", "Waarde", "Wartość", "Değer", "Значение", "値", "값", "值"]
KEY_HEADERS = ["Key", "KEY", "Name", "NAME", "Variable", "Clé", "Schlüssel", "Nombre", "キー", "키", "变量"]


def words(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice("bcdfghjklmnprstvz") + rng.choice("aeiou") for _ in range(rng.randint(2, 4))) for _ in range(n)]


def secret(rng: random.Random) -> str:
    """A credential in one of the shapes people and generators give them."""
    kind = rng.randrange(6)
    if kind == 5:  # a password with a blank or two in it
        return " ".join("".join(rng.choice(ALNUM + "!#%*+-_.@^") for _ in range(rng.randint(3, 9))) + rng.choice(string.digits)
                        for _ in range(rng.randint(2, 3)))
    if kind == 0:  # random alphanumerics, digits among them
        return "".join(rng.choice(ALNUM) for _ in range(rng.randint(16, 64))) + rng.choice(string.digits)
    if kind == 1:  # a password with symbols
        return "".join(rng.choice(ALNUM + "!#%*+-_.@^") for _ in range(rng.randint(10, 24))) + rng.choice("!#%") + rng.choice(string.digits)
    if kind == 2:  # words and a number
        return "-".join(words(rng, rng.randint(2, 4))) + "-" + str(rng.randint(10, 9999))
    if kind == 3:  # a passphrase
        return " ".join(words(rng, rng.randint(4, 6)))
    return "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice((32, 40, 64))))


def harmless(rng: random.Random) -> str:
    """A value nothing should take: a duration, a count, a region, a host, a version, a word."""
    return rng.choice([
        f"{rng.randint(1, 99999)}", f"{rng.randint(1, 720)}{rng.choice('smhd')}", rng.choice(["eu-west-1", "us-east-2", "ap-northeast-1"]),
        f"api-{rng.randint(1, 99)}.{rng.choice(['internal', 'example.com', 'svc.cluster.local'])}",
        f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}", rng.choice(["production", "info", "debug", "string", "enabled"])])


def stand_in(rng: random.Random) -> str:
    """What stands where a credential would: a mask, a reference, a placeholder, a path to it, a note."""
    return rng.choice([
        "*" * rng.randint(8, 16), f"sk-...{''.join(rng.choice(ALNUM) for _ in range(4))}",
        f"{''.join(rng.choice(ALNUM) for _ in range(3))}{'*' * rng.randint(8, 12)}{''.join(rng.choice(ALNUM) for _ in range(4))}",
        "${" + rng.choice(["DB_PASSWORD", "API_KEY"]) + "}", "<nil>", "see runbook", "/run/secrets/db_password",
        "{{ vault_admin_password }}", "@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/db/)", "string", "required",
        f"{rng.randint(1, 90)} days", "RS256 signed", "AES-256 GCM", f"v{rng.randint(1, 9)}.{rng.randint(0, 9)} beta"])


def rows(rng: random.Random, n: int) -> list[tuple[str, str, bool]]:
    """(key, value, is a secret): credential names with secrets or stand-ins, settings named like
    credentials with their durations and counts, other names with harmless values."""
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.4:
            out.append((rng.choice(SECRET_KEYS), secret(rng), True))
        elif r < 0.6:
            out.append((rng.choice(SECRET_KEYS), stand_in(rng), False))
        elif r < 0.8:
            k, kind = rng.choice(sorted(SETTING_KEYS.items()))
            v = {"n": str(rng.randint(1, 99999)), "d": f"{rng.randint(1, 720)}{rng.choice('smhd')}",
                 "u": f"https://auth-{rng.randint(1, 99)}.example.com/oauth2/token"}.get(kind, kind)
            out.append((k, v, False))
        else:
            out.append((rng.choice(PLAIN_KEYS), harmless(rng), False))
    return out


def aligned(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    w = max(len(k) for k, _, _ in data) + rng.choice((0, 1, 2, 4))  # 0: the longest key has one blank before its value
    w = max(w, max(len(k) for k, _, _ in data) + 1)
    head = rng.choice([[], [("Key", "Value"), ("---", "-----")], [("NAME", "VALUE")], [(rng.choice(KEY_HEADERS), rng.choice(VALUE_HEADERS))]])
    indent = rng.choice(["", "  ", "    "])
    lines = [indent + k.ljust(w) + v for k, v in head] + [indent + k.ljust(w) + v + rng.choice(["", "  ", "   env"]) * (" " not in v)
                                                          for k, v, _ in data]
    return "\n".join(lines)


BOXES = [("┌┬┐├┼┤└┴┘─│"), ("┏┳┓┣╋┫┗┻┛━┃"), ("╔╦╗╠╬╣╚╩╝═║"), ("+++++++++-|")]


def box(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    tl, tm, tr, ml, mm, mr, bl, bm, br, h, v = rng.choice(BOXES)
    hk, hv = rng.choice(KEY_HEADERS), rng.choice(VALUE_HEADERS)
    a = max(len(k) for k, _, _ in data + [(hk, "", False)]) + 2
    b = max(len(x) for _, x, _ in data + [("", hv, False)]) + 2
    extra = rng.random() < 0.5

    def row(x: str, y: str) -> str:
        return f"{v} {x.ljust(a - 1)}{v} {y.ljust(b - 1)}{v}" + (f" {'env':<6}{v}" if extra else "")

    def rule(left: str, mid: str, right: str) -> str:
        return left + h * a + mid + h * b + ((mid + h * 7) if extra else "") + right

    return "\n".join([rule(tl, tm, tr), row(hk, hv), rule(ml, mm, mr), *[row(k, x) for k, x, _ in data], rule(bl, bm, br)])


def markdown(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    tick = rng.choice(["", "`"])
    head = f"| {rng.choice(['Variable', 'Key', 'Variabele', '변수'])} | {rng.choice(VALUE_HEADERS)} | Notes |"
    return "\n".join([head, "|---|---|---|"] + [f"| {tick}{k}{tick} | {tick}{x}{tick} | {rng.choice(['', 'prod', 'rotate after launch'])} |"
                                               for k, x, _ in data])


def psql(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    """SELECT key, value FROM settings: in columns, or in \\x's records of two lines."""
    if rng.random() < 0.5:
        return "\n".join(f"-[ RECORD {i + 1} ]-+----------\nkey   | {k}\nvalue | {x}" for i, (k, x, _) in enumerate(data))
    return "\n".join([f" {'key':<20} | value", "-" * 22 + "+" + "-" * 40] + [f" {k:<20} | {x}" for k, x, _ in data]
                     + [f"({len(data)} rows)"])


def delimited(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    """A CSV/TSV export whose header names each column: one row, the keys are the columns."""
    sep = rng.choice([",", ";", "\t"])
    cols = [("user", "ci-" + words(rng, 1)[0], False)] + data[:5]
    q = rng.random() < 0.3

    def cell(s: str) -> str:
        return f'"{s}"' if q or sep in s else s

    return sep.join(cell(k) for k, _, _ in cols) + "\n" + sep.join(cell(x) for _, x, _ in cols)


def above(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    """A label line (a word first: a path is no label) and its value under it."""
    return "\n".join(f"{k.lstrip('/')}\n{x}" for k, x, _ in data)


def pairs(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    style = rng.randrange(5)
    if style == 4:  # Spring Boot's start-up failure, one property after another
        return "\n".join(f"Failed to bind properties under '{k}' to java.lang.String:\n\n    Property: {k}\n"
                         f'    Value: "{x}"\n    Origin: System Environment Property "{k.upper()}"\n' for k, x, _ in data)
    if style == 3:
        return json.dumps([{"name": k, "slotSetting": rng.random() < 0.5, "value": x} for k, x, _ in data], indent=2)
    out = []
    for k, x, _ in data:
        if style == 0:
            out.append(f"Name: {k}\n{rng.choice(VALUE_HEADERS)}: {x}\n")
        elif style == 1:
            out.append(f"Name  : {k}\nValue : {x}\n")
        else:
            out.append(f"Key: {k}\nValue: {x}\nType: Variable\nProtected: {rng.choice(['true', 'false'])}\n")
    return "\n".join(out)


def tf_name(key: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in key.strip("/")).lower()


def terraform(rng: random.Random, data: list[tuple[str, str, bool]]) -> str:
    """Terraform variables and outputs, a default or a value inside each block among other settings."""
    out = []
    for k, x, _ in data:
        name = tf_name(k)
        block, field = rng.choice([("variable", "default"), ("output", "value")])
        inner = rng.sample(["  type      = string", "  sensitive = true", '  description = "set by CI"'], rng.randint(0, 3))
        inner.insert(rng.randint(0, len(inner)), f'  {field} = "{x}"')
        out.append(f'{block} "{name}" {{\n' + "\n".join(inner) + "\n}\n")
    return "\n".join(out)


LAYOUTS = {"aligned": aligned, "box": box, "markdown": markdown, "psql": psql, "delimited": delimited, "above": above, "pairs": pairs,
           "terraform": terraform}


def _secret_left(value: str, clean: str) -> str | None:
    """The first piece of 8 characters of ``value`` still in ``clean``."""
    for i in range(max(1, len(value) - 7)):
        if value[i:i + 8] in clean:
            return value[i:i + 8]
    return None


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_random_tables_lose_their_secrets_and_keep_the_rest(layout: str) -> None:
    rng = random.Random(f"fields {layout}")
    s = SCRUBBERS["hyperscan"]
    s.wait_prefilter()
    for _ in range(60):
        data = rows(rng, rng.randint(2, 9))
        if layout == "delimited":
            data = data[:5]
        if layout in ("above", "delimited", "psql"):  # a value alone on its line, or in a cell: no blanks to cut it
            # (and a setting of several words with digits, RS256 signed, is another value once dashed: left out)
            data = [(k, x.replace(" ", "-"), sec) for k, x, sec in data
                    if sec or " " not in x or not any(c.isdigit() for c in x)]
        if layout == "delimited":  # "/run/secrets/db_password","586s": credential-assignment reads a key there (left alone)
            data = [(k, x, sec) for k, x, sec in data if not x.startswith("/")]
        text = LAYOUTS[layout](rng, data)
        text = rng.choice(["", "Here is what it prints:\n\n", "```\n$ show-config --all\n"]) + text + rng.choice(["", "\n```\n", "\n\nAny idea?"])
        clean, _ = s.scrub(text)
        for k, x, is_secret in data:
            if is_secret and credential_key(k):
                assert _secret_left(x, clean) is None, (layout, k, x, text, clean)
            elif not is_secret:
                assert x in clean, (layout, k, x, text, clean)


def test_fields_point_at_the_values_in_the_text() -> None:
    """The reader's contract: each field's span is its value, as written, markup left out."""
    rng = random.Random("field spans")
    for _ in range(200):
        layout = rng.choice(sorted(LAYOUTS))
        data = [(k, x.replace(" ", "-"), sec) for k, x, sec in rows(rng, rng.randint(2, 5))]
        text = LAYOUTS[layout](rng, data)
        got = {(f.key, text[f.start:f.end]) for f in fields.read(text, ("pass", "key", "secret", "token"))}
        for k, x, _ in data[:5] if layout == "delimited" else data:
            if any(w in k.lower() for w in ("pass", "key", "secret", "token")):
                want = k.lstrip("/") if layout == "above" else tf_name(k) if layout == "terraform" else k
                assert (want, x) in got, (layout, k, x, text, got)


@pytest.mark.parametrize("name", sorted(SCRUBBERS))
def test_each_judge_example_is_found_and_each_counter_example_left(name: str) -> None:
    """Each judge alone (whatever rule it answers: its own, or one such as iban) finds something
    in each of its examples and nothing in its counter-examples; through the scrubber, the
    examples are redacted."""
    s = SCRUBBERS[name]
    s.wait_prefilter()
    for j in JUDGES:
        assert j.examples and j.counter_examples and j.key_words == tuple(w.lower() for w in j.key_words)
        for text in judge_examples(j):
            assert fields.findings(text, one_byte_view(text), set(), None, [j]), (j.name, text)
            assert "[REDACTED:" in s.scrub(text)[0], text
        for text in judge_counter_examples(j):
            assert fields.findings(text, one_byte_view(text), set(), None, [j]) == [], (j.name, text)


def test_the_judge_turns_off_by_name_and_text_without_a_layout_has_no_field() -> None:
    text = "| DB_PASSWORD | Zq8kL2pVw9xXk9mz |\n| PORT | 5432 |"
    assert "credential-field" in {f.rule for f in scrub.find(text)}
    assert "credential-field" not in {f.rule for f in scrub.find(text, ("credential-field",))}
    assert "credential-field" not in {f.rule for f in scrub.find(text, ("layout",))}  # the reader off
    assert fields.read("The password is set in the vault; ask ops for it.", ("pass",)) == []
    assert fields.findings("no such word here at all", b"no such word here at all", set()) == []
    assert fields.findings("| DB_PASSWORD | Zq8kL2pVw9xXk9mz |", b"| DB_PASSWORD | Zq8kL2pVw9xXk9mz |", set(), []) == []
