"""The scrubber: the rules compiled once, as one object, and what it finds in a text.

Every rule's pattern is compiled with RE2 (privacy/regex.py): matching time is linear in the input
whatever the input, so hostile text (long runs of near-matches, nested-quantifier bait, one huge
line, binary junk) cannot make scrubbing slow. A keyword gate on the lower-cased text skips the
rules that cannot match: Hyperscan (prefilter.py) where it is installed and ready, otherwise an
Aho-Corasick automaton (privacy/automaton.py); both give the same answer, Hyperscan also says
which patterns cannot match at all and where some can end. The rules that start from a word
(credentials in other languages, labelled phone numbers) take their positions from the gate.
Patterns run on a one-byte-per-character view of the text (text.py), so positions need no
conversion. The rules also read the text's decoded views (views.py: JSON escapes, HTML entities,
URL-encoding, shell quoting, and values split across lines with the joints taken out), each
finding mapped back to the original. Where findings become cuts, a secret's cut grows to the
whole token it falls in, wrapped pieces included (whole.py). Overlapping findings merge; each
redacted span becomes ``[REDACTED:<rule>]`` and nothing of the secret (no prefix, no length
hint) survives.

Options change how the work is done, never what is found (tests and bench/scrub_equivalence.py
hold every combination to the same output): ``prefilter`` (use Hyperscan where installed),
``windows`` (search some rules only on their keywords' lines), ``windows_from`` (from what text
length in bytes: below it a pass costs RE2 about what finding the lines costs Python), ``ends``
(start the rules of bounded length near Hyperscan's match ends).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from jevlin_hooks.privacy import automaton, checks
from jevlin_hooks.privacy.checks import Check
from jevlin_hooks.privacy.checks.judges import JUDGES
from jevlin_hooks.privacy.engine import anchored, everywhere, fieldend, fields, prefilter, scan, views, whole
from jevlin_hooks.privacy.engine import windows as by_lines
from jevlin_hooks.privacy.engine.everywhere import EVERYWHERE, NO_CUTS, Cuts
from jevlin_hooks.privacy.engine.findings import Finding, merge
from jevlin_hooks.privacy.engine.joints import Joint
from jevlin_hooks.privacy.engine.patterns import Pattern, compile_rule
from jevlin_hooks.privacy.engine.prefilter import Anchors, Ends, Prefilter
from jevlin_hooks.privacy.engine.text import SURROGATE, Offsets, char_hits, one_byte_view
from jevlin_hooks.privacy.rules import RULES, Rule

# Between the fields of one record when they are scrubbed together: a line break stops every
# one-line rule, and NUL is no rule's value character, so a match rarely spans two fields (one
# that does, a PEM block cut in two, is clipped and redacted in both).
FIELD_SEP = "\n\x00\n"
WINDOWS_FROM = 4096


@dataclass(frozen=True)
class Hyperscan:
    """Hyperscan's databases for these rules (prefilter.py): the keyword gate and pattern
    prefilter; the match ends of the rules of bounded length, for every text and for long ones;
    where the anchors of the rules searched by lines are."""

    prefilter: Prefilter
    ends: tuple[Ends | None, Ends | None]
    anchors: Anchors | None


class Scrubber:
    """The rules compiled, and scrubbing with them (see the module's docstring for the options).

    RE2 compiles here; Hyperscan's databases, far slower to compile (bench/README.md, Start-up),
    are compiled or loaded from their cache in a background thread, and texts scrubbed before it is
    ready go the Aho-Corasick way, with the same result. A rule naming a check that does not exist, or a group its pattern does not have, is an
    error here.

    What it is made of, for tests and benches that hold a shortcut to the plain way: ``rules``
    and their ``checks``; ``compiled`` (each rule's patterns); ``words`` (the gate's keywords, in
    the order the Hyperscan cache is keyed by); ``lines`` (which rules are searched by lines,
    windows.py); ``hyperscan`` (Hyperscan's databases once ready, else None).
    """

    def __init__(self, rules: Iterable[Rule] = RULES, *, prefilter: bool = True, windows: bool = True,
                 windows_from: int = WINDOWS_FROM, ends: bool = True) -> None:
        self.rules = tuple(rules)
        self.windows, self.windows_from, self._use_ends = windows, windows_from, ends
        self.checks: list[Check | None] = [checks.get(r.check) for r in self.rules]
        common = frozenset(k for r in self.rules for k in r.keywords if k.isascii() and len(k) == 1)
        if any(k.isalpha() for k in common):
            raise ValueError("a one-letter keyword would need the lower-cased text")
        # One-character keywords ("." ":" "=" "@"): a plain `in` test each (memchr), since the
        # automaton would report every one of their thousands of occurrences.
        self._common_bytes = tuple((k, k.encode()) for k in sorted(common))
        extra = {w for r in self.rules for w in r.anchors} | {w for r in self.rules for w in r.near if w.isascii()}
        extra |= set(fields.key_words())  # where the layout reader starts from (fields.py)
        # one order in every process: the prefilter cache is keyed by it
        self.words = sorted({k for r in self.rules for k in r.keywords if k not in common} | extra,
                            key=lambda w: (-len(w), w))
        self._gate = automaton.build(self.words)
        index = {w: k for k, w in enumerate(self.words)}
        self._rules_of_word: dict[int, list[int]] = {}  # gate word -> the rules with that keyword
        for i, r in enumerate(self.rules):
            for w in r.keywords:
                if w in index:
                    self._rules_of_word.setdefault(index[w], []).append(i)
        self._field_words = frozenset(i for i, w in enumerate(self.words) if w in fields.key_words())
        self._always = [i for i, r in enumerate(self.rules) if not r.keywords]  # rules that run on every text
        self._by_keyword: dict[str, list[int]] = {}
        for i, r in enumerate(self.rules):
            for k in r.keywords:
                self._by_keyword.setdefault(k, []).append(i)
        self.compiled: list[list[Pattern]] = []
        to_prefilter: list[tuple[int, str]] = []
        by_end: tuple[list[tuple[int, str]], list[tuple[int, str]]] = ([], [])  # as Hyperscan.ends: every text, long ones
        pid = 0
        for r, c in zip(self.rules, self.checks, strict=True):
            self.compiled.append(compile_rule(r, c, pid))
            pid += len(self.compiled[-1])
            for p in self.compiled[-1]:
                if r.prefilter and r.pattern.isascii():
                    to_prefilter.append((p.pid, p.pattern))
                if r.longest is not None:
                    if len(self.compiled[-1]) != 1 or not r.pattern.isascii() or not (r.longest or anchored.one_line(p.pattern)):
                        raise ValueError(f"{r.name}: `longest` needs one ASCII pattern (and, for 0, matches on one line)")
                    by_end[int(r.longest_in_long_texts)].append((p.pid, p.pattern))
        self.lines: by_lines.LinePlan = by_lines.plan(self.rules, self.checks, self.compiled, self.words, common)
        self._text_gates = {i: c.text_gate for i, c in enumerate(self.checks) if c is not None and c.text_gate is not None}
        self._located = {i: c for i, c in enumerate(self.checks) if c is not None and c.from_word is not None}
        self._own = {i: frozenset(self.rules[i].keywords) for i in self._located}  # (built once, not per text)
        # which of Hyperscan's two ends databases a rule of bounded length is in (every text, long ones)
        self._end_db = {i: int(r.longest_in_long_texts) for i, r in enumerate(self.rules) if r.longest is not None}
        self._pii = frozenset(r.name for r in self.rules if r.category == "pii")  # a phone number is not split in two
        # cut whole tokens (whole.py), but where the check's span is the value whole (printed output)
        self._secret = frozenset(r.name for r, c in zip(self.rules, self.checks, strict=True)
                                 if r.category == "secret" and (c is None or c.whole))
        self._field_value = frozenset(r.name for r in self.rules if r.field_value and r.name in self._secret)
        self._prefixes = {r.name: tuple(k.lower() for k in r.keywords) for r in self.rules if r.category == "secret" and r.keywords}
        # the rules whose values spread (everywhere.py): those found by their context (a key name,
        # a flag, a word nearby); a value a rule matches alone is found again wherever it is
        # (and the field judges': a value under a key, fields.py)
        self.spreads = frozenset(r.name for r in self.rules if r.groups != (0,) or r.near or r.check in ("yamlblock", "k8s")) \
            | frozenset(j.name for j in JUDGES) \
            | frozenset(r.name for r, c in zip(self.rules, self.checks, strict=True)  # personal data its label or place gave
                        if r.category == "pii" and c is not None and (c.from_word is not None or c.span is not None))
        self.hyperscan: Hyperscan | None = None
        self._ready = threading.Event()
        self._wants_hyperscan = prefilter and _hyperscan_installed()
        if self._wants_hyperscan:
            self._start_hyperscan(to_prefilter, by_end)

    def _start_hyperscan(self, to_prefilter: list[tuple[int, str]],
                         by_end: tuple[list[tuple[int, str]], list[tuple[int, str]]]) -> None:
        """Hyperscan's compile (when nothing is cached) is far slower than RE2's and lets other
        threads run meanwhile: the first texts are scrubbed without it, with the same result."""
        located = {k for r, c in zip(self.rules, self.checks, strict=True) if c is not None and c.from_word is not None
                   for k in r.keywords} | set(fields.key_words())
        anchors = sorted({(self.words.index(w), w) for d in (self.lines.windowed, self.lines.near_windowed)
                          for ws in d.values() for w in ws})
        threading.Thread(target=self._build_hyperscan, name="jevlin-scrub-prefilter", daemon=True,
                         args=([i for i, w in enumerate(self.words) if w in located], to_prefilter, by_end,
                               anchors)).start()

    def _build_hyperscan(self, located: list[int], patterns: list[tuple[int, str]],
                         by_end: tuple[list[tuple[int, str]], list[tuple[int, str]]], anchors: list[tuple[int, str]]) -> None:
        try:
            found_anchors = prefilter.build_anchors(anchors)
            ends = (prefilter.build_ends(by_end[0]), prefilter.build_ends(by_end[1]))
            # In long texts the rules started near their match ends need no prefilter: the ends
            # database, scanned for them anyway, says where they can match, or that they cannot.
            # (Cards, phone numbers and IBANs were 170 us of the prefilter's 300 a varied message.)
            long_skip = [pid for pid, _ in by_end[1]] if ends[1] is not None else []
            pf = prefilter.build(self.words, located, patterns, long_skip)
            self.hyperscan = Hyperscan(pf, ends, found_anchors) if pf is not None else None
        except Exception:  # noqa: BLE001 - whatever goes wrong, scrubbing goes on without it, unchanged
            self.hyperscan = None
        finally:
            self._ready.set()

    def wait_prefilter(self, timeout: float = 10.0) -> bool:
        """Wait for the Hyperscan prefilter (benches and tests measure and test the steady state);
        whether it runs."""
        if self._wants_hyperscan:
            self._ready.wait(timeout)
        return self.hyperscan is not None

    # --- finding -----------------------------------------------------------------------------

    def find(self, text: str, disabled: Iterable[str] = (), decoded: bool = True) -> list[Finding]:
        """Every finding, before merging and before the cuts grow to whole tokens. With
        ``decoded``, also what the rules find in the text's decoded views (views.py): encoded
        values decoded, values split across lines put back together."""
        off = set(disabled)
        if not decoded:
            return self._find(text, off, None)
        return self._found(text, off, one_byte_view(text))[0]

    def _found(self, text: str, off: set[str], ascii_view: bytes) -> tuple[list[Finding], list[Joint]]:
        """What the rules find in the text and in its views; and the text's joints."""
        out = self._find(text, off, None, ascii_view)
        layers, joints = views.layers(text, ascii_view, off)
        if layers:
            out.extend(views.found(layers, off, self._pii, self.find_across))
        return out, joints

    def _selected(self, g: _Gate) -> set[int]:
        """The rules a text's gate lets through: those always run, and those of its keywords."""
        selected = set(self._always)
        of_word = self._rules_of_word  # (by index: the gate's words need not be looked up as str)
        for k in g.ids:
            rules = of_word.get(k)
            if rules is not None:
                selected.update(rules)
        for c in g.common:
            selected.update(self._by_keyword[c])
        return selected

    def _find(self, text: str, off: set[str], across: list[int] | None, ascii_view: bytes | None = None) -> list[Finding]:
        """What the rules find in ``text``; with ``across`` (sorted positions), a match that spans
        none of them is not checked (views.found searches a view's windows so)."""
        if ascii_view is None:
            ascii_view = one_byte_view(text)
        lower = text.lower()
        g = _Gate(self, text, lower, ascii_view)
        selected = self._selected(g)
        out: list[Finding] = []
        utf8s: list[tuple[bytes, Offsets]] = []
        hs = g.hyperscan
        ends_dbs = list(hs.ends) if hs is not None and self._use_ends else [None, None]
        if len(ascii_view) < self.windows_from:
            ends_dbs[1] = None
        ends: list[dict[int, list[int]] | None] = [None, None]
        lines = self._windows(g, text, lower, ascii_view, selected) if len(ascii_view) >= self.windows_from else {}
        # what the loop asks of a few rules, by index: the rest of the rules' objects stay untouched
        # (a daemon record arrives with cold caches, where every object read is a miss)
        rules, compiled, possible, gated = self.rules, self.compiled, g.possible, g.gated
        text_gates, located, end_db = self._text_gates, self._located, self._end_db
        by_rule: dict[int, list[tuple[int, int, int]]] | None = None
        for i in sorted(selected):
            rule = rules[i]
            if rule.name in off:
                continue
            if i in text_gates and not text_gates[i](lower):
                continue  # its check wants something in the text (a kind: Secret): none, no finding
            if i in located and len(lower) == len(text):
                # The gate already found every word these rules start from: no need for RE2 to
                # look again (with Unicode case folding, their patterns are the slowest). Each
                # rule reads only its own words' positions.
                if by_rule is None:
                    by_rule = {}
                    for hit in g.hits:
                        for r in self._rules_of_word.get(hit[0], ()):
                            by_rule.setdefault(r, []).append(hit)
                own = by_rule.get(i)
                if own:
                    out.extend(scan.located_findings(rule, located[i], text, lower, own, self.words, self._own[i]))
                continue
            for c in compiled[i]:
                if possible is not None and c.pid not in possible and c.pid in gated:
                    continue  # Hyperscan: this pattern cannot match here
                j = end_db.get(i)
                db = ends_dbs[j] if j is not None else None
                if db is not None and j is not None:
                    if ends[j] is None:
                        try:
                            ends[j] = db.ends(ascii_view)
                        except prefilter.Error:
                            ends[j] = None
                        if ends[j] is None:  # refused, or too many matches: RE2 walks as ever
                            ends_dbs[j] = None
                    found = ends[j]
                    if found is not None:
                        scan.run(c, text, lower, ascii_view, utf8s, out, across, (found.get(c.pid, []), rule.longest or 0))
                        continue
                scan.run(c, text, lower, ascii_view, utf8s, out, across, windows=lines.get(i))
        if across is None:  # keys and values laid out in tables and pairs (fields.py), from the gate's words
            where = [s for k, s, _ in g.hits if k in self._field_words] if len(lower) == len(text) else None
            out.extend(fields.findings(text, ascii_view, off, where))
        return out

    def find_across(self, window: str, off: set[str], across: list[int]) -> list[Finding]:
        """What views.found looks for in a window of a view: the matches that hold an edit."""
        return self._find(window, off, across)

    def cuts(self, text: str, disabled: Iterable[str] = ()) -> list[Finding]:
        """The spans scrub() redacts: every finding, each secret's grown to its whole token
        (whole.py; off with ``whole-token`` among ``disabled``), merged."""
        off = set(disabled)
        view = one_byte_view(text)
        findings, joints = self._found(text, off, view)
        if fieldend.NAME not in off:
            findings = fieldend.grow(text, findings, self._field_value)
        if whole.NAME not in off:
            findings = whole.whole(text, view, findings, joints, self._secret, self._prefixes)
        return merge(findings)

    def _windows(self, g: _Gate, text: str, lower: str, view: bytes, selected: set[int]) -> dict[int, list[tuple[int, int]]]:
        """Where each rule searched by lines is searched in this text (see windows.py)."""
        if not (self.windows and len(view) >= self.windows_from and not self.lines.by_lines.isdisjoint(selected)):
            return {}
        anchor_hits = g.anchor_hits
        if g.hyperscan is not None:
            try:
                anchor_hits = g.hyperscan.anchors.scan(view) if g.hyperscan.anchors is not None else None
            except prefilter.Error:
                anchor_hits = None
        if anchor_hits is None:
            return {}
        # near words are read in the lower-cased text: its offsets are the view's, and its words the
        # view's lower-cased (U+212A KELVIN SIGN lower-cases to k), where lengths stay and no such sign is there
        near_ok = len(lower) == len(text) and (text.isascii() or "\u212a" not in text)
        return by_lines.windows(self.lines, view, anchor_hits, selected, near_ok)

    def windows_for(self, text: str) -> dict[str, list[tuple[int, int]]]:
        """Where in ``text`` each rule searched by lines would be searched, by rule name (a rule
        searched whole, or not at all, is not listed)."""
        ascii_view = one_byte_view(text)
        lower = text.lower()
        g = _Gate(self, text, lower, ascii_view)
        selected = self._selected(g)
        return {self.rules[i].name: spans for i, spans in self._windows(g, text, lower, ascii_view, selected).items()}

    def word_hits(self, text: str) -> list[tuple[str, int, int]]:
        """Where the words that the located rules start from occur in ``text`` (word, start, end
        in characters), as the gate reports them: Hyperscan's where it is ready, the automaton's
        otherwise."""
        lower = text.lower()
        g = _Gate(self, text, lower, one_byte_view(text))
        located = {k for r, c in zip(self.rules, self.checks, strict=True) if c is not None and c.from_word is not None
                   for k in r.keywords}
        return sorted((self.words[k], s, e) for k, s, e in g.hits if self.words[k] in located)

    # --- scrubbing ---------------------------------------------------------------------------

    def scrub(self, text: str, disabled: Iterable[str] = ()) -> tuple[str, list[Finding]]:
        """``(clean_text, findings)``; findings hold rule names and positions, never the secret.
        A value cut once is cut at its other places in the text too (everywhere.py)."""
        if not text:
            return text, []
        off = set(disabled)
        findings = self.cuts(text, off)
        if not findings:
            return text, []
        if EVERYWHERE not in off:
            findings = merge(everywhere.spread(text, findings, self.spreads))
        parts = []
        pos = 0
        for f in findings:
            parts.append(text[pos:f.start])
            parts.append(f"[REDACTED:{f.rule}]")
            pos = f.end
        parts.append(text[pos:])
        return "".join(parts), findings

    def scrub_many(self, texts: list[str], disabled: Iterable[str] = ()) -> list[tuple[str, int]]:
        """``[(clean_text, findings)]`` for several texts (a record's fields) in one pass: the
        keyword gate and each rule run once over all of them instead of once per field."""
        return [(clean, n) for clean, n, _ in self.scrub_fields(texts, disabled)]

    def scrub_fields(self, texts: list[str], disabled: Iterable[str] = ()) -> list[Scrubbed]:
        """As scrub_many, each text's ``(clean_text, findings, cuts)``: ``cuts`` what was cut out
        of it, values worth cutting wherever else they occur, for the record step (everywhere.py)."""
        off = set(disabled)
        if len(texts) == 1:
            t = texts[0]
            return [self._scrubbed(t, self.cuts(t, off) if t else [], off)]
        joined = FIELD_SEP.join(texts)
        findings = self.cuts(joined, off) if joined else []
        if not findings:
            return [(t, 0, NO_CUTS) for t in texts]
        out: list[Scrubbed] = []
        base = 0
        k = 0
        for t in texts:
            end = base + len(t)
            while k < len(findings) and findings[k].end <= base:
                k += 1
            if k == len(findings) or findings[k].start >= end:
                out.append((t, 0, NO_CUTS))
            else:
                local: list[Finding] = []
                j = k
                while j < len(findings) and findings[j].start < end:
                    f = findings[j]  # clipped to this text (a match across fields is redacted in both)
                    local.append(Finding(f.rule, max(f.start, base) - base, min(f.end, end) - base))
                    j += 1
                out.append(self._scrubbed(t, local, off))
            base = end + len(FIELD_SEP)
        return out

    def _scrubbed(self, text: str, findings: list[Finding], off: set[str]) -> Scrubbed:
        """One text's result from its merged findings, with the values they cut spread over it."""
        if not findings:
            return text, 0, NO_CUTS
        cuts = NO_CUTS
        if EVERYWHERE not in off:
            cuts = Cuts(everywhere.cuts_of(text, findings, self.spreads))
            extra = [f for f in everywhere.occurrences(text, cuts) if not everywhere.inside(f, findings)] if cuts else []
            if extra:
                findings = merge(findings + extra)
        parts: list[str] = []
        pos = 0
        for f in findings:
            parts.append(text[pos:f.start])
            parts.append(f"[REDACTED:{f.rule}]")
            pos = f.end
        parts.append(text[pos:])
        return "".join(parts), len(findings), cuts


# One text scrubbed: its clean form, how many findings were redacted, and what they cut (a plain
# tuple: a record's texts make one each, and a dataclass or NamedTuple cost the daemon's mix 5%).
Scrubbed = tuple[str, int, "Cuts"]


def _hyperscan_installed() -> bool:
    """prefilter.available(), where Scrubber.__init__'s option of the same name hides the module."""
    return prefilter.available()


class _Gate:
    """Which keywords occur in a text (``ids``: the indices of the gate's words; ``common``: the
    one-character keywords), where the words the located rules start from are (``hits``: word
    index, start, end in characters), and, from Hyperscan where it is ready, which patterns may
    match (``possible``, answering for the patterns in ``gated``)."""

    __slots__ = ("hyperscan", "ids", "common", "hits", "anchor_hits", "possible", "gated")

    def __init__(self, s: Scrubber, text: str, lower: str, view: bytes) -> None:
        hs = s.hyperscan
        self.possible: set[int] | None = None
        self.gated: frozenset[int] = frozenset()  # the patterns `possible` answers for
        self.anchor_hits: list[tuple[int, int, int]] | None = None
        if hs is not None:
            pf = hs.prefilter
            try:
                lower_utf8 = lower.encode("utf-8", "surrogatepass")
                ids, where = pf.keywords(lower_utf8)
                long_text = len(view) >= s.windows_from  # as the ends database for long texts
                self.possible = pf.possible(view, long_text)
                self.gated = pf.long_ids if long_text else pf.pattern_ids
            except prefilter.Error:  # a scan Hyperscan refuses: this text goes the slower way
                hs = self.possible = None
            else:
                self.ids = ids
                self.hits = char_hits(lower, lower_utf8, where, s.words)
        self.hyperscan = hs
        if hs is None:
            # Aho-Corasick, overlapping: every keyword occurrence in one linear pass ("sk_test_" holds
            # both "sk" and "k_test_", which a non-overlapping regex scan would not both report).
            try:
                hits = s._gate.find_matches_as_indexes(lower, overlapping=True)
            except UnicodeEncodeError:  # a lone surrogate (from JSON): no keyword holds one
                hits = s._gate.find_matches_as_indexes(SURROGATE.sub("\x1a", lower), overlapping=True)
            self.hits = hits
            self.ids = {k for k, _, _ in hits}
            # the automaton's positions are the one-byte view's only where lower-casing kept every
            # length; and past a budget (it reports `id`, `key`, ... too) looking through them costs
            # more than the passes they would spare
            self.anchor_hits = hits if len(lower) == len(text) and len(hits) <= 64 + len(text) // 256 else None
        # punctuation: the same in text, lower and view
        self.common = [k for k, b in s._common_bytes if b in view]
