"""What CI systems and log filters print instead of a value (heuristics.MASK_MARK) stays, under
every rule that reads a value after a key, a header, a flag or a URL's user."""

from __future__ import annotations

from jevlin_hooks.privacy import scrub

MARKS = ("[MASKED]", "[masked]", "[FILTERED]", "[REDACTED]", "(hidden)", "[HIDDEN]", "[removed]", "[sensitive]")
FORMS = ('curl -H "PRIVATE-TOKEN: {m}" https://gitlab.example.com/api/v4/projects', "X-Api-Key: {m}",
         "Authorization: Bearer {m}", "app --token {m} --verbose", "GITLAB_TOKEN={m}", "password: {m}",
         '"api_key": "{m}"', "https://deploy:{m}@db.internal/app", "curl -u admin:{m} https://x.internal")


def test_what_ci_and_log_filters_print_instead_of_a_value_stays() -> None:
    # GitLab prints [MASKED] for a masked variable, Rails and Django log filters [FILTERED]
    for mark in MARKS:
        for form in FORMS:
            text = form.format(m=mark)
            assert scrub.scrub(text)[0] == text, text
