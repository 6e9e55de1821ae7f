"""Values that look random and are public stay (issue 28, mechanism 8): fingerprints, public keys
and certificates, trace and request ids, content digests, durations and sizes under credential
names, placeholders and masked values, private and reserved addresses, file paths, ARNs, and keys
that are public by design.

Every value is drawn from a seeded generator and put in a context drawn at random from the ways
tools print it; beside it sits a real-shaped secret, which must still go, so that a family is never
kept by keeping everything around it.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import random
import string
from collections.abc import Callable

import pytest

from jevlin_hooks.privacy import scrub

SEED = 2812
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


class Draw:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def pick(self, items: list[str] | tuple[str, ...]) -> str:
        return self.r.choice(list(items))

    def secret(self) -> tuple[str, str]:
        """A line holding a real-shaped secret, and the secret."""
        v = self.pick(["ghp_" + self.s(ALNUM, 36), "sk_live_" + self.s(ALNUM, 24), "xoxb-" + self.s("0123456789", 12) + "-"
                       + self.s("0123456789", 13) + "-" + self.s(ALNUM, 24), "glpat-" + self.s(ALNUM, 20)])
        line = self.pick(["export API_TOKEN={v}", "the token is {v}", 'token: "{v}"', "Authorization: Bearer {v}"])
        return line.format(v=v), v

    def uuid(self) -> str:
        h = self.s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def host(self) -> str:
        return self.pick(["api", "db", "cache", "build", "ci"]) + "-" + self.s("0123456789", 2) + "." \
            + self.pick(["example.com", "corp.internal", "svc.cluster.local", "acme.io"])

    def user(self) -> str:
        return self.pick(["deploy", "jlee", "mkowalski", "ops", "ci-bot", "sofia"])


def _fingerprints(d: Draw) -> tuple[str, list[str]]:
    sha = "SHA256:" + d.s(B64, 43)
    md5 = "MD5:" + ":".join(d.s(HEX, 2) for _ in range(16))
    plain_md5 = ":".join(d.s(HEX, 2) for _ in range(16))
    gpg = d.s("0123456789ABCDEF", 40)
    keyid = gpg[-16:]
    grouped = " ".join(gpg[i:i + 4] for i in range(0, 40, 4))
    grouped = grouped[:24] + " " + grouped[24:]
    forms = [
        (f"256 {sha} {d.user()}@{d.host()} (ED25519)", [sha]),
        (f"The ED25519 key fingerprint is {sha}.\nAre you sure you want to continue connecting (yes/no)?", [sha]),
        (f"ECDSA key fingerprint is {md5}.", [md5]),
        (f"2048 {md5} {d.user()}@laptop (RSA)", [md5]),
        (f"| {d.user()}@{d.host()} | {sha} | 2026-06-28 | read-write |", [sha]),
        (f'{{"title": "laptop", "fingerprint": "{sha}", "read_only": true}}', [sha]),
        (f"fingerprint: {plain_md5}", [plain_md5]),
        (f"pub   rsa4096 2024-03-01 [SC] [expires: 2027-03-01]\n      {gpg}\nuid           [ultimate] Jo Lee <jo@example.com>\n"
         f"sub   rsa4096 2024-03-01 [E]", [gpg]),
        (f"sec   ed25519/{keyid} 2023-11-02 [SC]\n      Key fingerprint = {grouped}", [keyid, grouped]),
        (f"gpg --recv-keys {keyid}", [keyid]),
        (f"gpg: key {keyid}: public key \"Release Signing <release@example.com>\" imported", [keyid]),
        (f"git config --global user.signingkey {keyid}", [keyid]),
        (f"signingkey = {gpg}", [gpg]),
        (f"Primary key fingerprint: {grouped}", [grouped]),
    ]
    text, keep = forms[d.r.randrange(len(forms))]
    return text, keep


def _public_keys(d: Draw) -> tuple[str, list[str]]:
    ed = "AAAAC3NzaC1lZDI1NTE5AAAAI" + d.s(B64, 43)
    rsa = "AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + d.s(B64, 342)
    age = "age1" + d.s(BECH32, 58)
    wg = d.s(B64, 43) + "="
    pem_body = "\n".join(d.s(B64, 64) for _ in range(4))
    pub_pem = f"-----BEGIN PUBLIC KEY-----\n{pem_body}\n-----END PUBLIC KEY-----"
    cert = f"-----BEGIN CERTIFICATE-----\nMIID{d.s(B64, 60)}\n{pem_body}\n-----END CERTIFICATE-----"
    forms = [
        (f"ssh-ed25519 {ed} {d.user()}@{d.host()}", [ed]),
        (f"$ cat ~/.ssh/id_ed25519.pub\nssh-ed25519 {ed} {d.user()}@laptop", [ed]),
        (f'public_key = "ssh-rsa {rsa} deploy"', [rsa]),
        (f"ssh_authorized_keys:\n  - ssh-ed25519 {ed} ops", [ed]),
        (f'{{"publicKey": "ssh-ed25519 {ed}"}}', [ed]),
        (f"# created: 2026-12-03T09:41:17+01:00\n# public key: {age}", [age]),
        (f"Public key: {age}", [age]),
        (f"age -r {age} -o secrets.enc secrets.txt", [age]),
        (f"recipients:\n  - {age}", [age]),
        (f"[Peer]\nPublicKey = {wg}\nAllowedIPs = 10.8.0.2/32\nEndpoint = {d.host()}:51820", [wg]),
        (f"interface: wg0\n  public key: {wg}\n  listening port: 51820", [wg]),
        (f"$ cat server.pub\n{pub_pem}", [pub_pem]),
        (f"openssl x509 -in cert.pem\n{cert}", [cert]),
        (f'"certificate": "{cert}"'.replace("\n", "\\n"), [cert.replace("\n", "\\n")]),
    ]
    return forms[d.r.randrange(len(forms))]


def _trace_ids(d: Draw) -> tuple[str, list[str]]:
    trace, span = d.s(HEX, 32), d.s(HEX, 16)
    amz = f"Root=1-{d.s(HEX, 8)}-{d.s(HEX, 24)};Parent={d.s(HEX, 16)};Sampled=1"
    ray = d.s(HEX, 16) + "-" + d.pick(["AMS", "FRA", "SJC", "NRT"])
    amzid2 = d.s(B64, 76)
    req = d.pick(["req_", "req-", ""]) + d.s(ALNUM, 24)
    forms = [
        (f"trace_id={trace} span_id={span} level=error msg=\"upstream timeout\"", [trace, span]),
        (f'{{"level": "error", "traceId": "{trace}", "spanId": "{span}", "msg": "timeout"}}', [trace, span]),
        (f"traceparent: 00-{trace}-{span}-01", [f"00-{trace}-{span}-01"]),
        (f"X-Amzn-Trace-Id: {amz}", [amz]),
        (f"< cf-ray: {ray}", [ray]),
        (f"< x-amz-request-id: {d.s('0123456789ABCDEF', 16)}\n< x-amz-id-2: {amzid2}", [amzid2]),
        (f"x-request-id: {req}", [req]),
        (f'{{"name": "x-trace-id", "value": "{trace}"}}', [trace]),
        (f'{{\n  "name": "x-request-id",\n  "value": "{req}"\n}}', [req]),
        (f"request_id: {req}", [req]),
        (f"  span_id: {span}\n  trace_id: {trace}", [trace, span]),
        (f"X-Correlation-ID: {trace}", [trace]),
    ]
    return forms[d.r.randrange(len(forms))]


def _digests(d: Draw) -> tuple[str, list[str]]:
    sha256 = d.s(HEX, 64)
    integ = "sha512-" + d.s(B64, 86) + "=="
    md5 = d.s(HEX, 32)
    forms = [
        (f"Digest: sha256:{sha256}", [f"sha256:{sha256}"]),
        (f"image: ghcr.io/acme/api@sha256:{sha256}", [f"sha256:{sha256}"]),
        (f'"integrity": "{integ}"', [integ]),
        (f"  resolved \"https://registry.yarnpkg.com/x/-/x-1.2.3.tgz#{d.s(HEX, 40)}\"\n  integrity {integ}", [integ]),
        (f"{sha256}  dist/app-1.4.2.tar.gz", [sha256]),
        (f"{md5}  backup.sql.gz", [md5]),
        (f"checksum: {sha256}", [sha256]),
        (f"ETag: \"{md5}\"", [md5]),
        (f"Content-MD5: {base64.b64encode(bytes.fromhex(md5)).decode()}", [base64.b64encode(bytes.fromhex(md5)).decode()]),
        (f"Digest: sha-256={base64.b64encode(bytes.fromhex(sha256)).decode()}", [base64.b64encode(bytes.fromhex(sha256)).decode()]),
        (f"x-goog-hash: md5={base64.b64encode(bytes.fromhex(md5)).decode()}", [base64.b64encode(bytes.fromhex(md5)).decode()]),
    ]
    return forms[d.r.randrange(len(forms))]


def _settings(d: Draw) -> tuple[str, list[str]]:
    n = str(d.pick(["60", "300", "900", "3600", "86400", "604800", "1209600", "259200"]))
    dur = str(d.r.randint(1, 90)) + d.pick(["s", "m", "h", "d", "ms", "min"])
    size = d.pick(["12", "16", "64", "128", "256", "2048", "4096"])
    forms = [
        f"TOKEN_TTL_SECONDS={n}", f"export TOKEN_TTL_SECONDS={n}", f"session_timeout: {dur}", f"max_password_length: {size}",
        f"password_min_length={size}", f"JWT_EXPIRES_IN={n}", f'jwt_expires_in: "{n}"', f"JWT_EXPIRES_IN='{dur}'",
        f"ACCESS_TOKEN_LIFETIME={dur}", f"REFRESH_TOKEN_TTL={dur}", f"OAUTH_TOKEN_REFRESH_MARGIN={dur}",
        f"API_KEY_MAX_AGE_DAYS={d.r.randint(7, 365)}", f"SECRET_ROTATION_DAYS={d.r.randint(7, 365)}",
        f"SESSION_COOKIE_AGE = {n}", f"PASSWORD_RESET_TIMEOUT = {n}", f"KEY_SIZE={size}", f"| `JWT_EXPIRES_IN` | `{n}` |",
        f"| `AUTH_CACHE_TTL` | `{dur}` |", f'<add key="refreshTokenTtl" value="{dur}" />', f"token_expiry = \"{dur}\"",
        f"Name: ACCESS_TOKEN_LIFETIME\nValue: {dur}", "JWT_ALGORITHM=RS256", "PASSWORD_HASHER=argon2id",
        "SECRET_BACKEND=vault", "| `PASSWORD_HASHER` | `argon2id` |", "| `TOKEN_ENDPOINT` | `https://auth.example.com/oauth2/token` |",
        f"secret_cache_ttl: {dur}", f"vault token create -policy=ci -ttl={dur}", f"PASSWORD_MIN_LENGTH={size}",
        f"password_max_age_days: {d.r.randint(30, 365)}", f"ANTHROPIC_MAX_TOKENS={size}",
    ]
    text = d.pick(forms)
    return text, [text]


def _placeholders(d: Draw) -> tuple[str, list[str]]:
    host = d.host()
    after = d.pick(["then run make deploy", "and restart the worker", "(ask ops for it)", "before the first call",
                    "puis relancez le service", "und starte neu"])
    forms = [
        (f"API_KEY=<your-api-key> {after}", [after]),
        (f"Set the token to <your-token> {after}.", [after]),
        (f"curl -H 'Authorization: Bearer <token>' https://{host}/v1 {after}", [after, host]),
        (f"mysql -u root -p<password> -h {d.host()} {after}", [after]),
        (f"<password>hunter</password> is wrong; use <your-password> {after}", [after]),
        (f"token: <YOUR_TOKEN>  # {after}", [after]),
        (f"SLACK_BOT_TOKEN=<your-bot-token> KUBERNETES_SERVICE_HOST=10.97.0.1 API_KEY_HEADER=X-Api-Key {after}",
         ["API_KEY_HEADER=X-Api-Key", after]),
    ]
    return forms[d.r.randrange(len(forms))]


def _masked(d: Draw) -> tuple[str, list[str]]:
    tail = d.s(ALNUM, 4)
    v = d.pick([f"sk-...{tail}", f"sk_live_...{tail}", f"ghp_...{tail}", f"ghp...{tail}", f"sk-proj-…{tail}", "****",
                "********", f"AKIA************{tail}", "xxxx…", "[REDACTED]", "<redacted>", "•••", "•••••••••",
                f"{d.s(ALNUM, 3)}...{tail}", f"SG....{tail}", "***"])
    forms = [f"OPENAI_API_KEY={v}", f"  github_token: {v}", f"| `STRIPE_SECRET_KEY` | `{v}` |", f'"api_key": "{v}"',
             f"the key ending in {v} was revoked", f"La chiave che finisce con {v} è stata revocata ieri.",
             f"postgresql://billing_rw:{v}@{d.host()}:5432/billing", f"password: {v}", f"Value: {v}"]
    text = d.pick(forms).replace("{v}", v)
    return text, [v]


def _private_address(d: Draw) -> str:
    nets = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16", "100.64.0.0/10",
            "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "fc00::/7", "fe80::/10", "2001:db8::/32", "::1/128"]
    net = ipaddress.ip_network(d.pick(nets))
    if net.num_addresses == 1:
        return str(net[0])
    return str(net[d.r.randrange(1, min(net.num_addresses - 1, 1 << 30))])


def _private_ips(d: Draw) -> tuple[str, list[str]]:
    ip = _private_address(d)
    forms = [f"* Connected to {d.host()} ({ip}) port 443", f'        "serverIPAddress": "{ip}",', f"KUBERNETES_SERVICE_HOST={ip}",
             f"{ip} - - [03/Dec/2026:09:41:17 +0000] \"GET /health HTTP/1.1\" 200 2", f"ssh {d.user()}@{ip}",
             f"inet {ip} netmask 0xffffff00", f"Value: {ip}", f"IP:               {ip}", f"| `DB_HOST` | `{ip}` |",
             f"listening on {ip}:8080", f"nameserver {ip}"]
    return d.pick(forms), [ip]


SYSTEM_USERS = ("root", "admin", "ubuntu", "ec2-user", "ci", "dev", "app", "runner", "node", "vagrant", "jenkins",
                "git", "www-data", "deploy", "build", "user", "docker", "postgres", "centos", "debian", "azureuser")


def _paths(d: Draw) -> tuple[str, list[str]]:
    u = d.pick(SYSTEM_USERS)
    p = d.pick([f"/home/{u}", f"/home/{u}/.kube/config", f"/home/{u}/.netrc", f"/Users/{u}/src/app", f"/home/{u}/.ssh/id_ed25519"])
    forms = [
        (f"HOME={p}", [p]), (f"| `NETRC` | `{p}` | optional |", [p]), (f"KUBECONFIG={p}", [p]),
        ('GOOGLE_APPLICATION_CREDENTIALS="/var/secrets/google/key.json"', ["/var/secrets/google/key.json"]),
        ("token_file=/var/run/secrets/kubernetes.io/serviceaccount/token", ["/var/run/secrets/kubernetes.io/serviceaccount/token"]),
        ("secret: /run/secrets/db_password", ["/run/secrets/db_password"]),
        ('"credentials_file": "/root/.aws/credentials"', ["/root/.aws/credentials"]),
        ("ssh_private_key: ~/.ssh/id_ed25519", ["~/.ssh/id_ed25519"]),
        ("--api-key-file ./secrets/api.key", ["./secrets/api.key"]),
        (f"{u}@{d.host()}:~$ ls {p}", [p]),
    ]
    return forms[d.r.randrange(len(forms))]


def _arns(d: Draw) -> tuple[str, list[str]]:
    acct = str(d.r.randrange(10**11, 10**12))
    region = d.pick(["us-east-1", "eu-west-1", "ap-northeast-2", "eu-central-1"])
    arn = d.pick([f"arn:aws:secretsmanager:{region}:{acct}:secret:prod/db-{d.s(ALNUM, 6)}",
                  f"arn:aws:secretsmanager:{region}:{acct}:secret:prod/checkout/token-{d.s(ALNUM, 6)}",
                  f"arn:aws:iam::{acct}:role/deploy", f"arn:aws:kms:{region}:{acct}:key/{d.uuid()}",
                  f"arn:aws:ssm:{region}:{acct}:parameter/prod/db/password"])
    forms = [f"SECRET_ARN={arn}", f'TASK_ROLE_ARN="{arn}"', f'    "ARN": "{arn}",', f"| `SECRET_ARN` | `{arn}` | optional |",
             f"aws secretsmanager get-secret-value --secret-id {arn}", f'"Account": "{acct}"', f"aws_account_id = {acct}"]
    text = d.pick(forms)
    return text, [arn if arn in text else acct]


def _public_by_design(d: Draw) -> tuple[str, list[str]]:
    pk = "pk_" + d.pick(["live", "test"]) + "_" + d.s(ALNUM, d.r.randint(24, 99))
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = json.dumps({"iss": "supabase", "ref": d.s("abcdefghijklmnopqrstuvwxyz", 20), "role": "anon",
                         "iat": d.r.randrange(1_700_000_000, 1_800_000_000), "exp": 2_100_000_000}, separators=(",", ":"))
    anon = header + "." + base64.urlsafe_b64encode(claims.encode()).decode().rstrip("=") + "." + d.s(ALNUM + "-_", 43)
    site = "6L" + d.s(ALNUM + "-_", 38)
    client = f"{d.r.randrange(10**11, 10**12)}-{d.s('abcdefghijklmnopqrstuvwxyz0123456789', 32)}.apps.googleusercontent.com"
    forms = [(f"STRIPE_PUBLISHABLE_KEY={pk}", pk), (f"const stripe = Stripe('{pk}');", pk), (f"NEXT_PUBLIC_SUPABASE_ANON_KEY={anon}", anon),
             (f"| `NEXT_PUBLIC_SUPABASE_ANON_KEY` | `{anon}` |", anon), (f"supabaseKey: '{anon}'", anon),
             (f"RECAPTCHA_SITE_KEY={site}", site), (f'<div class="g-recaptcha" data-sitekey="{site}"></div>', site),
             (f"GOOGLE_CLIENT_ID={client}", client), (f'"client_id": "{client}"', client)]
    text, v = forms[d.r.randrange(len(forms))]
    return text, [v]


FAMILIES: dict[str, Callable[[Draw], tuple[str, list[str]]]] = {
    "fingerprints": _fingerprints, "public-keys": _public_keys, "trace-ids": _trace_ids, "digests": _digests,
    "settings": _settings, "placeholders": _placeholders, "masked": _masked, "private-ips": _private_ips,
    "paths": _paths, "arns": _arns, "public-by-design": _public_by_design,
}
NOISE = ["Here is the output:", "Kannst du dir das mal ansehen?", "¿Ves el error?", "なぜ失敗するのでしょうか？", "```", "$ make deploy",
         "2026-12-03T09:41:17Z INFO starting worker", "Retrying in 5s...", "Voici la sortie :", "exit status 1"]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_public_values_stay_and_secrets_beside_them_go(family: str) -> None:
    d = Draw(SEED + sorted(FAMILIES).index(family))
    failures = []
    for _ in range(120):
        body, keep = FAMILIES[family](d)
        line, secret = d.secret()
        parts = [d.pick(NOISE), body, d.pick(NOISE)]
        parts.insert(d.r.randrange(len(parts) + 1), line)
        text = "\n".join(parts)
        clean, _ = scrub.scrub(text)
        lost = [k for k in keep if k not in clean]
        if lost or secret in clean:
            failures.append((body, lost, secret in clean, clean))
    assert not failures, f"{len(failures)}/120: " + "\n".join(repr(f[:3]) for f in failures[:6])
