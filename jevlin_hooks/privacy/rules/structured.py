"""Private keys and structured credentials: PEM blocks, JWTs, URLs with a password, auth headers and flags."""

from __future__ import annotations

from jevlin_hooks.privacy.rules.rule import Rule

RULES: tuple[Rule, ...] = (
    Rule("private-key", "secret", "PEM private key blocks (RSA, EC, DSA, OpenSSH, PGP, PKCS#8), also with \\n escapes as in JSON service-account files; a BEGIN line with no END is redacted to the end of its base64",
         r"-----BEGIN[ A-Z0-9_-]{0,}PRIVATE KEY(?: BLOCK)?-----(?:(?:\s|\\n|\\r)*[A-Za-z0-9+/=:\-]{20}[\s\S]*?-----END[ A-Z0-9_-]{0,}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]{16,})",
         ("private key",)),
    Rule("age-secret-key", "secret", "age encryption secret keys (AGE-SECRET-KEY-1...)", r"AGE-SECRET-KEY-1[0-9A-Z]{50,70}", ("age-secret-key",)),
    Rule("jwt", "secret", "JSON Web Tokens (eyJ header . eyJ payload . signature)",
         r"\beyJ[A-Za-z0-9_\-\\]{5,}\.(?:eyJ|ey)[A-Za-z0-9_\-\\]{3,}\.[A-Za-z0-9_\-\\.+/=]*", ("eyj",)),
    Rule("jwt-base64", "secret", "base64-encoded JWTs (ZXlK...)", r"\b(?:ZXlK|ZXlH|ZXlB)[A-Za-z0-9+/=]{20,}", ("zxl",), prefilter=True),
    Rule("url-credentials", "secret", "the password in URLs (scheme://user:pass@host), database and broker connection strings included; scheme, user name, host and path stay (the user name is an account like postgres or app, and it tells which credential leaked); a password with an unencoded @ goes up to the last @ before the host, and a user name may be an e-mail address",
         r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://[^\s:/\"'<>]*:([^\s/\"'<>]{1,})@", ("://",), 1, prefilter=True),
    Rule("url-token-user", "secret", "a token given as a URL's user name with no password (https://TOKEN@github.com/org/repo.git, as git accepts): a random-looking user name of 20 or more characters; a plain account name (git@, deploy-bot@) stays",
         r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://([A-Za-z0-9_\-]{20,})@", ("://",), 1, "userinfo", prefilter=True),
    Rule("authorization-header", "secret", "Authorization / Proxy-Authorization header values (Bearer, Basic, Token, Digest, ...)",
         r"(?i)\b(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?((?:bearer|basic|token|digest|apikey|api-key|negotiate|ntlm|aws4-hmac-sha256|sha256~)?[ \t]*[^\s\"'\\]{3,})",
         ("authorization",), 1, "authz"),
    Rule("bearer-token", "secret", "Bearer tokens outside an Authorization header", r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=\-]{12,})", ("bearer",), 1, prefilter=True),
    Rule("api-header", "secret", "credential-carrying HTTP headers: X-Api-Key, Api-Token, X-Auth-Token, PRIVATE-TOKEN, ... (header names have hyphens: api_key: X is credential-assignment's, with its tests for code, so api_key: Optional[str] stays)",
         r"(?i)(?:^|[^/A-Za-z0-9_\-])(?:x-)?(?:api-?(?:key|token)|auth-?token|access-?token|private-token|x-vault-token|x-goog-api-key)[\"']?[ \t]*:[ \t]*[\"']?([^\s\"'\\$]{6,})",
         ("key", "token"), 1, prefilter=True),
    Rule("basic-auth-flag", "secret", "credentials given to curl/wget/httpie (-u user:pass, --user, --password; HTTPie's http/https/xh -a user:pass and --auth)",
         r"(?:\s-u\s*|--user[\s=]+|--proxy-user[\s=]+|--http-user[\s=]+|\b(?:https?|xh|xhs)\b[^\n|;&]*?[ \t](?:-a[ \t]*|--auth[ \t=]+))(?:\"([^\"\r\n]*\"?:\"?[^\"\r\n]*)\"|'([^'\r\n]*:[^'\r\n]*)'|([^\s\"']*:[^\s\"']*))",
         ("-u", "--user", "user", "-a", "--auth"), (1, 2, 3), "userpass", prefilter=True),
    Rule("basic-auth-flag-quoted", "secret", "curl -u user:'password' with the password quoted on its own",
         r"(?:\s-u\s*|--user[\s=]+)[^\s\"':]+:('[^'\r\n]+'|\"[^\"\r\n]+\")", ("-u", "--user"), 1, prefilter=True),
    Rule("bundler-credentials", "secret", "gem server credentials in Bundler settings (BUNDLE_HOST__NAME: user:pass)",
         r"\bBUNDLE_[A-Z0-9_]*__[A-Z0-9_]+[\"']?[ \t]*[=:][ \t]*[\"']?([^\s\"':]+:[^\s\"']+)", ("bundle_",), 1),
)
