"""The check of credential-flag-name (rules/flags.py): a flag's name and its value.

The name is judged as a key before ``=`` is (checks/judges.credential_key), a flag's whole name
``key``, ``auth`` or ``cookie`` as a credential's; ``-k`` only after a command whose words name a
credential. The value is judged as a table's is (judges.credential_value: it must look like a
credential), and a path, a key's file, a URL and another flag stay.
"""

from __future__ import annotations

import re
from typing import Any

from jevlin_hooks.privacy.checks.judges import credential_key, credential_value
from jevlin_hooks.privacy.checks.registry import check

# a flag's whole name that says credential though, before `=`, it only hints (key = 3, auth = true)
_WHOLE = frozenset(("key", "auth", "cookie", "creds", "pat"))
# the words of a command that takes a credential with -k (vault login, sops --encrypt, a keychain)
_CREDENTIAL_COMMAND = re.compile(r"(?i)key|secret|token|pass|cred|auth|login|vault|crypt|sign|unlock")
_FILE = re.compile(r"(?i)[\w.\-]*\.(?:pem|key|pub|p12|pfx|crt|cer|der|jks|keystore|gpg|asc|kdbx|json|txt|ya?ml|env)")
_SEGMENT_START = re.compile(r"[|;&\n]")


def _command_names_credential(text: str, flag_start: int) -> bool:
    ls = max((m.end() for m in _SEGMENT_START.finditer(text, max(0, flag_start - 300), flag_start)), default=0)
    return _CREDENTIAL_COMMAND.search(text, ls, flag_start) is not None


@check("flag-name", needs_match=True)
def flag_name(value: str, text: str, start: int, end: int, m: Any, lower: str) -> bool:
    flag = m.group(1) if m is not None else ""
    name = flag.lstrip("-")
    if flag == "-k" or flag == "-K":
        if not _command_names_credential(text, m.start(1)):
            return False
        kind = "strong"
    elif name.lower() in _WHOLE:
        kind = "strong"
    else:
        kind = credential_key(name)
    if not kind:
        return False
    v = value.strip()
    if v.startswith(("-", "/", "~", "./", "../", "$", "%", "<", "{")) or "://" in v or _FILE.fullmatch(v):
        return False  # another flag, a path, a URL, a reference, a file: not the credential
    return credential_value(v, kind)
