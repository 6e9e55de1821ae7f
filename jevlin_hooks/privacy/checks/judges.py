"""Field judges: what a key and its value, read off a table or a labelled pair, are.

The layout reader (privacy/engine/fields.py) turns tables, columns, CSV, a key on the line above
its value and Name:/Value: pairs into fields: a key as written and the span of its value. Each
field is then put to every judge registered here, in order; a judge answers the name of the
rule its finding carries (a rule of its own, or an existing one such as ``iban``), or None. A
finding is dropped when its rule is turned off (``disabled_rules``), so each judge, and each rule
a judge answers, turns off by name.

A judge is a ``FieldJudge``, added with ``register_judge`` when its module is imported (import
it from checks/__init__.py, so that it is registered before any Scrubber is built: the scrubber
reads the judges' key words once, when it is built):

* ``judge(key, value) -> rule name | None``: a pure function of two strings. ``key`` as the text
  writes it (a header cell, a first column, a label; blanks, backticks, quotes and ``**`` around
  it stripped: ``key_name`` strips the rest), ``value`` likewise (it may hold blanks: a
  passphrase, an address). The answer is the rule the finding carries: the judge's own name or
  an existing rule's (``"iban"``, ``"phone-number"``); the whole value is redacted;
* ``key_words``: lower-case words of which one must occur in a key for the judge to care; the
  reader skips a text holding none of the enabled judges' words, and asks a judge only about keys
  holding one of its own (so the words are the judge's gate: keep them to what its keys must
  hold; a word outside ASCII is fine);
  a word written with a header cell's delimiter (``tel,``, ``| tel ``: cell_forms) stands for a
  key that is that word alone (a column headed Tel, SIN, Nom), which the word alone would find
  inside thousands of others (hotel, using);
* ``name``, ``category`` ("secret" or "pii"), ``description``, ``examples`` and
  ``counter_examples``: as a rule's (privacy/rules/rule.py): `jevlin-hooks scrub --list-rules`
  and the generated docs/privacy.md list them, and tests/test_scrub_fields.py runs every judge's
  examples ({alnum:36} and the other alphabets are drawn from a seed of the judge's name).

Turning off: ``disabled_rules = ["<judge name>"]`` turns one judge off, a rule name drops that
rule's findings whichever judge gave them, and ``"layout"`` (``LAYOUT``) turns the whole reader
off.

For example::

    register_judge(FieldJudge("personal-field", "pii", "personal data under a column or label naming it",
                              judge_personal_field, ("phone", "email", "iban"),
                              examples=("Name,Phone\nAda,+44 20 7946 0{digits:3}",)))

The first judge is the credential judge: the key-name judgement that decides ``KEY=value``
(rules/parts.py STRONG and WEAK, heuristics.key_ok and entropy_key_ok) with the same value
tests (placeholders, references, masks), stricter about one thing tables hold and assignments
rarely do: documentation (a type, a default, a description in the value column).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from jevlin_hooks.privacy.checks.password_names import password_key
from jevlin_hooks.privacy.heuristics import (
    VERSIONISH,
    entropy_key_ok,
    hostlike,
    key_ok,
    looks_fake,
    password_like,
    placeholder,
    random_looking_cached,
)
from jevlin_hooks.privacy.rules import parts
from jevlin_hooks.privacy.rules.password_words import ENGLISH, PASSWORD_WORDS
from jevlin_hooks.privacy.rules.rule import expand_named

Judge = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class FieldJudge:
    name: str
    category: str  # "secret" or "pii"
    description: str
    judge: Judge
    key_words: tuple[str, ...]
    examples: tuple[str, ...] = ()
    counter_examples: tuple[str, ...] = ()


JUDGES: list[FieldJudge] = []  # in the order registered: the order they are asked in
LAYOUT = "layout"  # in disabled_rules: no judge runs, the layout reader reads nothing


CELL_DELIMITERS = ",;\t| "


def cell_forms(word: str) -> tuple[str, ...]:
    """``word`` as a whole header cell writes it: between commas, semicolons, tabs, bars, or
    before a run of blanks (aligned columns); the gate finds these where it cannot the word."""
    return (f"{word},", f",{word}", f"{word};", f";{word}", f"{word}\t", f"\t{word}", f"| {word} ", f"|{word}|",
            f"{word}  ", f"  {word}")


def cell_word(key: str, words: frozenset[str]) -> bool:
    """Whether ``key`` is, alone, one of the words given as cell_forms (``words``: cell_words)."""
    return key.strip(" \t*`\"'").lower() in words


@functools.lru_cache(maxsize=64)
def cell_words(words: tuple[str, ...]) -> frozenset[str]:
    """The words of ``words`` given as cell_forms."""
    return frozenset(w.strip(CELL_DELIMITERS) for w in words if w != w.strip(CELL_DELIMITERS))


def register_judge(j: FieldJudge) -> FieldJudge:
    """Add a judge (see the module's docstring); a second judge of one name is an error."""
    if any(x.name == j.name for x in JUDGES):
        raise ValueError(f"two field judges named {j.name!r}")
    JUDGES.append(j)
    return j


def judge_examples(j: FieldJudge) -> list[str]:
    return [expand_named(j.name, t, f"example {i}") for i, t in enumerate(j.examples)]


def judge_counter_examples(j: FieldJudge) -> list[str]:
    return [expand_named(j.name, t, f"counter {i}") for i, t in enumerate(j.counter_examples)]


# --- the key-name judgement, shared with the other mechanisms that read a name ----------------

_STRONG = re.compile(parts.STRONG, re.IGNORECASE)
_WEAK = re.compile(parts.WEAK, re.IGNORECASE)
_KEY_MARKUP = "`*\"'[]<>:= \t"


def key_name(key: str) -> str:
    """A key as the key-name patterns read one: markup, quotes and a trailing colon stripped, a
    path or a dotted setting cut to its last part (/prod/db/password, payments.api.key keep
    password and api.key), blanks and dashes between words made underscores."""
    name = key.strip(_KEY_MARKUP)
    if "/" in name:
        name = name.rstrip("/").rsplit("/", 1)[-1]
    return "_".join(name.split())


@functools.lru_cache(maxsize=4096)  # tables repeat their keys, and keys repeat across texts
def credential_key(key: str) -> str:
    """"strong" where the name says the value is a credential (DB_PASSWORD, api_key, Secret
    access key), "weak" where it only hints and the value must look random (session_key,
    AUTH, signing_salt), "" otherwise: the judgement credential-assignment and
    generic-high-entropy make of a name before ``=``."""
    name = key_name(key)
    if not name or len(name) > 100:
        return ""
    if _STRONG.fullmatch(name) and key_ok(name):
        return "strong"
    if _WEAK.fullmatch(name) and entropy_key_ok(name):
        return "weak"
    # another language's word for password, adminPwd, shop:dbPassword (password_names.py)
    return "strong" if password_key(key.strip(_KEY_MARKUP)) else ""


# --- what a value in a table is not ---------------------------------------------------------

# 86400, 300s, 15m, 720h, 7d, 1.5h: a lifetime, a count, a size (TOKEN_TTL_SECONDS  86400)
_COUNT_OR_DURATION = re.compile(r"\d{1,6}(?:\.\d{1,3})?(?:ms|s|m|h|d|w|y|sec|secs|min|mins|hours?|days?|weeks?|bytes?|[kmg]i?b)?",
                                re.IGNORECASE)
# sk-...Ab12, ghp_…EljK, ****QX7D, npm_••••7UX7: a value shown masked or cut is not the value
# (but ...naa9bM0, led by the dots, is a password beginning with symbols: heuristics.sigil_reference)
_ELLIPSES = ("...", "\u2026")
_MASKS = ("***", "\u2022\u2022", "\u00b7\u00b7\u00b7")
# Words that make a run of words a sentence, not a passphrase ("rotate after launch", "stored in
# vault", "see the runbook"): the commonest function words of the languages the set is written in.
_FUNCTION_WORDS = frozenset("""
a an the of to in on at for from with by and or is are was be not no see use set this that it its as per via if
when then after before only all any can must should will do does here there into out over under via than
der die das und oder ist nicht im zu mit von für auf aus bei dem den des ein eine einen siehe
le la les de des du et ou est pas dans pour avec sur un une voir
el los las y o es en para con por un una ver del al
il lo gli di che per non un una nel della vedi
o os as e do da dos das em um uma ver na no
het een van en of is niet in op voor met zie
""".split())
_GROUP = re.compile(r"[A-Za-z0-9]{3,8}")


def count_or_duration(v: str) -> bool:
    return _COUNT_OR_DURATION.fullmatch(v) is not None


def masked(v: str) -> bool:
    for m in _ELLIPSES:
        i = v.find(m)
        if i > 0 or i == 0 and len(v) - len(m) <= 4:
            return True
    return any(m in v for m in _MASKS)


def phrase_value(v: str) -> bool:
    """A value of several words that is a credential: a passphrase (3 to 12 words of letters
    between blanks, or between dashes, underscores or dots, no function word, no sentence
    punctuation, none naming a credential: kimchi sarang bada hodu baram, maple-orange-river; not
    prod-db-password, a secret's name) or a code in groups (a TOTP setup key, a licence: jcpz cntt
    i5cq 4z7j ..., 3 or more groups of one length)."""
    words = v.split()
    if len(words) == 1:
        words = _SEPARATOR.split(v) if _JOINED.fullmatch(v) else words
    if not 3 <= len(words) <= 12:
        return False
    if all(_GROUP.fullmatch(w) for w in words) and len({len(w) for w in words}) == 1 \
            and any(c.isdigit() for c in v):
        return True
    return all(w.isalpha() and w.lower() == w for w in words) and not any(w in _FUNCTION_WORDS for w in words) \
        and not any(c in w for w in words for c in _CREDENTIAL_PARTS)


_REGION = re.compile(r"(?i)[a-z]{2}(?:-[a-z]+){1,2}-\d[a-z]?")  # us-east-1, europe-west4-b, eu-central-1a


def spaced_password(v: str) -> bool:
    """A password with a blank or three in it (6DIpc@_m 00u4, 2qaqq29 Wk): two to four pieces, no
    word of three letters or more (RS256 signed, v1.2 beta, 30 days, AES-256 GCM stay), no
    brackets, no host, cloud region or lower-case version (3.6+c0LM6, cased at random, is none);
    random-looking once joined, or like a password with a piece mixing letters with digits or
    symbols."""
    words = v.split()
    if not 2 <= len(words) <= 4 or any(c in v for c in "()[]{}<>"):
        return False
    if any(w.isalpha() and len(w) >= 3 or w.lower() in _FUNCTION_WORDS or hostlike(w.lower())
           or VERSIONISH.match(w) and w.lower() == w or _REGION.fullmatch(w) for w in words):
        return False
    joined = "".join(words)
    if len(joined) < 8:
        return False
    return random_looking_cached(joined) or password_like(joined) and any(
        any(c.isalpha() for c in w) and not w.isalpha() for w in words)


# words joined by one kind of separator: maple-orange-river, kimchi_sarang_bada
_JOINED = re.compile(r"[^\W\d_]+(?:(?P<sep>[-_.])[^\W\d_]+)(?:(?P=sep)[^\W\d_]+)+")
_SEPARATOR = re.compile(r"[-_.]")
_CREDENTIAL_PARTS = ("pass", "secret", "token", "key", "cred", "pwd")


def credential_value(v: str, kind: str, short_name: bool = False) -> bool:
    """Whether ``v``, under a name of this kind (credential_key), is the credential itself rather
    than documentation, a reference, a mask or a setting: a value in a table must look like a
    credential (password_like or random), where after ``=`` a plain word may be one."""
    if len(v) < 4 or len(v) > 4096 or masked(v) or count_or_duration(v) or looks_fake(v):
        return False
    if kind == "weak":
        return random_looking_cached(v)
    if any(c.isspace() for c in v) or phrase_value(v):
        return phrase_value(v) or spaced_password(v)
    if placeholder(v, code=False):
        return False
    if short_name:  # pass, pw: a column of pass/fail marks as often as passwords
        return password_like(v.rstrip(".:!?)"))
    return password_like(v) or random_looking_cached(v)


def _credential(key: str, value: str) -> str | None:
    kind = credential_key(key)
    if not kind:
        return None
    short = key_name(key).lower() in ("pass", "pw")
    return "credential-field" if credential_value(value, kind, short) else None


register_judge(FieldJudge(
    "credential-field", "secret",
    "a credential in a table, a column or a labelled field, under a key named like one (the names "
    "credential-assignment and generic-high-entropy read before `=`): aligned `KEY  VALUE` columns and box-drawing "
    "tables as secret managers and PaaS CLIs print them (vault kv get, heroku config, doppler secrets, op item get, "
    "cloud CLIs' table output, kubectl describe), Markdown and psql/mysql tables, CSV/TSV under a header, the key "
    "on the line above its value, Name:/Value: pairs; a type, a description, a count or a duration "
    "(TOKEN_TTL_SECONDS  86400), a mask (****, sk-...abcd) and a reference stay",
    _credential,
    # what the STRONG and WEAK names are built on (a key holding none names no credential; the
    # scrubber's keyword gate finds them): not the words of ids, which key_ok turns down
    # (client_id, *_id), nor pat, sig and pw alone (path, signal, pwd's own): a table of paths
    # would cost and find nothing
    ("pass", "pwd", "_pw", "secret", "token", "key", "cred", "auth", "bearer", "jwt", "salt", "cookie",
     *(w for w in PASSWORD_WORDS if w not in ENGLISH and "pass" not in w)),
    examples=("Key                 Value\n---                 -----\ndb_password         Zq8kL2p{alnum:8}\nttl                 768h",
              "| Variable | Value |\n|---|---|\n| `API_TOKEN` | `{alnum:32}` |",
              "User name,Password,Console login link\nci,Xk9#mz2Lq{alnum:4},https://example.signin.aws.amazon.com/console",
              "Name: GPG_PASSPHRASE\nValeur: {lower:6} {lower:7} {lower:5} {lower:6}",
              "Setup key\n{lowernum:4} {lowernum:4} {lowernum:4} {lowernum:4} 4z7j"),
    counter_examples=("KEY                  VALUE\nTOKEN_TTL_SECONDS    86400\nDB_PASSWORD          ********",
                      "| name | type | description |\n|---|---|---|\n| password | string | The user's password |",
                      "| Variable | Value |\n|---|---|\n| `TOKEN_ENDPOINT` | `https://auth.example.com/oauth2/token` |",
                      "Name: OAUTH_TOKEN_REFRESH_MARGIN\nValue: 300s",
                      # (those of credential-table-cell and credential-name-value, retired for this judge)
                      "| `SECRET_ARN` | `arn:aws:secretsmanager:eu-west-1:{digits:12}:secret:prod/db-{alnum:6}` |",
                      "| `JWT_EXPIRES_IN` | `3600` |", "| `OPENAI_API_KEY` | `sk-...{alnum:4}` |",
                      "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n",
                      "Name: ACCESS_TOKEN_LIFETIME\nValue: 15m", "{\"name\": \"API_TOKEN\", \"value\": \"sk-...{alnum:4}\"}"),
))
