"""Every rule's examples are redacted by that rule and its counter-examples are not, with and
without Hyperscan; the table is sound (validate.py) and a broken row is refused, naming the rule."""

from __future__ import annotations

import dataclasses

import pytest

from jevlin_hooks.privacy import checks, scrub
from jevlin_hooks.privacy.checks.judges import JUDGES
from jevlin_hooks.privacy.engine import Scrubber, validate
from jevlin_hooks.privacy.regex import Error
from jevlin_hooks.privacy.rules import BY_NAME, RULES, Rule, counter_examples, examples

SCRUBBERS = {"hyperscan": scrub.default(), "automaton": Scrubber(prefilter=False)}
EXAMPLES = [(r.name, i, text) for r in RULES for i, text in enumerate(examples(r))]
COUNTER = [(r.name, i, text) for r in RULES for i, text in enumerate(counter_examples(r))]


@pytest.fixture(scope="module", params=sorted(SCRUBBERS))
def scrubber(request: pytest.FixtureRequest) -> Scrubber:
    s = SCRUBBERS[request.param]
    s.wait_prefilter()
    return s


@pytest.mark.parametrize(("name", "i", "text"), EXAMPLES, ids=[f"{n}-{i}" for n, i, _ in EXAMPLES])
def test_each_example_is_redacted_by_its_rule(scrubber: Scrubber, name: str, i: int, text: str) -> None:
    assert name in {f.rule for f in scrubber.find(text)}, text
    clean, found = scrubber.scrub(text)
    assert found and "[REDACTED:" in clean
    # and only by its own rule's finding, were the others off: what the docs show it removing
    alone = scrubber.find(text, [r.name for r in [*RULES, *JUDGES] if r.name != name])
    assert alone and {f.rule for f in alone} == {name}, text


@pytest.mark.parametrize(("name", "i", "text"), COUNTER, ids=[f"{n}-{i}" for n, i, _ in COUNTER])
def test_each_counter_example_is_left_by_its_rule(scrubber: Scrubber, name: str, i: int, text: str) -> None:
    assert name not in {f.rule for f in scrubber.find(text)}, text


def test_every_rule_has_an_example_and_the_table_is_sound() -> None:
    assert all(r.examples for r in RULES)
    assert validate.problems() == []
    assert len(COUNTER) > 60


def test_examples_are_the_same_in_every_process() -> None:
    """{alphabet:n} is drawn from a seed of the rule's name: the docs and the tests show one text."""
    r = BY_NAME["github-token"]
    assert examples(r) == examples(dataclasses.replace(r)) and "{" not in examples(r)[0]
    assert examples(r) != examples(dataclasses.replace(r, name="github-token-2"))


def _broken(**fields: object) -> Rule:
    return dataclasses.replace(BY_NAME["credential-assignment"], name="broken", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(("fields", "said"), [
    ({"check": "asignment"}, "no value check named 'asignment'"),
    ({"group": (2, 3, 4, 9)}, "group 9 does not exist"),
    ({"examples": ("export DB_PASSWORD",)}, "its pattern does not match its example"),
    ({"examples": ()}, "no example"),
    ({"pattern": "(unclosed"}, "RE2 refuses the pattern"),
])
def test_a_broken_row_is_named(fields: dict[str, object], said: str) -> None:
    got = validate.problems((*RULES, _broken(**fields)))
    assert len(got) == 1 and got[0].startswith("broken: ") and said in got[0], got


def test_the_engine_refuses_a_misspelt_check_or_a_missing_group() -> None:
    with pytest.raises(checks.UnknownCheck, match="asignment"):
        Scrubber([_broken(check="asignment")], prefilter=False)
    with pytest.raises(ValueError, match="broken: no group 9"):
        Scrubber([_broken(group=9)], prefilter=False)
    with pytest.raises(Error, match="broken"):
        Scrubber([_broken(pattern="(unclosed")], prefilter=False)
