"""The scrub rules: one table, read by the scrubber, the docs and `jevlin-hooks scrub --list-rules`.

Written for this project from the public descriptions of each credential format (vendor docs and
announcements of token prefixes), in RE2 syntax: no backtracking, so no input can make a rule
slow. ``keywords`` gate a rule: it runs only when one of them occurs in the lower-cased text
(the prefilter that keeps 40+ rules cheap). ``group`` names the capture group that is the secret
(0 = the whole match); the rest of the match (a key name, ``Bearer``) stays readable.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rule:
    name: str
    category: str  # "secret" or "pii"
    description: str
    pattern: str
    keywords: tuple[str, ...] = ()
    group: int | tuple[int, ...] = 0
    check: str = ""  # extra validation by name, see scrub.py: "value", "entropy"
    near: tuple[str, ...] = ()  # one of these words must occur in the 64 characters before the match
    flags: tuple[str, ...] = field(default_factory=tuple)


# Key names that say "the value is a credential" in env files, exports, JSON, YAML, TOML, XML,
# INI, code and command-line flags.
_STRONG = (
    r"[a-z0-9_.\-]*(?:passw(?:or)?d|passphrase|\bpwd|secret|token|api[_.\-]?key|apikey|access[_.\-]?key"
    r"|auth[_.\-]?key|private[_.\-]?key|client[_.\-]?secret|credentials?|session[_.\-]?key|signing[_.\-]?key"
    r"|encryption[_.\-]?key|master[_.\-]?key|license[_.\-]?key|app[_.\-]?key|secret[_.\-]?key|bearer|jwt"
    r"|auth[_.\-]?token|creds|passcode)[a-z0-9_.\-]*|[a-z0-9_.\-]*[a-z0-9][_.\-]?key"
    # a personal access token (GITHUB_PAT, pat_token) and a signature (url_sig) only as a part of the
    # name of their own: path, pattern, capath, dispatch, __darwin_sigset_t hold the letters
    r"|[a-z0-9_.\-]*(?:pat|_sig)(?:[_.\-][a-z0-9_.\-]*)?"
    # DB_PASS, SMTP_PASS, MYSQL_PWD, LDAP_BIND_PW, REDIS_PASSWD: the short forms only at the end;
    # pass and pw alone (user: bob / pass: X) where the value looks like a password (scrub.py)
    r"|[a-z0-9_.\-]*[a-z0-9][_.\-](?:pass|pwd|pw|passwd|passphrase)|pass|pw"
)
# Key names that only hint: the value must also look random (the entropy check).
_WEAK = r"[a-z0-9_.\-]*(?:key|_id|client[_.\-]?id|access[_.\-]?id|sid|account|auth|salt|hash|cookie)[a-z0-9_.\-]*"

_QUOTED_OR_BARE = r"""(?:"([^"\r\n]{3,})"|'([^'\r\n]{3,})'|`([^`\r\n]{3,})`|["'`]?([^\s"'`,;<>{}()\[\]\\]{3,}))"""
# `key = v`, `key: v`, `key := v`, `key => v`, `"key", "v"`, `env["key"] = v`, and typed declarations
# (`String key = v`, `var key string = v`); never across a line break.
_ASSIGN = r"""(?:["'`]?\]?[ \t]*(?:=>|:{1,3}=|[?.+:]?=|\|\|=|\?\?=|:)|["'`][ \t]*,|[ \t]+[A-Za-z_][\w.\[\]<>]*[ \t]*=)[ \t]*"""

# A value after a command-line flag: quoted whole, or a bare shell word.
_CMD_VALUE = r"""(?:'([^'\r\n]+)'|"([^"\r\n]+)"|([^\s'"`;|&<>()]+))"""

# Credential words in the user's language (lower case: the keyword gate sees lower-cased text).
# English ones are the other rules' job; "password" joins only where another language's verb follows.
_I18N_WORDS = (
    # the twelve the issue names
    "passwort", "kennwort", "zugangsdaten", "schlüssel", "geheime", "geheimnis", "mot de passe", "mdp", "clé", "clef",
    "jeton", "contraseña", "contrasena", "clave", "secreto", "senha", "palavra-passe", "chave", "chiave", "segreto",
    "parola d'ordine", "wachtwoord", "sleutel", "парол", "ключ", "токен", "секрет", "hasł", "klucz", "şifre", "parola",
    "anahtar", "密码", "密碼", "密钥", "密鑰", "秘钥", "金鑰", "口令", "令牌", "パスワード", "暗証番号", "秘密鍵", "キー",
    "トークン", "シークレット", "비밀번호", "암호", "패스워드", "키", "토큰",
    # "password" and "token" followed by another language's words
    "password è", "password é", "password ist", "password est", "password es", "password del", "password della",
    "password dell'", "password di", "password per", "password do", "password da", "password de", "password van",
    "password für", "password voor", "token de", "token d'", "token di", "token do", "token da", "token è", "token é",
    "token ist", "token est", "token es",
    # a few more languages, as cheap as the others
    "heslo", "lösenord", "adgangskode", "passord", "salasana", "jelszó", "κωδικός", "סיסמה", "كلمة المرور", "पासवर्ड",
    "mật khẩu", "kata sandi", "รหัสผ่าน",
)

_PHONE_WORDS_LATIN = (
    "phone", "tel", "call", "callback", "call back", "hotline", "mobile", "cell", "fax", "whatsapp", "sms", "text me",
    "ring", "dial", "kontakt", "telefon", "contact", "reach", "telefonnummer", "handynummer", "mobilnummer", "rufnummer",
    "handy", "téléphone", "portable", "teléfono", "móvil", "celular", "telefone", "telemóvel", "telefono", "cellulare",
    "nummer", "número", "numéro", "numero", "numer", "tél", "my number", "mob",
)
_PHONE_WORDS_OTHER = ("телефон", "тел.", "电话", "手机", "電話", "携帯", "전화", "휴대폰")

RULES: tuple[Rule, ...] = (
    # --- private keys and structured credentials -------------------------------------------
    Rule("private-key", "secret", "PEM private key blocks (RSA, EC, DSA, OpenSSH, PGP, PKCS#8), also with \\n escapes as in JSON service-account files; a BEGIN line with no END is redacted to the end of its base64",
         r"-----BEGIN[ A-Z0-9_-]{0,}PRIVATE KEY(?: BLOCK)?-----(?:(?:\s|\\n|\\r)*[A-Za-z0-9+/=:\-]{20}[\s\S]*?-----END[ A-Z0-9_-]{0,}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\]{16,})",
         ("private key",)),
    Rule("age-secret-key", "secret", "age encryption secret keys (AGE-SECRET-KEY-1...)", r"AGE-SECRET-KEY-1[0-9A-Z]{50,70}", ("age-secret-key",)),
    Rule("jwt", "secret", "JSON Web Tokens (eyJ header . eyJ payload . signature)",
         r"\beyJ[A-Za-z0-9_\-\\]{5,}\.(?:eyJ|ey)[A-Za-z0-9_\-\\]{3,}\.[A-Za-z0-9_\-\\.+/=]*", ("eyj",)),
    Rule("jwt-base64", "secret", "base64-encoded JWTs (ZXlK...)", r"\b(?:ZXlK|ZXlH|ZXlB)[A-Za-z0-9+/=]{20,}", ("zxl",)),
    Rule("url-credentials", "secret", "the password in URLs (scheme://user:pass@host), database and broker connection strings included; scheme, user name, host and path stay (the user name is an account like postgres or app, and it tells which credential leaked); a password with an unencoded @ goes up to the last @ before the host, and a user name may be an e-mail address",
         r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://[^\s:/\"'<>]*:([^\s/\"'<>]{1,})@", ("://",), 1),
    Rule("url-token-user", "secret", "a token given as a URL's user name with no password (https://TOKEN@github.com/org/repo.git, as git accepts): a random-looking user name of 20 or more characters; a plain account name (git@, deploy-bot@) stays",
         r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,30}://([A-Za-z0-9_\-]{20,})@", ("://",), 1, "userinfo"),
    Rule("authorization-header", "secret", "Authorization / Proxy-Authorization header values (Bearer, Basic, Token, Digest, ...)",
         r"(?i)\b(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?((?:bearer|basic|token|digest|apikey|api-key|negotiate|ntlm|aws4-hmac-sha256|sha256~)?[ \t]*[^\s\"'\\]{3,})",
         ("authorization",), 1, "authz"),
    Rule("bearer-token", "secret", "Bearer tokens outside an Authorization header", r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=\-]{12,})", ("bearer",), 1),
    Rule("api-header", "secret", "credential-carrying HTTP headers: X-Api-Key, Api-Token, X-Auth-Token, PRIVATE-TOKEN, ... (header names have hyphens: api_key: X is credential-assignment's, with its tests for code, so api_key: Optional[str] stays)",
         r"(?i)(?:^|[^/A-Za-z0-9_\-])(?:x-)?(?:api-?(?:key|token)|auth-?token|access-?token|private-token|x-vault-token|x-goog-api-key)[\"']?[ \t]*:[ \t]*[\"']?([^\s\"'\\$]{6,})",
         ("key", "token"), 1),
    Rule("basic-auth-flag", "secret", "credentials given to curl/wget/httpie (-u user:pass, --user, --password; HTTPie's http/https/xh -a user:pass and --auth)",
         r"(?:\s-u\s*|--user[\s=]+|--proxy-user[\s=]+|--http-user[\s=]+|\b(?:https?|xh|xhs)\b[^\n|;&]*?[ \t](?:-a[ \t]*|--auth[ \t=]+))(?:\"([^\"\r\n]*\"?:\"?[^\"\r\n]*)\"|'([^'\r\n]*:[^'\r\n]*)'|([^\s\"']*:[^\s\"']*))",
         ("-u", "--user", "user", "-a", "--auth"), (1, 2, 3), "userpass"),
    Rule("basic-auth-flag-quoted", "secret", "curl -u user:'password' with the password quoted on its own",
         r"(?:\s-u\s*|--user[\s=]+)[^\s\"':]+:('[^'\r\n]+'|\"[^\"\r\n]+\")", ("-u", "--user"), 1),
    Rule("bundler-credentials", "secret", "gem server credentials in Bundler settings (BUNDLE_HOST__NAME: user:pass)",
         r"\bBUNDLE_[A-Z0-9_]*__[A-Z0-9_]+[\"']?[ \t]*[=:][ \t]*[\"']?([^\s\"':]+:[^\s\"']+)", ("bundle_",), 1),
    # --- vendor formats with a recognisable prefix -------------------------------------------
    Rule("anthropic-api-key", "secret", "Anthropic keys: API (sk-ant-api03-) and admin (sk-ant-admin01-) keys in their published shape (95 characters ending in AA) or near it (85-110 random characters), and every other sk-ant- kind (OAuth oat/ort, session sid) at any length",
         r"\b(sk-ant-(?:(?:api|admin)\d\d-[A-Za-z0-9_\-]{85,110}|[a-z]{2,10}\d{2}-[A-Za-z0-9_\-]{20,}))(?:[^A-Za-z0-9_\-]|$)", ("sk-ant-",), 1, "anthropic"),
    Rule("openai-api-key", "secret", "OpenAI keys: project (sk-proj-), service account (sk-svcacct-), admin (sk-admin-) and legacy (sk-...T3BlbkFJ...)",
         r"\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}|[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,}|[A-Za-z0-9]{40,64})\b", ("sk-",)),
    Rule("aws-access-key-id", "secret", "AWS access key ids (AKIA, ASIA, ABIA, ACCA, A3T...)", r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b", ("akia", "asia", "abia", "acca", "a3t")),
    Rule("aws-secret-access-key", "secret", "AWS secret access keys next to an aws/secret key name",
         r"(?i)aws[a-z0-9_.\-]{0,30}(?:secret|sk|key)[a-z0-9_.\-]{0,20}[\"'`]?\s*(?:=>|:=|=|:|,)\s*[\"'`]?([A-Za-z0-9/+=]{40})\b", ("aws",), 1),
    Rule("aws-bedrock-api-key", "secret", "Amazon Bedrock API keys: long-lived (ABSK...) and short-lived (bedrock-api-key- + the base64 of a bedrock.amazonaws.com URL)", r"\b(?:ABSK[A-Za-z0-9+/]{40,}=*|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*)", ("absk", "bedrock-api-key-")),
    Rule("github-token", "secret", "GitHub tokens: classic PAT (ghp_), OAuth (gho_), user-to-server (ghu_), server-to-server (ghs_), refresh (ghr_)", r"\bgh[pousr]_[A-Za-z0-9]{30,}\b", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Rule("github-fine-grained-pat", "secret", "GitHub fine-grained personal access tokens (github_pat_...)", r"\bgithub_pat_[A-Za-z0-9_]{30,}", ("github_pat_",)),
    Rule("gitlab-token", "secret", "GitLab tokens: glpat-, glptt-, gldt-, glft-, glimt-, glagent-, gloas-, glsoat-, glcbt-, glffct-, glrt-, runner GR1348941..., _gitlab_session cookies",
         r"\b(?:gl[a-z]{1,6}-[A-Za-z0-9_\-.]{16,}|GR1348941[A-Za-z0-9_\-]{16,}|_gitlab_session=[0-9a-z]{32})", ("gl", "gr1348941", "_gitlab_session"), 0, "shape"),
    Rule("slack-token", "secret", "Slack tokens: bot, user, app, config and legacy (xoxb-, xoxp-, xoxa-, xoxs-, xoxe-, xapp-, xoxe.xoxp-)", r"\b(?:xox[a-z]?[.\-](?:xox[a-z]-)?[A-Za-z0-9\-]{15,}|xapp-\d-[A-Za-z0-9\-]{10,})", ("xox", "xapp-"), 0, "slack"),
    Rule("slack-webhook-url", "secret", "Slack incoming webhook and workflow URLs", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{10,}", ("hooks.slack.com",)),
    Rule("stripe-key", "secret", "Stripe secret, restricted and publishable keys (sk_live_, rk_test_, pk_live_, ...)", r"\b[rsp]k_(?:live|test|prod)_[A-Za-z0-9]{10,}", ("k_live_", "k_test_", "k_prod_")),
    Rule("google-api-key", "secret", "Google API keys (AIza...)", r"\b(AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|$)", ("aiza",), 1, "shape"),
    Rule("google-oauth-token", "secret", "Google OAuth access (ya29.) and refresh (1//) tokens", r"\b(?:ya29\.[0-9A-Za-z_\-]{20,}|1//0[0-9A-Za-z_\-]{30,})", ("ya29.", "1//0")),
    Rule("azure-storage-key", "secret", "Azure storage account keys and shared access keys in connection strings (AccountKey=, SharedAccessKey=, sig=)",
         r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|sig)=([A-Za-z0-9+/%]{20,}={0,2})", ("accountkey", "sharedaccess", "sig="), 1),
    Rule("azure-ad-client-secret", "secret", "Azure AD / Entra client secrets (...Q~...)", r"(?:^|[^A-Za-z0-9_~.\-])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|$)", ("q~",), 1),
    Rule("huggingface-token", "secret", "Hugging Face user (hf_) and organization (api_org_) tokens", r"\b(?:hf_[A-Za-z]{34}|api_org_[A-Za-z]{34})\b", ("hf_", "api_org_")),
    Rule("npm-token", "secret", "npm access tokens (npm_...)", r"\bnpm_[A-Za-z0-9]{36}", ("npm_",)),
    Rule("pypi-token", "secret", "PyPI upload tokens (pypi-AgEIcHlwaS5vcmc...)", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{30,}", ("pypi-",)),
    Rule("sendgrid-key", "secret", "SendGrid API keys (SG.xxx.yyy)", r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}", ("sg.",)),
    Rule("twilio-key", "secret", "Twilio API key SIDs (SK...) and account SIDs (AC...)", r"\b(?:SK|AC)[0-9a-fA-F]{32}\b", ("sk", "ac")),
    Rule("discord-token", "secret", "Discord bot tokens and webhook URLs", r"(?:\b[MNO][A-Za-z0-9_\-]{23,26}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}|discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+)", (".", "discord")),
    Rule("telegram-bot-token", "secret", "Telegram bot tokens (digits:AA...)", r"\b(\d{5,16}:A[A-Za-z0-9_\-]{34})(?:[^A-Za-z0-9_\-]|$)", (":a",), 1),
    *(
        Rule(name, "secret", desc, r"\b" + pattern + r"\b", keywords, 0, "random")
        for name, desc, keywords, pattern in (
            ("notion-token", "Notion integration tokens (ntn_)", ("ntn_",), r"ntn_[A-Za-z0-9]{30,}"),
            ("databricks-token", "Databricks personal access tokens (dapi...)", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?"),
            ("digitalocean-token", "DigitalOcean tokens (dop_v1_, doo_v1_, dor_v1_)", ("_v1_",), r"do[por]_v1_[a-f0-9]{64}"),
            ("doppler-token", "Doppler tokens (dp.pt., dp.st., dp.sa., ...)", ("dp.",), r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{30,}"),
            ("linear-token", "Linear API and OAuth tokens (lin_api_, lin_oauth_)", ("lin_",), r"lin_(?:api|oauth)_[A-Za-z0-9]{30,}"),
            ("postman-token", "Postman API keys (PMAK-)", ("pmak-",), r"PMAK-[A-Za-z0-9]{24}-[A-Za-z0-9]{34}"),
            ("planetscale-token", "PlanetScale tokens and passwords (pscale_tkn_, pscale_oauth_, pscale_pw_)", ("pscale_",), r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9=._\-]{30,}"),
            ("pulumi-token", "Pulumi access tokens (pul-)", ("pul-",), r"pul-[a-f0-9]{40}"),
            ("readme-token", "ReadMe API keys (rdme_)", ("rdme_",), r"rdme_[a-z0-9]{60,}"),
            ("rubygems-token", "RubyGems API keys (rubygems_)", ("rubygems_",), r"rubygems_[a-f0-9]{48}"),
            ("sentry-token", "Sentry auth tokens: user (sntryu_ + 64 hex) and organization (sntrys_ + base64 JSON + _ + 43 characters)", ("sntry",), r"(?:sntryu_[a-f0-9]{64}|sntrys_eyJ[A-Za-z0-9+/]{10,}={0,2}_[A-Za-z0-9+/]{43})"),
            ("shopify-token", "Shopify access tokens and shared secrets (shpat_, shpca_, shppa_, shpss_)", ("shp",), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
            ("square-token", "Square access tokens and OAuth secrets (sq0atp-, sq0csp-, EAAA)", ("sq0", "eaaa"), r"(?:sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}|EAAA[A-Za-z0-9_\-]{40,})"),
            ("vault-token", "HashiCorp Vault service, batch and legacy tokens (hvs., hvb., s.)", ("hvs.", "hvb.", "s."), r"(?:hv[sb]\.[A-Za-z0-9_\-]{24,}|s\.[A-Za-z0-9]{24})"),
            ("grafana-token", "Grafana API keys, cloud tokens and service-account tokens (eyJrIjoi, glc_, glsa_)", ("glc_", "glsa_", "eyjrijoi"), r"(?:glc_[A-Za-z0-9+/_=\-]{20,}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{30,})"),
            ("1password-token", "1Password secret keys (A3-) and service-account tokens (ops_eyJ)", ("ops_", "a3-"), r"(?:ops_eyJ[A-Za-z0-9+/=]{100,}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})"),
            ("heroku-token", "Heroku platform API keys (HRKU-)", ("hrku-",), r"HRKU-A[A-Za-z0-9_\-]{58,}"),
            ("newrelic-key", "New Relic user, insert, browser and REST keys (NRAK-, NRII-, NRJS-, NRRA-)", ("nrak-", "nrii-", "nrjs-", "nrra-"), r"NR(?:AK|II|JS|RA)-[A-Za-z0-9]{19,32}"),
            ("flyio-token", "Fly.io tokens (fo1_, FlyV1)", ("fo1_", "flyv1"), r"(?:fo1_[A-Za-z0-9_\-]{43}|FlyV1 [A-Za-z0-9+/=,_\-]{40,})"),
            ("frameio-token", "Frame.io API tokens (fio-u-)", ("fio-u-",), r"fio-u-[A-Za-z0-9_\-=]{64}"),
            ("flutterwave-key", "Flutterwave secret, public and encryption keys (FLWSECK, FLWPUBK)", ("flw",), r"FLW(?:SEC|PUB)K(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?"),
            ("easypost-key", "EasyPost production and test API keys (EZAK, EZTK)", ("ezak", "eztk"), r"EZ[AT]K[A-Za-z0-9]{54}"),
            ("infracost-token", "Infracost API tokens (ico-)", ("ico-",), r"ico-[A-Za-z0-9]{32}"),
            ("dynatrace-token", "Dynatrace API tokens (dt0c01.)", ("dt0c01",), r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{18,64}"),
            ("octopus-key", "Octopus Deploy API keys (API-)", ("api-",), r"API-[A-Z0-9]{26}"),
            ("contentful-token", "Contentful personal access tokens (CFPAT-)", ("cfpat-",), r"CFPAT-[A-Za-z0-9_\-]{43}"),
            ("mailgun-key", "Mailgun private and public keys (key-, pubkey-)", ("key-",), r"(?:pub)?key-[a-f0-9]{32}"),
            ("mapbox-token", "Mapbox public and secret tokens (pk., sk.)", ("pk.", "sk."), r"[ps]k\.[A-Za-z0-9]{40,}\.?[A-Za-z0-9_\-]*"),
            ("duffel-token", "Duffel API tokens (duffel_test_, duffel_live_)", ("duffel_",), r"duffel_(?:test|live)_[A-Za-z0-9_\-=]{43}"),
            ("clojars-token", "Clojars deploy tokens (CLOJARS_)", ("clojars_",), r"CLOJARS_[a-z0-9]{60}"),
            ("artifactory-token", "JFrog Artifactory API keys and reference tokens (AKCp, cmVmdGtu)", ("akcp", "cmvmd"), r"(?:AKCp[A-Za-z0-9]{60,}|cmVmd[A-Za-z0-9]{50,})"),
            ("atlassian-token", "Atlassian API tokens (ATATT3)", ("atatt3",), r"ATATT3[A-Za-z0-9_\-=]{30,}"),
            ("llm-provider-key", "LLM provider keys: Perplexity pplx-, Groq gsk_, xAI xai-, Replicate r8_", ("pplx-", "gsk_", "xai-", "r8_"), r"(?:pplx-[A-Za-z0-9]{40,}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{60,}|r8_[A-Za-z0-9]{30,})"),
            ("docker-token", "Docker Hub personal access tokens (dckr_pat_)", ("dckr_pat_",), r"dckr_pat_[A-Za-z0-9_\-]{20,}"),
            ("defined-networking-token", "Defined Networking API tokens (dnkey-)", ("dnkey-",), r"dnkey-[a-z0-9=_\-]{26}-[a-z0-9=_\-]{52}"),
            ("authress-key", "Authress service client keys (sc_...acc_...)", ("acc_",), r"sc_[a-z0-9]{18,}\.[a-z0-9]{4}\.acc_[a-z0-9\-]{10,}\.[a-z0-9+/=_\-]{20,}"),
            ("harness-token", "Harness personal and service-account tokens (pat., sat.)", ("pat.", "sat."), r"(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"),
            ("terraform-token", "Terraform Cloud API tokens (.atlasv1.)", ("atlasv1",), r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}"),
            ("intra42-secret", "42 Intra client secrets (s-s4t2af-, s-s4t2ud-)", ("s-s4t2",), r"s-s4t2(?:af|ud)-[a-f0-9]{64}"),
            ("openshift-token", "OpenShift user tokens (sha256~)", ("sha256~",), r"sha256~[A-Za-z0-9_\-]{43}"),
            ("facebook-token", "Facebook app tokens (appid|secret) and page tokens (EAA...)", ("|", "eaa"), r"(?:[0-9]{13,17}\|[A-Za-z0-9_\-]{27}|EAA[MC][A-Za-z0-9]{100,})"),
            ("mailchimp-key", "Mailchimp API keys (...-usNN)", ("-us",), r"[a-f0-9]{32}-us\d{1,2}"),
            ("lob-gocardless-key", "Lob and GoCardless keys (live_, test_, test_pub_)", ("live_", "test_"), r"(?:(?:live|test)_(?:pub_)?[a-f0-9]{31,35}|live_[A-Za-z0-9_=\-]{40})"),
            ("alibaba-key-id", "Alibaba Cloud access key ids (LTAI)", ("ltai",), r"LTAI[A-Za-z0-9]{20}"),
            ("settlemint-token", "SettleMint access tokens (sm_aat_, sm_pat_, sm_sat_)", ("sm_",), r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}"),
            ("prefect-token", "Prefect API keys (pnu_)", ("pnu_",), r"pnu_[A-Za-z0-9]{36}"),
            ("scalingo-token", "Scalingo API tokens (tk-us-)", ("tk-us-",), r"tk-us-[A-Za-z0-9_\-]{48}"),
            ("typeform-token", "Typeform personal tokens (tfp_)", ("tfp_",), r"tfp_[A-Za-z0-9_\-.=]{59}"),
            ("yandex-token", "Yandex OAuth, IAM and API keys (y0_, t1., YC, AQVN)", ("y0_", "t1.", "yc", "aqvn"), r"(?:y0_[A-Za-z0-9_\-]{55}|t1\.[A-Za-z0-9_\-]+=*\.[A-Za-z0-9_\-]{86}=*|YC[A-Za-z0-9_\-]{38}|AQVN[A-Za-z0-9_\-]{35,38})"),
            ("adobe-secret", "Adobe client secrets (p8e-)", ("p8e-",), r"p8e-[A-Za-z0-9]{32}"),
            ("beamer-token", "Beamer API keys (b_)", ("b_",), r"b_[A-Za-z0-9=_\-]{44}"),
            ("sourcegraph-token", "Sourcegraph access tokens (sgp_ + 40 hex, with an optional 16-hex instance id or local_ before them)", ("sgp_",), r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}"),
            ("sonarqube-token", "SonarQube tokens (sqp_, squ_, sqa_)", ("sqp_", "squ_", "sqa_"), r"sq[pau]_[A-Za-z0-9]{40}"),
            ("cloudflare-origin-ca-key", "Cloudflare Origin CA keys (v1.0-)", ("v1.0-",), r"v1\.0-[a-f0-9]{24}-[a-f0-9]{100,}"),
            ("openrouter-key", "OpenRouter API keys (sk-or-v1-)", ("sk-or-",), r"sk-or-v1-[a-f0-9]{64}"),
            ("stripe-webhook-secret", "Stripe webhook signing secrets (whsec_)", ("whsec_",), r"whsec_[A-Za-z0-9+/=]{24,}"),
            ("langsmith-key", "LangSmith API keys (lsv2_pt_, lsv2_sk_, ls__)", ("lsv2_", "ls__"), r"(?:lsv2_(?:pt|sk)_[A-Za-z0-9]{32,}(?:_[A-Za-z0-9]+)*|ls__[A-Za-z0-9]{16,})"),
            ("supabase-key", "Supabase access tokens and secret keys (sbp_, sb_secret_)", ("sbp_", "sb_secret_"), r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_\-]{20,})"),
            ("llm-provider-key-2", "more LLM and AI API keys: Tavily tvly-, Pinecone pcsk_, Cerebras csk-, Firecrawl fc-, Fireworks fw_, ElevenLabs sk_ + 48 hex, DeepSeek-style sk- + 32 hex",
             ("tvly-", "pcsk_", "csk-", "fc-", "fw_", "sk_", "sk-"),
             r"(?:tvly-(?:dev-|prod-)?[A-Za-z0-9]{32,}|pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}|csk-[a-z0-9]{40,}|fc-[a-f0-9]{32}|fw_[A-Za-z0-9]{24,}|sk_[a-f0-9]{48}|sk-[a-f0-9]{32})"),
            ("dev-platform-token", "developer platform tokens: Neon napi_, Figma figd_, Resend re_, Bitbucket ATBB, Airtable pat...., NuGet oy2, Render rnd_, Netlify nfp_, Notion legacy secret_",
             ("napi_", "figd_", "re_", "atbb", "pat", "oy2", "rnd_", "nfp_", "secret_"),
             r"(?:napi_[a-z0-9]{60,}|figd_[A-Za-z0-9_\-]{40,}|re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}|ATBB[A-Za-z0-9]{32,}|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}|oy2[a-z0-9]{43}|rnd_[A-Za-z0-9]{32}|nfp_[A-Za-z0-9]{36,}|secret_[A-Za-z0-9]{43})"),
            ("payment-provider-token", "payment and banking API tokens: PayPal/Braintree access tokens (access_token$production$...), Plaid access tokens (access-production-<uuid>)",
             ("access_token$", "access-production-", "access-sandbox-", "access-development-"),
             r"(?:access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}|access-(?:production|sandbox|development)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"),
            ("dropbox-token", "Dropbox short-lived access tokens (sl. + 130 or more characters)", ("sl.",), r"sl\.[A-Za-z0-9_\-]{130,}"),
        )
    ),
    Rule("okta-token", "secret", "Okta API tokens (00 + 40 characters) with okta or SSWS in the 64 characters before",
         r"\b00[A-Za-z0-9=_\-]{40}\b", ("00",), 0, "random", ("okta", "ssws")),
    Rule("teams-webhook-url", "secret", "Microsoft Teams / Office 365 incoming webhook URLs", r"\b[a-z0-9\-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@\-]+/IncomingWebhook/[A-Za-z0-9\-/]+", ("webhook.office.com",)),
    Rule("quoted-high-entropy", "secret", "long random-looking quoted values (32+ characters, mixed letters and digits, high entropy) next to any name: vendor keys named only for their vendor",
         r"(?:^|[^A-Za-z0-9_\-])([A-Za-z_][A-Za-z0-9_\-]*)[\"']?[ \t]*(?:=>|:=|=|:|,)[ \t]*[\"'`]?([A-Za-z0-9+/=_\-]{32,})", ("=", ":", ","), 2, "entropy32"),
    # --- passwords in commands, cloud CLIs, base64 wrappers, split values ----------------------
    Rule("cli-password", "secret", "passwords given to command-line tools by their short flags: mysql -pX / -p'X', redis-cli -a X, sshpass -p X, docker/podman/helm login -p X, sqlcmd/bcp -P X, az login -p X, mongo/mongosh -p X, ldapsearch/ldapmodify -w X, keytool -storepass/-keypass X, openssl -passin/-passout pass:X, openssl enc -k X, zip/unzip -P X, 7z -pX, ssh-keygen -N/-P X, twine -p X, smbclient -U USER%X; and as arguments: npm/yarn/pnpm config set //host/:_authToken X, poetry config http-basic.NAME USER X and pypi-token.NAME X, rabbitmqctl add_user/change_password USER X, aws ssm put-parameter --value X; lftp -u USER,X; Windows: net use ... /user:NAME X, net use \\\\host\\share X, net user NAME X, setx NAME X for a credential-named NAME, PowerShell ConvertTo-SecureString 'X' -AsPlainText (a value starting with / is a Windows flag and stays)",
         r"(?:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?[ \t]-p"
         r"|\bredis-cli\b[^\n|;&]*?[ \t]-a[ \t]*|\bsshpass\b[^\n|;&]*?[ \t]-p[ \t]*"
         r"|\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane)\b[^\n|;&]*?\blogin\b[^\n|;&]*?[ \t]-p[ \t]*"
         r"|\b(?:sqlcmd|bcp|osql|isql)\b[^\n|;&]*?[ \t]-P[ \t]*|\baz[ \t]+login\b[^\n|;&]*?[ \t]-p[ \t]+"
         r"|\bmongo(?:sh|dump|restore|import|export)?\b[^\n|;&]*?[ \t]-p[ \t]+"
         r"|\bldap[a-z]+\b[^\n|;&]*?[ \t]-w[ \t]*|\bkeytool\b[^\n|;&]*?[ \t]-new[ \t]+"
         # flags only keytool and openssl have: each one on a line, however many there are
         r"|[ \t]-(?:src|dest)?(?:store|key)pass[ \t]+|[ \t]-(?:passin|passout|pass|password)[ \t]+pass:"
         r"|\bopenssl[ \t]+enc\b[^\n|;&]*?[ \t]-k[ \t]+"
         # archives, key files, package registries and brokers
         r"|\b(?:zip|unzip|zipcloak)\b[^\n|;&]*?[ \t]-P[ \t]+|\b7z[a-z]?\b[^\n|;&]*?[ \t]-p"
         # ssh-keygen: the new passphrase (-N) where both are given, else the old one (-P)
         r"|\bssh-keygen\b[^\n|;&]*?[ \t]-N[ \t]+|\bssh-keygen\b[^\n|;&]*?[ \t]-P[ \t]+|\btwine\b[^\n|;&]*?[ \t]-p[ \t]+"
         r"|\bsmbclient\b[^\n|;&]*?[ \t](?:-U[ \t]*|--user[= ])[^\s%'\"]+%"
         r"|\b(?:npm|yarn|pnpm)[ \t]+config[ \t]+set[ \t]+[^\s=]*:_(?:authToken|auth|password)[ \t]+"
         r"|\bpoetry[ \t]+config[ \t]+(?:http-basic\.[^\s]+[ \t]+[^\s]+|pypi-token\.[^\s]+)[ \t]+"
         r"|\brabbitmqctl\b[^\n|;&]*?\b(?:add_user|change_password)[ \t]+[^\s]+[ \t]+"
         r"|\baws[ \t]+ssm[ \t]+put-parameter\b[^\n|;&]*?[ \t]--value[ \t]+"
         r"|\blftp\b[^\n|;&]*?[ \t]-u[ \t]*[^\s,'\"]+,"
         # Windows: net use's password follows the share or the /user: flag; net user NAME X
         r"|\b[Nn][Ee][Tt][ \t]+(?:[Uu][Ss][Ee]\b[^\n|;&]*?[ \t]/[Uu](?:[Ss][Ee][Rr])?:[^\s]+|[Uu][Ss][Ee][ \t]+(?:[A-Za-z]:[ \t]+)?\\\\[^\s]+|[Uu][Ss][Ee][Rr][ \t]+[^\s/]+)[ \t]+"
         r"|\b[Ss][Ee][Tt][Xx][ \t]+(?:/[Mm][ \t]+)?[\"']?(?i:[a-z0-9_]*(?:pass|pwd|secret|token|key|cred)[a-z0-9_]*)[\"']?[ \t]+"
         r"|(?i:\bconvertto-securestring)[ \t]+(?:-[Ss]tring[ \t]+)?)"
         + _CMD_VALUE,
         ("mysql", "mariadb", "redis-cli", "sshpass", "login", "sqlcmd", "bcp", "osql", "isql", "mongo", "ldap", "keytool",
          "openssl", "storepass", "keypass", "pass:", "zip", "7z", "ssh-keygen", "twine", "smbclient", ":_auth", ":_password",
          "http-basic", "pypi-token", "rabbitmqctl", "put-parameter", "lftp", "net use", "net user", "setx", "convertto-securestring"),
         (1, 2, 3), "value"),
    Rule("stdin-password", "secret", "a password piped or fed to a program that reads it from stdin: echo X | docker login --password-stdin, --password-stdin <<< X (docker, podman, helm, oras, crane, skopeo, buildah, nerdctl), echo X | sudo -S, gh auth login --with-token <<< X, gcloud secrets ... --data-file=- <<< X",
         r"\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?" + _CMD_VALUE + r"[ \t]*\|[ \t]*(?:(?:sudo[ \t]+)?(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane)\b[^\n|;&]*--password-stdin|sudo[ \t]+(?:-[A-Za-z]*S\b|--stdin))"
         r"|(?:--password-stdin|--with-token|--data-file[= ]-)[ \t]*<<<[ \t]*(?:'([^'\r\n]+)'|\"([^\"\r\n]+)\"|([^\s'\"`;|&<>()]+))",
         ("--password-stdin", "sudo", "--with-token", "--data-file"), (1, 2, 3, 4, 5, 6), "value"),
    Rule("htpasswd-password", "secret", "the password given to htpasswd -b (the last argument: htpasswd -b[c] FILE USER X, htpasswd -nb USER X)",
         r"(?m)\bhtpasswd(?:[ \t]+-[A-Za-z]+)+(?:[ \t]+[^\s\-]\S*){1,2}?[ \t]+" + _CMD_VALUE + r"[ \t]*(?:$|[|;&)`])",
         ("htpasswd",), (1, 2, 3), "value"),
    Rule("config-directive-password", "secret", "passwords in server configuration directives, at the start of a line (or of a quote) or after CONFIG SET: Redis requirepass X and masterauth X, OpenLDAP rootpw X (and kickstart's rootpw --plaintext X), nslcd bindpw X, keepalived auth_pass X; rootpw --iscrypted HASH stays (a hash)",
         r"(?im)(?:^[ \t>]*[`'\"]?[ \t]*|\bconfig[ \t]+set[ \t]+)(?:requirepass|masterauth|rootpw(?:[ \t]+--plaintext)?|bindpw|auth_pass)[ \t]+" + _CMD_VALUE,
         ("requirepass", "masterauth", "rootpw", "bindpw", "auth_pass"), (1, 2, 3), "value"),
    Rule("aws-cli-secret", "secret", "aws configure set aws_secret_access_key X (and aws_session_token)",
         r"(?i)\baws[ \t]+configure[ \t]+set[ \t]+(?:[a-z0-9_\-]+\.)?(?:aws_secret_access_key|aws_session_token)[ \t]+[\"']?([A-Za-z0-9/+=]{16,})",
         ("configure",), 1),
    Rule("aws-secret-near-key-id", "secret", "an AWS secret access key (40 random base64 characters) within two lines after an AWS access key id, whatever names them: a credentials CSV, prose, a key pair pasted side by side",
         r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b[^\n]{0,120}?(?:\r?\n[^\n]{0,120}?)?(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
         ("akia", "asia", "abia", "acca", "a3t"), 1, "aws40"),
    Rule("private-key-base64", "secret", "base64 of a PEM private key (it starts LS0tLS1CRUdJTi, the encoding of -----BEGIN), also wrapped over lines, as in kubeconfig client-key-data and Kubernetes TLS secrets; base64 certificates stay",
         r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}(?:\r?\n[ \t]*(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]{1,15}={1,2}))*",
         ("ls0tls1crudjti",), 0, "pem64"),
    Rule("docker-config-auth", "secret", "registry credentials in Docker config JSON: a base64 {\"auths\": ...} blob (.dockerconfigjson) and each \"auth\": base64(user:password)",
         r"(?:\b(?:eyJhdXRocyI6|ewogICJhdXRocyI6|ewoJImF1dGhzIjog|eyAiYXV0aHMiOi)[A-Za-z0-9+/]{16,}={0,2}|\"auth\"[ \t]*:[ \t]*\"([A-Za-z0-9+/]{8,}={0,2})\")",
         ("eyjhdxrocyi6", "ewogicjhdxrocyi6", "ewojimf1dghzijog", "eyaiyxv0ahmioi", '"auth"'), (1, 0), "dockerauth"),
    Rule("kubeadm-token", "secret", "Kubernetes bootstrap tokens (6 + 16 lower-case letters and digits: abcdef.0123456789abcdef) after the word token",
         r"\b[a-z0-9]{6}\.[a-z0-9]{16}\b", ("token",), 0, "random", ("token",)),
    Rule("yaml-block-secret", "secret", "a YAML literal or folded block (key: | or key: >-) under a credential-named key: every more-indented line below it",
         r"(?im)^([ \t]*)[\"']?(?:" + _STRONG + r")[\"']?[ \t]*:[ \t]*[|>][+\-]?[0-9]?[ \t]*(?:#[^\n]*)?\r?\n",
         ("pass", "pwd", "secret", "token", "key", "cred", "bearer", "jwt", "pat", "_sig", "pw"), 0, "yamlblock"),
    Rule("credential-i18n", "secret", "credentials named in the user's language, in prose and key=value: German (Passwort, Kennwort, Schlüssel), French (mot de passe, mdp, clé, jeton), Spanish (contraseña, clave), Portuguese (senha, chave), Italian (la password è, chiave, parola d'ordine), Dutch (wachtwoord, sleutel), Russian (пароль, ключ, токен, секрет), Polish (hasło, klucz), Turkish (şifre, parola, anahtar), Chinese (密码, 密钥, 口令, 令牌), Japanese (パスワード, 秘密鍵, キー, トークン), Korean (비밀번호, 암호, 키, 토큰): the first credential-looking word in the 64 characters after it",
         # a word in Latin letters must stand alone (mdp and clave hide inside base64); CJK words
         # have no spaces around them (密码是X)
         r"(?i)(?:(?:^|[^A-Za-z0-9_])(?:" + "|".join(w for w in _I18N_WORDS if w.isascii()) + r")([^A-Za-z0-9\n][^\n]{0,63})"
         r"|(?:" + "|".join(w for w in _I18N_WORDS if not w.isascii()) + r")([^\n]{1,64}))",
         _I18N_WORDS, (1, 2), "i18n"),
    # --- credentials by context ----------------------------------------------------------------
    Rule("kubernetes-secret-data", "secret", "values under data:/stringData: in a Kubernetes Secret manifest",
         r"(?i)(?:^|\n)[ \t]+[\"']?[a-z0-9_.\-]{1,60}[\"']?:[ \t]*(?:[\"']?([A-Za-z0-9+/]{8,}={0,2})[\"']?[ \t]*(?:\r?\n|$)|[|>][\-+]?[ \t]*\r?\n[ \t]+([A-Za-z0-9+/]{16,}={0,2}))",
         ("secret",), (1, 2), "k8s"),
    Rule("credential-flag", "secret", "credentials passed as command-line flags: --password X, --token=X, --api-key X, --secret X, --account-key X, --sas-token X, --storepass X, --secret-string X (aws secretsmanager)",
         r"(?i)(?:^|[^a-z0-9_\-])-?(?:-[a-z0-9]+)*-(?:password|passwd|pass|pwd|token|api[-_]?key|apikey|secret|client[-_]secret|access[-_]key|secret[-_]key|auth[-_]token"
         r"|account[-_]key|sas[-_]token|access[-_]token|refresh[-_]token|master[-_]key|storage[-_]key|shared[-_]key|(?:key|store)[-_]?pass(?:word)?"
         r"|secret[-_]string)(?:=|[ \t]+)" + _QUOTED_OR_BARE,
         ("-pass", "-pwd", "-token", "-api", "-secret", "-client", "-access", "-auth", "-account", "-sas", "-refresh",
          "-master", "-storage", "-shared", "-key", "-store"), (1, 2, 3, 4), "value"),
    Rule("credential-assignment", "secret", "values assigned to credential-named keys (password, secret, token, api_key, access_key, private_key, client_secret, credentials, ...) in env files, shell exports, JSON, YAML, TOML, INI, XML, code and Makefiles; placeholders and variable references stay",
         r"(?i)(?:^|[^a-z0-9_])" + "(" + _STRONG + ")" + _ASSIGN + _QUOTED_OR_BARE,
         ("pass", "pwd", "secret", "token", "key", "cred", "bearer", "jwt", "pat", "sig", "_pw", "-pw", ".pw", "pw:", "pw=", "pw =", "pw\t", "pw ", "pw\"", "pw'", "pw`", "pw]", "pw?", "pw+", "pw|", "pw."),
         (2, 3, 4, 5), "value"),
    Rule("credential-in-prose", "secret", "a password, passphrase, passcode, secret, token or key named in prose (\"the password is X\", \"the password is: X\", \"DB password -> X\", \"with token X\", \"set the password to X\", \"their token (X) expired\", \"the passphrase for the deploy key is X\", \"the password was reset to X\", \"the password for the `ci` user is X\": up to four words between the name and is/was/to) when X looks like one: digits, symbols or mixed case, not a plain word",
         r"(?i)\b(?:password|passphrase|passwd|pass phrase|passcode|api[ _-]?key|secret key|access key|secret|token)"
         r"(?:\s+(?:is:?|was:?|of|to|=|:|->)|(?:[ \t]+[`'\"]?[a-z][a-z0-9'_\-]{0,14}[`'\"]?){1,4}?[ \t]+(?:is:?|was:?|=|:|to|->))?[ \t]+[\"'`]?([^\s\"'`,;]{6,})",
         ("pass", "key", "token", "secret"), 1, "prose"),
    Rule("credential-use-as", "secret", "a value named as a credential after it: \"use X as the password\", \"with X as the new admin password\", \"set X as the API key\" (up to two words before the name), when X looks like one",
         r"(?i)\b(?:use|using|with|try|set|enter|type)[ \t]+[\"'`]?([^\s\"'`,;]{6,}?)[\"'`]?[ \t]+as[ \t]+(?:(?:the|a|your|my|our|their)[ \t]+)?(?:[a-z]+[ \t]+){0,2}?"
         r"(?:password|passphrase|passcode|passwd|pwd|secret|token|api[ _-]?key)\b",
         ("pass", "pwd", "secret", "token", "api key", "api_key", "api-key", "apikey"), 1, "prose"),
    Rule("credential-pair", "secret", "a user name and password given together in prose: \"creds are admin:X\", \"login with admin / X\", \"credentials: bob / X\", \"sign in as root:X\", when X looks like a password (a path, a URL or a plain word stays)",
         r"(?i)\b(?:creds?|credentials|log[ \t]?in|sign[ \t]?in|logon)\b(?:[ \t]+(?:are|is|were|was|with|as|using))?[ \t]*[:=]?[ \t]*[\"'`]?"
         r"([A-Za-z0-9_.\-@\\]{1,64})[\"'`]?[ \t]*(?:/|:)[ \t]*[\"'`]?([^\s\"'`,;]{6,})",
         ("cred", "login", "log in", "log\tin", "sign in", "sign\tin", "signin", "logon"), 2, "pair"),
    Rule("credential-table-cell", "secret", "a password in a Markdown table, in the cell after a credential name (| DB_PASSWORD | X |, | Password | `X` |), when X looks like one: a type, a description or a plain word stays (| password | string | ... |)",
         r"(?im)^[ \t]*\|[ \t]*(?:\*\*|`)?(" + _STRONG + r")(?:\*\*|`)?[ \t]*\|[ \t]*`?([^|`\s]{3,})`?[ \t]*(?:\||$)",
         ("|",), 2, "cell"),
    Rule("credential-xml", "secret", "credential-named XML elements and key/value attributes (<password>X</password>, <add key=\"Password\" value=\"X\"/>)",
         r"(?i)(?:<(" + _STRONG + r")>\s*([^<\s][^<\r\n]{2,}?)\s*<|key=\"[^\"]*(?:passw|secret|token|apikey)[^\"]*\"\s+value=\"([^\"]{3,})\")",
         ("<", "value="), (2, 3), "value"),
    Rule("credential-name-value", "secret", "a value under a credential name in name/value and key/value pairs: Kubernetes and Compose env lists (- name: DB_PASSWORD, then value: X), ECS task definitions and Terraform ({\"name\": \"API_TOKEN\", \"value\": \"X\"}), GitLab CI variables and Helm lists ({\"key\": \"DB_PASSWORD\", \"value\": \"X\"}), and an object under a credential name holding a value, as terraform output -json and Pulumi print it ({\"db_password\": {\"sensitive\": true, \"value\": \"X\"}}); valueFrom (a secretKeyRef) stays",
         r"(?i)(?:\b(?:name|key)[\"']?[ \t]*[:=][ \t]*[\"']?(" + _STRONG + r")[\"']?[ \t]*(?:,[ \t]*(?:\r?\n[ \t]*)?|\r?\n[ \t]*)[\"']?"
         r"|\"(" + _STRONG + r")\"[ \t]*:[ \t]*\{[^{}\n]{0,120}?\")"
         r"value[\"']?[ \t]*[:=][ \t]*" + _QUOTED_OR_BARE,
         ("value",), (3, 4, 5, 6), "value"),
    Rule("basic-auth-call", "secret", "a password given with its user name in code: auth=(\"user\", \"X\") (requests, httpx), HTTPBasicAuth(\"user\", \"X\"), HTTPDigestAuth, aiohttp.BasicAuth, basic_auth(\"user\", \"X\"), .NET NetworkCredential(\"user\", \"X\"), Java PasswordAuthentication and UsernamePasswordCredentials, smtplib/ftplib/imaplib .login(\"user\", \"X\"), superagent .auth(\"user\", \"X\"), ldap simple_bind_s(\"dn\", \"X\")",
         r"(?i)(?:\bauth[ \t]*=[ \t]*\(|\b(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth|basic_auth|NetworkCredential|PasswordAuthentication"
         r"|UsernamePasswordCredentials|PasswordCredential)[ \t]*\(|\.(?:login|auth|simple_bind_s|bind_s)[ \t]*\()[ \t]*[\"']([^\"'\r\n]*)[\"'][ \t]*,[ \t]*"
         r"(?:\"([^\"\r\n]{3,})\"|'([^'\r\n]{3,})')",
         ("auth", "credential", "login", "bind_s"), (2, 3), "value"),
    Rule("generic-high-entropy", "secret", "long random-looking values assigned to key-like names (key, id, account, auth, salt, cookie, ...); git SHAs, UUIDs, integrity hashes and image digests stay",
         r"(?i)(?:^|[^a-z0-9_])(" + _WEAK + ")" + _ASSIGN + _QUOTED_OR_BARE,
         ("key", "_id", "id", "sid", "account", "auth", "salt", "hash", "cookie"), (2, 3, 4, 5), "entropy"),
    # --- PII -------------------------------------------------------------------------------------
    Rule("email", "pii", "e-mail addresses (not the user@host of a URL or of a git/scp remote: git@github.com:org/repo stays)",
         r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,24}\b", ("@",), 0, "email"),
    Rule("home-username", "pii", "the user name in home-directory paths (/Users/NAME, /home/NAME, C:\\Users\\NAME), also a name with spaces (C:\\Users\\John Smith\\...); the rest of the path stays",
         r"(?:[A-Za-z]:\\{1,2}[Uu]sers\\{1,2}((?:[^/\\\s\"'<>:|*?]{1,30} ){1,3}[^/\\\s\"'<>:|*?]{1,30})\\"
         r"|(?:/[Uu]sers/|/home/|[A-Za-z]:\\{1,2}[Uu]sers\\{1,2})(?:((?:(?:[A-Z][^/\\\s\"'<>:]{0,30}|van|von|de|da|del|der|den|di|du|la|le|dos|das|bin|al|ten|ter) ){1,3}[A-Za-z][^/\\\s\"'<>:]{0,30})[/\\]|([^/\\\s\"'<>:]{1,64})))",
         ("/users/", "/home/", "users\\"), (1, 2, 3), "home"),
    Rule("phone-number", "pii", "phone numbers: international (+CC ..., E.164) and North American ((415) 555-0132, 415-555-0132); versions, dates, times and IP addresses stay",
         r"(?:^|[^\w+.\-/:])(\+[1-9][0-9]{0,3}(?:[ .\-]?\(?[0-9]{1,5}\)?){1,6}|(?:1[ .\-])?\(?[2-9][0-9]{2}\)?[ .\-]?[2-9][0-9]{2}[ .\-][0-9]{4})(?:[^\w.\-:/]|[.\-:/](?:[^0-9]|$)|$)",
         (), 1, "phone"),
    Rule("phone-number-labelled", "pii", "any phone number (national formats too: 06 12 34 56 78, 020 7946 0958, 4155550132) within 24 characters after a word like phone, tel, call, callback, hotline, mobile, cell, fax, WhatsApp, contact, reach, Telefon, Telefonnummer, téléphone, teléfono, телефон, 电话, 電話, 전화",
         r"(?i)(?:(?:^|[^A-Za-z0-9_])(?:" + "|".join(_PHONE_WORDS_LATIN) + r")(?:[^A-Za-z0-9_]|$)|" + "|".join(_PHONE_WORDS_OTHER)
         + r")[^0-9+\n]{0,24}(\+?\(?[0-9][0-9 ().\-/]{5,20}[0-9])(?:[^0-9A-Za-z_]|$)",
         (*_PHONE_WORDS_LATIN, *_PHONE_WORDS_OTHER), 1, "phonelabel"),
    Rule("payment-card", "pii", "payment card numbers: 13-19 digits, grouped by spaces or dashes or not at all, Luhn-valid and with a card network's prefix and length",
         r"(?:^|[^\w.\-+/])([0-9]{4}[ \-][0-9]{4}[ \-][0-9]{4}[ \-][0-9]{4}|[0-9]{4}[ \-][0-9]{6}[ \-][0-9]{4,5}|[0-9]{13,19})(?:[^\w.\-/]|[.\-](?:[^0-9]|$)|$)",
         (), 1, "card"),
    Rule("iban", "pii", "IBANs (international bank account numbers), with or without spaces, whose length fits the country and whose mod-97 checksum holds",
         r"\b([A-Z]{2}[0-9]{2}[ ]?[A-Z0-9]{4}(?:[ ]?[A-Z0-9]{1,4}){2,8})", (), 1, "iban"),
    Rule("us-ssn", "pii", "US social security numbers (NNN-NN-NNNN or 9 digits) after SSN or social security; impossible numbers (000, 666, 9xx areas) stay",
         r"\b([0-9]{3}-[0-9]{2}-[0-9]{4}|[0-9]{3} [0-9]{2} [0-9]{4}|[0-9]{9})\b", ("ssn", "social security", "social-security"), 1, "ssn",
         ("ssn", "social security", "social-security", "ss#")),
    Rule("ipv4", "pii", "IPv4 addresses (loopback, 0.0.0.0, version-number lookalikes and network blocks, 10.0.0.0/8 or 192.168.1.0/24, stay)",
         r"\b(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\b", (".",), 0, "ip"),
    Rule("ipv6", "pii", "IPv6 addresses (loopback stays)", r"\b(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}\b|\b(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}\b", (":",), 0, "ip6"),
)

BY_NAME = {r.name: r for r in RULES}


def pattern_pieces(pattern: str) -> Iterator[tuple[int, str, bool]]:
    """A pattern's pieces, for the code that rewrites patterns (scrub.py, prefilter.py): each
    escape (a backslash and what follows) whole, every other character alone, with its position
    and whether it stands inside a character class (a ``]`` first in the class is a member)."""
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
