"""Scrubbing, keyed hashing, record allow-lists, preview: nothing raw gets past."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import run

from jevlin_hooks.privacy import docs, ids, record, scrub
from jevlin_hooks.privacy.rules import RULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Secrets built at run time so this file holds no literal credential.
GH = "ghp_" + "R8x2Kq9mW4nP7sT1vY6zB3cD5fG8hJ0kL2mN"
OPENAI = "sk-proj-" + "4fG7hJ2kL9mN3pQ8rS1tV6wX0yZ5aB7cD2eF9gH4"
AWS_ID = "AKIA" + "QWERTYUIOPASDFGH"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8sM3kT2v"
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEowIBAAKCAQEA7" * 8 + "\n-----END RSA PRIVATE KEY-----"
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

CASES = [
    (f"export GITHUB_TOKEN={GH}", GH),
    (f"OPENAI_API_KEY={OPENAI}", OPENAI),
    (f"aws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    (f"key id {AWS_ID} in prose", AWS_ID),
    (PEM, "MIIEowIBAAKCAQEA7"),
    (f"curl -H 'Authorization: Bearer {JWT}' https://x", JWT[:30]),
    ("DATABASE_URL=postgres://app:S3cr3tPassw0rd@db.internal:5432/prod", "S3cr3tPassw0rd"),
    ('{"password": "correct-horse-battery"}', "correct-horse-battery"),
    ("db:\n  password: 'hunter2hunter2'\n", "hunter2hunter2"),
    ("mysql --password=Tr0ub4dor&3 -u root", "Tr0ub4dor&3"),
    ("app --token sometokenvalue123 --verbose", "sometokenvalue123"),
    ('<add key="ClientSecret" value="q9Xv!2kLmP#4" />', "q9Xv!2kLmP#4"),
    ("SLACK=https://hooks.slack.com/services/T000/B000/XXXXabcd1234efgh5678", "XXXXabcd1234efgh5678"),
    ("ping alice@example.com about it", "alice@example.com"),
    ("cd /home/alice/src && ls /Users/bob/x C:\\Users\\carol\\y", "alice"),
    ("server at 81.36.66.248 answered", "81.36.66.248"),  # a public address (a private one stays: not personal data)
]


@pytest.mark.parametrize("text,secret", CASES)
def test_secret_is_gone(text, secret):
    clean, findings = scrub.scrub(text)
    assert secret not in clean, clean
    assert findings and "[REDACTED:" in clean


@pytest.mark.parametrize("text", [
    "commit 9a038989604e8da62ecddbe2094b16ce1b778be1 fixed it",
    "request id 832d2129-a846-4e27-99f4-7004b6ad53ef failed",
    'integrity "sha512-3Ahq6nNQ0sBZAkBcyKNXtUk3rU3mpS5vAlg/kuQ6gmpVSbzDVk1Wg5iBp2HNoKJmEEDWKDnKFcGbSohRrCNm5sA=="',
    "image ghcr.io/org/app@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    "token = get_token()", "api_key = config.api_key", "password = os.environ['DB_PASSWORD']",
    "export TOKEN=$GITHUB_TOKEN", "version 1.2.3.4 of the tool, on 127.0.0.1",
    "The retry logic uses exponential backoff with jitter.",
])
def test_ordinary_text_survives(text):
    clean, findings = scrub.scrub(text)
    assert clean == text, findings


# Random-looking bodies built from a seed so every run checks the same strings.
_R = "Zq7Vx2Lm9Kb4Nc8Wp1Rt6Yh3Gd5Fs0Ja"
ANTHROPIC = "sk-ant-api03-" + (_R * 3)[:93] + "AA"
SENTRY_USER = "sntryu_" + "9f3b0c7e1a5d2f84" * 4
GOOGLE = "AIza" + (_R + "Q_x")[:35]
SLACK_USER = "xoxp-4614724432022-4621207627011-5182682871568-1ddad9823e8528ad0f4944dfa3c6fc6c"


@pytest.mark.parametrize("near_miss,real", [
    # a published shape: the near miss (wrong length, wrong ending, glued to more text) stays
    # (a key cut or mistyped by a few characters is still taken: ANTHROPIC[:-3] + "AA")
    ("sk-ant-api03-abc123xyz-456de-klMnopqrstuvwx-3456yza789bcde-1234fghijklmnopAA", ANTHROPIC),
    (ANTHROPIC + _R, f"key: {ANTHROPIC}."),
    (SENTRY_USER + "5", SENTRY_USER),
    (GOOGLE + "abcd123", f"maps({GOOGLE})"),
    ("x" + GOOGLE, f"key={GOOGLE}"),
    # a vendor token whose random part does not vary is a fixture
    ("sntryu_" + "a" * 64, SENTRY_USER),
    ("GR1348941" + "123" * 7, "GR1348941" + _R[:20]),
    ("AIzaSyabcdefghijklmnopqrstuvwxyz1234567", GOOGLE),
    ("xoxp-1234-1234-1234-4ddbc191d40ee098cbaae6f3523ada2d", SLACK_USER),
    ("xoxp-572370529330-573807301142-572331691188-####################", SLACK_USER),
    ("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29x", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29tLz9BY3Rpb249Q2FsbFdpdGhCZWFyZXJUb2tlbg=="),
    # a weak prefix needs its vendor's name nearby, as a word
    ("rookTable 0023452Lllk2KqjLBvaxANWEgTd7bqjsxjo8aZj0wd", "okta says 0023452Lllk2KqjLBvaxANWEgTd7bqjsxjo8aZj0wd"),
    ("see video_box.ico-7a388b69018576d24b59331fd60aab0c.png", "INFRACOST=ico-7a388b69018576d24b59331fd60aab0c"),
    # names: key inside a word, anti-forgery and public values, ids
    ('keying = "aB3dE5fG7hJ9kL1mNq"', 'signingkey = "aB3dE5fG7hJ9kL1mNq"'),
    ('csrf_token = "Mj2qykJO5rELyHgezQ69nzUX0i3OH67V"', 'api_token = "Mj2qykJO5rELyHgezQ69nzUX0i3OH67V"'),
    ('publicToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"', 'refreshToken = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"'),
    ("<UserSecretsId>79a3edd0-2092-40a2-a04d-dcb46d5ca9ed</UserSecretsId>", "<ClientSecret>q9Xv!2kLmP#4</ClientSecret>"),
    # values that are not the secret: a counting run, an elision, a name, a quoted line of code
    ("API_TOKEN=abcdefghijklmnop", "API_TOKEN=k3Jq9zLp0xWv7Rb2"),
    ("ntn_1234567890123456789012345678901", "ntn_" + _R[:31]),
    ("fn::secret: ops_eyJzaWduSW5B..[Redacted]", "fn::secret: k3Jq9zLp0xWv7Rb2"),
    ("    secretKey: api-key", "    secretKey: hK8q2Zr7Lp4m"),
    ('telegram_api_token = "telegram_api_token = "', 'telegram_api_token = "51224882:AAF4kL9zQw"'),
    # unquoted after a camelCase name is code; quoted next to a vendor's name is a key
    ("sumOfExposures = 3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfpWE6F1fT9YGY74blQBIPsrkCcf1TwKE5;",
     'cloudflare: "oj9Yoyq0zmOyWmPPob1aoY5YSNNuJ0fbZSOURBlX"'),
    ("sumOfExposures = 3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfpWE6F1fT9YGY74blQBIPsrkCcf1TwKE5;",
     "algoliaAdmin: 3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfpWE6F1fT9YGY74blQBIPsrkCcf1TwKE5"),
    # a public key or token is public; a "public" password is still a password
    ('publicKey = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"', 'PUBLIC_DB_PASSWORD = "q9Xv2kLmP4wR"'),
    # a store's name for a secret stays; a password made of words is still a password
    ("    secretKey: github_token", "    dbPassword: super-secret-password"),
])
def test_fixtures_and_near_misses_stay_real_shapes_go(near_miss, real):
    assert scrub.scrub(near_miss)[0] == near_miss, scrub.scrub(near_miss)[1]
    clean, findings = scrub.scrub(real)
    assert findings and clean != real


def test_anthropic_key_a_few_characters_off_is_still_taken():
    for near in (ANTHROPIC[:-3] + "AA", ANTHROPIC[:-2] + "BB", ANTHROPIC[:-10]):
        assert near not in scrub.scrub(f"key {near} here")[0]


def test_random_tokens_of_each_checked_shape_are_all_caught():
    """The fixture checks (counting runs, repeats, exact shapes) never eat a random real token."""
    import random
    import string
    rnd = random.Random(7)
    b62 = string.ascii_letters + string.digits

    def r(alphabet: str, n: int) -> str:
        return "".join(rnd.choice(alphabet) for _ in range(n))

    shapes = [
        lambda: "AIza" + r(b62 + "_-", 35),
        lambda: "sk-ant-api03-" + r(b62 + "_-", 93) + "AA",
        lambda: "sntryu_" + r("0123456789abcdef", 64),
        lambda: "sgp_" + r("0123456789abcdefABCDEF", 16) + "_" + r("0123456789abcdef", 40),
        lambda: "xoxb-" + r(string.digits, 12) + "-" + r(string.digits, 13) + "-" + r(b62, 24),
        lambda: "GR1348941" + r(b62 + "_-", 20),
        lambda: r(string.digits, 10) + ":AA" + r(b62 + "_-", 33),
        lambda: r(b62, 3) + "8Q~" + r(b62 + "_~.-", 34),
        lambda: "dapi" + r("0123456789abcdef", 32),
    ]
    for make in shapes:
        for _ in range(300):
            token = make()
            assert token not in scrub.scrub(f'value "{token}" here')[0], token


def test_a_password_holding_an_angle_bracket_or_ending_in_a_colon_is_a_password():
    """A placeholder's angle brackets (<your token>, sk-<key>) and a label's colon (Password:) are
    told apart from a random password that holds a < alone or ends in a colon."""
    import random
    import string
    rnd = random.Random(2828)
    alnum = string.ascii_letters + string.digits
    for _ in range(300):
        head = "".join(rnd.choice(alnum) for _ in range(rnd.randint(4, 10))) + rnd.choice(string.digits + "!#?~")
        tail = "".join(rnd.choice(alnum) for _ in range(rnd.randint(3, 10)))
        for pw in (head + "<" + tail, head + tail + ":", head + "<" + tail + ":"):
            # (unquoted, a < ends the value: password: x</password>)
            for line in (json.dumps({"password": pw}), f"DB_PASSWORD='{pw}'", *([f"password: {pw}"] * ("<" not in pw))):
                clean = scrub.scrub(line)[0]
                assert head not in clean and tail not in clean, (line, clean)
    for kept in ('password: "<your password>"', "OPENAI_API_KEY=sk-<key>", '{"token": "<paste here"}', "password: Password:",
                 "secret: secretKeyRef:", "api_key: \"<API key>\""):
        assert scrub.scrub(kept)[0] == kept, kept


def test_runs_of_zero_bits_are_not_placeholders():
    """A and Q encode zero bits in base64 and bech32: real tokens hold long runs of them."""
    twitter = "AAAAAAAAAAAAAAAAAAAAAAYUxP2tRXOL2I9CsHHKej2uWtWvi0a20oH9t6JU9l32fgI3WVJWKMCTkAlnt6nOMvSDWDewrPSkfWvm"
    assert twitter not in scrub.scrub(f'twitterToken="{twitter}"')[0]
    assert "zzzzzzzzzzzzzzzz" in scrub.scrub('api_key = "zzzzzzzzzzzzzzzzzzzzzzzz"')[0]


def test_replacement_is_readable_and_overlaps_merge():
    text = f"GITHUB_TOKEN={GH} and again {GH}"
    clean, findings = scrub.scrub(text)
    assert clean == "GITHUB_TOKEN=[REDACTED:github-token] and again [REDACTED:github-token]"
    assert all(f.end > f.start for f in findings) and len(findings) == 2


def test_disabled_rules():
    assert scrub.scrub("mail bob@corp.io", ("email",))[0] == "mail bob@corp.io"


@pytest.mark.parametrize("text", [
    "sk-" * 300000, ("AKIA" + "A" * 15 + " ") * 50000, "password=" * 100000, "token: " + "a1B2" * 250000,
    "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD" * 250000, "a" * (1 << 20) + "!", "eyJabc." * 150000,
    bytes(range(256)).decode("latin-1") * 4096, "Authorization: Bearer " * 45000, "key=value; " * 95000,
])
def test_adversarial_megabyte_completes(text):
    """Linear-time engine: these all finish (timings live in bench/scrub_adversarial.py)."""
    clean, _ = scrub.scrub(text)
    assert isinstance(clean, str)


def test_rule_names_unique_and_documented():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    with open(os.path.join(ROOT, "docs", "privacy.md"), encoding="utf-8") as f:
        assert f.read() == docs.markdown(), "regenerate: jevlin-hooks scrub --list-rules --markdown > docs/privacy.md"


def test_scrub_cli_explain_never_prints_the_secret():
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "scrub", "--explain"],
                       input=f"token={GH}\n".encode(), capture_output=True, check=True)
    assert GH.encode() not in p.stdout + p.stderr and b"github-token" in p.stdout
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "scrub"], input=f"x {GH} y".encode(),
                       capture_output=True, check=True)
    assert p.stdout == b"x [REDACTED:github-token] y"


# --- keyed hashing -------------------------------------------------------------------------------

def test_key_created_once_0600_and_stable_across_processes(home):
    k1 = ids.load_key(home)
    path = os.path.join(home, "state", "key")
    assert os.stat(path).st_mode & 0o777 == 0o600 and len(k1) == 32
    code = "import sys; from jevlin_hooks.privacy import ids; print(ids.hash_id('sess', ids.load_key(sys.argv[1])))"
    a = subprocess.run([sys.executable, "-c", code, home], capture_output=True, text=True, check=True).stdout
    b = subprocess.run([sys.executable, "-c", code, home], capture_output=True, text=True, check=True).stdout
    assert a == b and a.strip() == ids.hash_id("sess", k1)


def test_key_readable_by_others_is_refused(home):
    ids.load_key(home)
    os.chmod(os.path.join(home, "state", "key"), 0o640)
    with pytest.raises(ids.KeyError_, match="readable by others"):
        ids.load_key(home)


def test_key_rotate(home):
    k1 = ids.load_key(home)
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "key", "rotate"], env=dict(os.environ, JEVLIN_HOME=home),
                       capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and "--yes" in p.stderr and ids.load_key(home) == k1
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "key", "rotate", "--yes"],
                       env=dict(os.environ, JEVLIN_HOME=home), capture_output=True, text=True)
    assert p.returncode == 0 and ids.load_key(home) != k1


# --- records ---------------------------------------------------------------------------------------

def raw_search(**kw):
    rec = {"v": 1, "record_id": "ab" * 16, "kind": "search", "ts": "2026-01-01T00:00:00.000Z", "harness": "claude-code",
           "session_id": "raw-session", "turn_id": "raw-turn", "call_id": "toolu_raw", "parent_session_id": None,
           "window": 0, "seq": 1, "history": f"I will use {GH}", "host_meta": {"platform": "linux", "cwd": "/home/alice/x",
                                                                                "model": "m"},
           "query": "httpx retry", "tool": "Bash", "status": "ok", "duration_ms": 5, "tool_output": "SECRET OUTPUT"}
    rec.update(kw)
    return rec


def test_make_safe_hashes_scrubs_and_allow_lists():
    key = b"k" * 32
    safe = record.make_safe(raw_search(), key)
    assert safe["session_id"] == ids.hash_id("raw-session", key) and safe["call_id"] == ids.hash_id("toolu_raw", key)
    assert safe["parent_session_id"] is None
    assert GH not in json.dumps(safe) and "[REDACTED:github-token]" in safe["history"]
    assert "tool_output" not in safe and "cwd" not in safe["host_meta"]
    assert safe["host_meta"]["redactions"] == 1
    assert set(safe) <= set(record.ALLOWED["search"])


@pytest.mark.parametrize("bad,reason", [
    ({"kind": "nope"}, "unknown kind"), ({"record_id": "../x"}, "record_id"), ({"seq": "1"}, "seq"),
    ({"window": "0"}, "window"), ({"session_id": 5}, "session_id"), ({"history": ["x"]}, "history"),
])
def test_invalid_records_are_explained(bad, reason):
    with pytest.raises(record.InvalidRecord, match=reason):
        record.make_safe(raw_search(**bad), b"k" * 32)


def test_preview_end_to_end_leaks_nothing(probe_home):
    """Plant secrets and raw ids in real hook payloads; the preview shows none of them."""
    sid = "session-raw-0001"
    base = {"session_id": sid, "prompt_id": "turn-raw-0001", "cwd": "/home/alice/proj"}
    run(probe_home, {**base, "hook_event_name": "SessionStart"})
    run(probe_home, {**base, "hook_event_name": "UserPromptSubmit", "prompt": f"use {OPENAI} please"})
    cmd = f"jevlin search 'how to rotate {GH}'"
    run(probe_home, {**base, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": cmd},
                     "tool_use_id": "toolu_raw_0001"})
    run(probe_home, {**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": cmd},
                     "tool_use_id": "toolu_raw_0001", "tool_response": {"stdout": f"result {AWS_SECRET}"}})
    run(probe_home, {**base, "hook_event_name": "Stop", "last_assistant_message": f"done, key {AWS_ID}"})
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "preview"], env=dict(os.environ, JEVLIN_HOME=probe_home),
                       capture_output=True, text=True, check=True)
    out = p.stdout
    assert out.count("\n") == 2, out  # one search, one turn_end
    for raw in (sid, "turn-raw-0001", "toolu_raw_0001", OPENAI, GH, AWS_SECRET, AWS_ID, "alice"):
        assert raw not in out, raw
    assert "nothing was sent" in p.stderr


def test_a_url_path_ending_in_token_is_not_a_credential_in_prose():
    from jevlin_hooks.privacy import scrub

    text = "token_url=https://auth.example.com/oauth/token region=eu-west-1"
    assert scrub.scrub(text)[0] == text
    clean, _ = scrub.scrub("then the token x9Y8z7W6v5 expired")
    assert "x9Y8z7W6v5" not in clean
