"""A credential given by a command-line flag whose name says credential.

credential-flag (context.py) knows a list of flags (--password, --token, --api-key, ...); this
rule knows the name behind them: any flag, long or short, whose name the key-name judgement of
``KEY=value`` reads as a credential's (checks/judges.credential_key: --pat, --credentials,
--license-key, --signing-key, --db-pass, ...), and ``--key``, ``--auth`` and ``--cookie``, a
flag's whole name. ``-k`` takes a credential only after a command whose words name one (``vault
login -k X``, ``sops --encrypt -k X``; not ``curl -k https://...``). checks/flags.py judges the
name and the value.
"""

from __future__ import annotations

from jevlin_hooks.privacy.rules import parts
from jevlin_hooks.privacy.rules.rule import Rule

# What a credential's flag name holds; the check reads the whole name (--keyboard, --token-ttl,
# --auth-type and --key-file are no credential's and stay)
_STEMS = r"(?:key|auth|pat|cred|pass|pwd|pw|secret|token|licen[cs]e|bearer|cookie|jwt)"
_FLAG = r"(-{1,2}[A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*?" + _STEMS + r"[A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*|-k)"

RULES: tuple[Rule, ...] = (
    Rule("credential-flag-name", "secret", "a credential given to any command-line flag whose name says credential, "
         "judged as a key name before `=` is (`--pat X`, `--credentials X`, `--license-key X`, `--signing-key=X`, "
         "`--db-pass X`), and `--key X`, `--auth X`: search queries included; `-k X` after a command whose words name "
         "a credential (`vault login -k X`); the value must look like a credential: a path, a file, a URL, a number, "
         "a plain word, another flag and a placeholder stay (`--key-file ~/.ssh/id_ed25519`, `--token-ttl 3600`, "
         "`--auth-type basic`, `curl -k https://...`)",
         r"(?i)(?:^|[\s\"'(;|&])" + _FLAG + r"(?:=|[ \t]+)" + parts.CMD_VALUE,
         ("-key", "-auth", "-pat", "-cred", "-pass", "-pwd", "-pw", "-secret", "-token", "-licen", "-bearer",
          "-cookie", "-jwt", "-api", "-k ", "-k="),
         (2, 3, 4), "flag-name", prefilter=True,
         examples=("jevlin search --key {alnum:24} how to rotate", "gh api --pat ghx_{alnum:30} /user",
                   "tool --credentials Zq8#kL2p{alnum:6} --region eu-west-1", "app --license-key {upper:4}-{digits:4}-{upper:4}-{digits:4}",
                   "jevlin search --auth 'admin:Xk9#mz2Lq{alnum:4}' retry", "vault login -method=token -k {alnum:26}"),
         counter_examples=("ssh -i ~/.ssh/id_ed25519 --key-file ~/.ssh/id_ed25519 host", "app --token-ttl 3600 --auth-type basic",
                           "curl -k https://example.com/api", "sort --key 2 data.txt", "git log --author alice",
                           "jevlin search --key name how to rotate")),
)
