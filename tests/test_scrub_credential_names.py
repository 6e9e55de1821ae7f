"""Issue 29, leaks 1 and 2, on values drawn at random: a key named in prose for what it does
("the signing / encryption / master / deploy key is X", in English and the other languages the
scrubber knows) and a credential given to a search by a flag whose name says credential leave
neither the history, the final message nor the query of the record that ships
(record.make_safe, the daemon's step); what only looks like them stays."""

from __future__ import annotations

import json
import random
import string

from jevlin_hooks.base import config
from jevlin_hooks.capture import searchmatch
from jevlin_hooks.privacy import record

KEY = b"k" * 32
ALNUM = string.ascii_letters + string.digits
QUALIFIERS = ["signing", "encryption", "master", "deploy", "decryption", "license", "licence", "HMAC", "JWT", "session",
              "webhook", "recovery", "admin", "shared", "root", "private", "wrapping", "unlock", "activation"]
ENGLISH = ["The {q} key is {v}, keep it out of git.", "our {q} key was {v}", "FYI the prod {q} key: {v}",
           "the {q} key for staging is {v}.", "OK so the new {q} key is `{v}` from now on"]
OTHER = ["la clé de signature est {v}", "der Signaturschlüssel ist {v}", "la clave maestra es {v}",
         "a chave de criptografia é {v}", "la chiave di cifratura è {v}", "de versleutelingssleutel is {v}",
         "de hoofdsleutel: {v}", "ключ шифрования: {v}", "klucz szyfrowania to {v}", "şifreleme anahtarı {v}",
         "签名密钥是{v}", "署名鍵は{v}です", "서명 키는 {v}", "Das Masterpasswort ist {v}"]
FLAG_NAMES = ["--key", "--auth", "--pat", "--credentials", "--creds", "--license-key", "--licence-key", "--signing-key",
              "--api-key", "--apikey", "--client-secret", "--db-pass", "--admin-password", "--access-token", "--auth-token",
              "--deploy-key", "--master-key", "--private-token", "--passphrase", "--bearer-token", "--session-secret"]
KEPT_FLAGS = ["--key-file ~/.ssh/id_ed25519", "--token-ttl 3600", "--auth-type basic", "--keyboard us", "--author alice",
              "--key 2", "--secret-name prod/db", "--key name", "--auth none", "--pass-through yes", "--token-url https://auth.example.com/t"]


def secret(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return "".join(rng.choice(ALNUM) for _ in range(rng.randint(16, 48))) + rng.choice(string.digits)
    if kind == 1:
        return "".join(rng.choice(ALNUM + "!#%*+-_.@^") for _ in range(rng.randint(10, 24))) + "#" + rng.choice(string.digits)
    if kind == 2:
        return "-".join("".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(4)) for _ in range(4)) + "7"
    # (not 16 or 40 hex digits: under a signing key's name, a GPG key id or fingerprint, public)
    return "".join(rng.choice("0123456789abcdef") for _ in range(rng.choice((32, 48, 64))))


def turn_end(prompt: str, final: str) -> dict[str, object]:
    return {"v": 1, "record_id": "cd" * 16, "kind": "turn_end", "ts": "2026-01-01T00:00:00.000Z", "harness": "claude-code",
            "session_id": "raw-session", "turn_id": "raw-turn", "window": 0, "prompt": prompt, "final_message": final}


def search(history: str, query: str) -> dict[str, object]:
    return {"v": 1, "record_id": "ab" * 16, "kind": "search", "ts": "2026-01-01T00:00:00.000Z", "harness": "claude-code",
            "session_id": "raw-session", "turn_id": "raw-turn", "call_id": "toolu_raw", "window": 0, "seq": 1,
            "history": history, "query": query, "tool": "Bash", "status": "ok"}


def _left(v: str, shipped: str) -> str | None:
    return next((v[i:i + 8] for i in range(max(1, len(v) - 7)) if v[i:i + 8] in shipped), None)


def test_a_key_named_in_prose_for_what_it_does_leaves_history_and_final_message() -> None:
    rng = random.Random("named keys")
    for _ in range(300):
        v = secret(rng)
        form = rng.choice(ENGLISH + OTHER)
        said = form.format(q=rng.choice(QUALIFIERS), v=v)
        for rec in (turn_end("what changed?", f"Done. {said}\nAnything else?"),
                    search(f"user: rotate it\nassistant: {said}\n", "key rotation")):
            shipped = json.dumps(record.make_safe(rec, KEY), ensure_ascii=False)
            assert _left(v, shipped) is None, (said, shipped)


def test_what_is_said_about_such_a_key_stays() -> None:
    rng = random.Random("named keys kept")
    for _ in range(100):
        q = rng.choice(QUALIFIERS)
        said = rng.choice([f"the {q} key is stored in vault", f"the {q} key is RS256", f"the {q} key is rotated every 90 days",
                           f"the {q} key is in 1Password", f"the {q} key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 ci@example",
                           f"the {q} key is id_ed25519", f"the {q} key is deploy-{rng.randint(1, 99)}.pem"])
        shipped = record.make_safe(turn_end("q", said), KEY)
        assert shipped["final_message"] == said


def test_a_credential_flag_keeps_its_value_out_of_the_query() -> None:
    """The search hook's classification of a real command line, then the daemon's scrub."""
    rng = random.Random("flags")
    cfg = config.defaults()["search"]
    for _ in range(300):
        v = secret(rng)
        flag = rng.choice(FLAG_NAMES)
        arg = rng.choice([f"{flag} {v}", f"{flag}={v}", f"{flag} '{v}'", f'{flag} "{v}"'])
        words = rng.sample(["how", "to", "rotate", "httpx", "retry", "kafka", "consumer", "lag"], 3)
        cut = rng.randint(0, 3)
        command = "jevlin search " + " ".join([*words[:cut], arg, *words[cut:]])
        query = searchmatch.classify("Bash", {"command": command}, cfg)
        assert query is not None and v in query  # (the hook keeps flags: the scrubber needs them)
        shipped = record.make_safe(search(f"$ {command}\n", query), KEY)
        assert _left(v, json.dumps(shipped)) is None, (command, shipped["query"])
        assert all(w in shipped["query"] for w in words), shipped["query"]


def test_flags_that_only_look_like_credentials_keep_their_values() -> None:
    cfg = config.defaults()["search"]
    for kept in KEPT_FLAGS:
        query = searchmatch.classify("Bash", {"command": f"jevlin search {kept} retry"}, cfg)
        assert query is not None
        assert record.make_safe(search("", query), KEY)["query"] == query, kept
    for line in ("curl -k https://example.com/healthz", "openssl s_client -k 3 -connect host:443"):
        assert record.make_safe(search(line, "q"), KEY)["history"] == line
