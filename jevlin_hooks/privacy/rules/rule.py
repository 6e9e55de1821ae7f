"""What a scrub rule is: one typed row, read by the engine, the docs and the tests."""

from __future__ import annotations

import random
import re
import string
import zlib
from collections.abc import Iterator
from dataclasses import KW_ONLY, dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule. ``pattern`` is RE2 syntax (no backtracking: no input can make a rule slow).

    ``keywords`` gate the rule: it runs only where one of them occurs in the lower-cased text (the
    prefilter that keeps 130 rules cheap). ``group`` names the capture group that is the secret
    (0 = the whole match; a tuple: the first that matched); the rest of the match (a key name,
    ``Bearer``) stays readable. ``check`` names the value check that must also accept a match
    (privacy/checks/: a misspelt name is an error), and ``near`` lists words of which one must
    start in the 64 characters before the value.

    ``examples`` must be redacted by this rule and ``counter_examples`` must not be (a test runs
    them all; docs/privacy.md shows them). ``{alnum:36}`` in either stands for 36 random characters
    of that alphabet (see ALPHABETS), drawn from a seed of the rule's name: no secret-shaped
    string sits in the repository, and every run sees the same text.

    The fields after those change how fast the engine finds the matches, never which: see
    privacy/engine/ for what each one buys.
    """

    name: str
    category: str  # "secret" or "pii"
    description: str
    pattern: str
    keywords: tuple[str, ...] = ()
    group: int | tuple[int, ...] = 0
    check: str = ""
    near: tuple[str, ...] = ()
    _: KW_ONLY
    examples: tuple[str, ...] = ()
    counter_examples: tuple[str, ...] = ()
    # Hyperscan's prefilter says first whether the pattern can match at all: for rules whose RE2
    # pass often finds nothing on agent text and costs more than the rule adds to Hyperscan's one
    # pass (measured pattern by pattern on bench/scrub_speed.py's mixes). Not for rules that match
    # in nearly every text (a prefilter cannot save their pass), rules that cost Hyperscan about
    # what they cost RE2, and rules RE2 skips through by memchr.
    prefilter: bool = False
    # Matches are at most this many bytes long (0: unbounded, but on one line): RE2 starts near
    # the match ends Hyperscan reports instead of walking the whole text (engine/scan.py).
    longest: int | None = None
    # ... and only in texts of `windows_from` bytes or more (a record's 1-3 KiB costs RE2 less).
    longest_in_long_texts: bool = False
    # Words a match can hold instead of a keyword, where the keyword is only the commonest
    # spelling: the lines searched (engine/windows.py) come from these too; the gate is as it is.
    anchors: tuple[str, ...] = ()
    # Every match holds an @: RE2 looks only around each one (engine/scan.py next_email).
    around_at_sign: bool = False
    # The value is whatever the key is given: unquoted, after a key that starts its field (a
    # line, a `code span`, a `; `-separated setting), it runs to the field's end (engine/fieldend.py).
    field_value: bool = False

    @property
    def groups(self) -> tuple[int, ...]:
        return self.group if isinstance(self.group, tuple) else (self.group,)


# The alphabets an example may draw from: {name:count}.
ALPHABETS = {
    "alnum": string.ascii_letters + string.digits,
    "lower": string.ascii_lowercase,
    "upper": string.ascii_uppercase,
    "letters": string.ascii_letters,
    "digits": string.digits,
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "lowernum": string.ascii_lowercase + string.digits,
    "uppernum": string.ascii_uppercase + string.digits,
    "b64": string.ascii_letters + string.digits + "+/",
    "b64url": string.ascii_letters + string.digits + "-_",
}
_DRAW = re.compile(r"\{(" + "|".join(ALPHABETS) + r"):(\d+)\}")


def expand(rule: Rule, template: str, salt: str) -> str:
    """``template`` with each {alphabet:n} replaced by n characters drawn from a generator seeded
    by the rule's name and ``salt`` (which example): the same text in every run and process."""
    return expand_named(rule.name, template, salt)


def expand_named(name: str, template: str, salt: str) -> str:
    """expand() for what is named like a rule without being a pattern's row (a field judge)."""
    rng = random.Random(zlib.crc32(f"{name}\0{salt}".encode()))
    return _DRAW.sub(lambda m: "".join(rng.choice(ALPHABETS[m.group(1)]) for _ in range(int(m.group(2)))), template)


def examples(rule: Rule) -> list[str]:
    return [expand(rule, t, f"example {i}") for i, t in enumerate(rule.examples)]


def counter_examples(rule: Rule) -> list[str]:
    return [expand(rule, t, f"counter {i}") for i, t in enumerate(rule.counter_examples)]


def pattern_pieces(pattern: str) -> Iterator[tuple[int, str, bool]]:
    """A pattern's pieces, for the code that rewrites patterns (engine/patterns.py,
    engine/prefilter.py): each escape (a backslash and what follows) whole, every other character
    alone, with its position and whether it stands inside a character class (a ``]`` first in the
    class is a member)."""
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            yield i, pattern[i:i + 2], in_class
            i += 2
            continue
        yield i, ch, in_class
        if in_class:
            in_class = not (ch == "]" and pattern[i - 1] != "[" and pattern[i - 2:i] != "[^")
        elif ch == "[":
            in_class = True
        i += 1
