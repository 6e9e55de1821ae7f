"""A labelled set of agent text: what an agent writes before a search, with planted values.

    .venv/bin/python bench/agent_text/generate.py [--seed 13] [--rows 700] > /tmp/agent_text.jsonl

Each row is narration around a snippet an agent really writes (a quoted shell command, an `.env`
or kubeconfig excerpt, a pasted stack trace, text in the user's language) with random values
planted in it: `secrets` (must not survive scrubbing, nor any 8-character piece of them), `pii`
(the same), and `decoys` (must survive verbatim: hosts, paths, versions, digests, placeholders).
Every value is drawn from the seeded generator: none is a real credential. The rows are built at
run time and never committed, so no secret-shaped string sits in the repository.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
# symbols that survive an unquoted shell word and a quoted one alike
PW_SYMBOLS = "!#%*+-.=?@^_~"


@dataclass
class Row:
    family: str
    text: str
    secrets: list[str] = field(default_factory=list)
    pii: list[str] = field(default_factory=list)
    decoys: list[str] = field(default_factory=list)


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def pick(self, xs: list | tuple):  # noqa: ANN201 - any element type
        return self.r.choice(xs)

    def password(self, symbols: str = PW_SYMBOLS, lo: int = 10, hi: int = 20) -> str:
        """A random password: letters, at least two digits, maybe symbols, anywhere (a password
        manager's may begin with % or @: one in seven here begins with a symbol); never a
        placeholder, never a blank at either end."""
        n = self.r.randint(lo, hi)
        body = [self.r.choice(ALNUM + symbols if symbols else ALNUM) for _ in range(n - 3)]
        body += [self.r.choice(DIGITS), self.r.choice(DIGITS), self.r.choice(LOWER)]
        self.r.shuffle(body)
        pw = "".join(body)
        return pw if pw == pw.strip() else self.r.choice(UPPER) + pw[1:-1] + self.r.choice(LOWER)

    def host(self) -> str:
        return self.pick(["db", "cache", "mq", "api", "auth", "search", "ledger"]) + "-" + self.s(LOWER + DIGITS, 4) + "." + \
            self.pick(["internal", "prod.example.net", "corp.example.org", "eu-west-1.rds.amazonaws.com", "svc.cluster.local"])

    def user(self) -> str:
        return self.pick(["root", "admin", "app", "deploy", "postgres", "svc_reports", "ci-bot", "etl"])

    def sha(self) -> str:
        return self.s(HEX, 40)

    def uuid(self) -> str:
        h = self.s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"

    def version(self) -> str:
        return ".".join(str(self.r.randint(0, 12)) for _ in range(self.r.choice([3, 4])))


INTROS = [
    "Let me reproduce what the user ran before the failure:",
    "The user pasted this from their terminal:",
    "I'll try the same command they used, it failed with an auth error:",
    "Here is the snippet from the README they are following:",
    "Checking the setup script, it does this:",
    "The CI log shows the step that hangs:",
    "Looking at their shell history, the relevant line is:",
    "From the runbook in the repo:",
    "The deploy script has:",
    "They said this used to work last week:",
]
OUTROS = [
    "I will search for the exact error message next.",
    "Next I'll look up whether the flag changed in the latest release.",
    "Let me search the docs for the supported options.",
    "I suspect the TLS settings; searching for the default port.",
    "The connection is refused, so I'll check the network policy.",
    "",
]
# Non-ASCII narration: agents write in the user's language and quote symbols and emoji.
FOREIGN = [
    "Die Verbindung schlägt fehl — ich prüfe die Konfiguration.",
    "La connexion échoue ; je vérifie la configuration réseau.",
    "La conexión falla, revisaré la configuración del cliente.",
    "Соединение не устанавливается, проверю настройки клиента.",
    "连接失败了，我先检查一下客户端的配置。",
    "接続に失敗しました。クライアントの設定を確認します。",
    "연결이 실패합니다. 클라이언트 설정을 확인하겠습니다.",
    "Bağlantı başarısız oluyor; istemci ayarlarını kontrol edeceğim.",
    "Połączenie się nie udaje — sprawdzę konfigurację klienta. ✅",
]


def wrap(g: Gen, body: str) -> str:
    parts = [g.pick(INTROS), "", body, ""]
    if g.r.random() < 0.25:
        parts.insert(0, g.pick(FOREIGN))
    parts.append(g.pick(OUTROS))
    return "\n".join(p for p in parts if p is not None).strip() + "\n"


# --- 1. passwords in commands and environment names ---------------------------------------

def cmd_password(g: Gen) -> Row:
    pw = g.password()
    qpw = g.password(symbols="!#%*+-.=?@^_~ ")
    u, h = g.user(), g.host()
    db = g.pick(["orders", "analytics", "users", "billing"])
    forms: list[tuple[str, str]] = [
        (f"mysql -h {h} -u {u} -p{pw} {db}", pw),
        (f"mysql -u {u} -p'{qpw}' -h {h} {db}", qpw),
        (f'mysqldump -u{u} -p"{qpw}" --single-transaction {db} > dump.sql', qpw),
        (f"redis-cli -h {h} -p 6379 -a {pw} PING", pw),
        (f"redis-cli -a '{qpw}' --no-auth-warning INFO", qpw),
        (f"sshpass -p {pw} ssh {u}@{h} 'uptime'", pw),
        (f"sshpass -p'{qpw}' scp build.tgz {u}@{h}:/tmp/", qpw),
        (f"htpasswd -b -c /etc/nginx/.htpasswd {u} {pw}", pw),
        (f"htpasswd -nb {u} {pw}", pw),
        (f"docker login -u {u} -p {pw} registry.example.com", pw),
        (f"echo done && docker login registry.gitlab.com -u {u} -p {pw}", pw),
        (f"sqlcmd -S {h} -U sa -P {pw} -Q 'SELECT 1'", pw),
        (f"sqlcmd -S tcp:{h},1433 -U {u} -P '{qpw}' -d {db}", qpw),
        (f"az login --service-principal -u http://ci-app -p {pw} --tenant {g.uuid()}", pw),
        (f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{pw}", pw),
        (f"openssl rsa -in server.key -out plain.key -passin pass:{pw}", pw),
        (f"keytool -importkeystore -srckeystore a.p12 -destkeystore b.jks -storepass {pw} -noprompt", pw),
        (f"keytool -list -keystore truststore.jks -storepass {pw}", pw),
        (f'ldapsearch -x -H ldap://{h} -D "cn={u},dc=example,dc=org" -w {pw} -b "dc=example,dc=org"', pw),
        (f"ldapmodify -x -D cn=admin,dc=corp -w '{qpw}' -f change.ldif", qpw),
        (f"curl -u {u}:{pw} https://{h}/api/health", pw),
        (f"curl -sS --user '{u}:{qpw}' https://{h}/metrics", qpw),
        (f"PGPASSWORD={pw} psql -h {h} -U {u} -d {db} -c 'select 1'", pw),
        (f"PGPASSWORD='{qpw}' pg_dump -h {h} -U {u} {db}", qpw),
        (f"export DB_PASS={pw}", pw),
        (f"SMTP_PASS={pw}\nSMTP_USER={u}\nSMTP_HOST={h}", pw),
        (f"RABBITMQ_DEFAULT_USER={u}\nRABBITMQ_DEFAULT_PASS={pw}", pw),
        (f"LDAP_BIND_DN=cn={u},dc=corp\nLDAP_BIND_PW={pw}", pw),
        (f"export MYSQL_PWD={pw}", pw),
        (f"REDIS_PASSWD={pw}", pw),
        (f"GPG_PASSPHRASE='{qpw}' ./release.sh", qpw),
        (f"  environment:\n    - POSTGRES_USER={u}\n    - POSTGRES_PASS={pw}", pw),
        (f"    env:\n      MONGO_INITDB_ROOT_PASSWORD: {pw}", pw),
        (f"mongosh \"mongodb://{h}:27017\" -u {u} -p {pw} --authenticationDatabase admin", pw),
        (f"psql \"host={h} user={u} password={pw} dbname={db}\"", pw),
        (f"echo {pw} | docker login -u {u} --password-stdin registry.example.com", pw),
        (f"keytool -genkeypair -keystore k.jks -keypass {pw} -dname CN=app", pw),
        # archives, keys, registries, brokers, sudo; name/value lists, subscripts and auth tuples in code
        (f"zip -P {pw} backup.zip dump.sql", pw),
        (f"7z a -p{pw} backup.7z dump.sql", pw),
        (f"ssh-keygen -p -N {pw} -f ~/.ssh/id_ed25519", pw),
        (f"twine upload -u __token__ -p {pw} dist/*", pw),
        (f"smbclient //{h}/share -U {u}%{pw}", pw),
        (f"rabbitmqctl add_user {u} {pw}", pw),
        (f"aws ssm put-parameter --name /{db}/password --value {pw} --type SecureString", pw),
        (f"echo {pw} | sudo -S systemctl restart nginx", pw),
        (f"poetry config http-basic.private {u} {pw}", pw),
        (f"env:\n  - name: {db.upper()}_DB_PASSWORD\n    value: \"{qpw}\"", qpw),
        (f'"environment": [{{"name": "DB_HOST", "value": "{h}"}}, {{"name": "DB_PASSWORD", "value": "{pw}"}}]', pw),
        (f'os.environ["DB_PASSWORD"] = "{pw}"', pw),
        (f'resp = requests.get(url, auth=("{u}", "{pw}"), timeout=10)', pw),
        (f"user: {u}\npass: {pw}\nhost: {h}", pw),
        # Windows, PowerShell, HTTPie, lftp, server config directives, code calls, a query's password
        (f"net use Z: \\\\{h}\\share /user:CORP\\{u} {pw}", pw),
        (f"net user {u} {pw} /add", pw),
        (f"setx DB_PASSWORD {pw}", pw),
        (f"$sec = ConvertTo-SecureString '{qpw}' -AsPlainText -Force", qpw),
        (f"http -a {u}:{pw} POST https://{h}/login", pw),
        (f"lftp -u {u},{pw} sftp://{h}", pw),
        (f"requirepass {pw.lstrip('-')}", pw.lstrip("-")),
        (f"redis-cli -h {h} CONFIG SET masterauth {pw.lstrip('-')}", pw.lstrip("-")),
        (f'new NetworkCredential("{u}", "{pw}")', pw),
        (f'smtp.login("{u}@example.com", "{pw}")', pw),
        (f"jdbc:mysql://{h}:3306/{db}?user={u}&password={pw}&useSSL=false", pw),
        (f'ENV["DB_PASSWORD"] ||= "{pw}"', pw),
    ]
    cmd, secret = g.pick(forms)
    return Row("cmd-password", wrap(g, f"```\n{cmd}\n```" if g.r.random() < 0.5 else f"`{cmd}`"), [secret], decoys=[h])


# --- 2. keys in kubeconfig and other base64 wrappers ---------------------------------------------

def _pem_b64(g: Gen, kind: str) -> str:
    body = "\n".join(g.s(B64, 64) for _ in range(g.r.randint(4, 8)))
    pem = f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n"
    return base64.b64encode(pem.encode()).decode()


def base64_wrapper(g: Gen) -> Row:
    key = _pem_b64(g, g.pick(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY"]))
    cert = _pem_b64(g, "CERTIFICATE")
    ca = _pem_b64(g, "CERTIFICATE")
    h = g.host()
    token = g.s(LOWER + DIGITS, 6) + "." + g.s(LOWER + DIGITS, 16)  # a kubeadm bootstrap token
    blob = base64.b64encode(g.password(lo=16, hi=32).encode()).decode()
    forms: list[tuple[str, list[str], list[str]]] = [
        (f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: {ca}\n    server: https://{h}:6443\n"
         f"  name: prod\nusers:\n- name: admin\n  user:\n    client-certificate-data: {cert}\n    client-key-data: {key}\n",
         [key], [ca, cert, h]),
        (f"users:\n- name: ci\n  user:\n    token: {token}\n", [token], []),
        (f"kubeadm join {h}:6443 --token {token} --discovery-token-ca-cert-hash sha256:{g.s(HEX, 64)}", [token], [h]),
        (f"The secret decodes fine: `echo {key} | base64 -d > tls.key`", [key], []),
        (f'{{"kind": "Secret", "data": {{"tls.crt": "{cert}", "tls.key": "{key}"}}}}', [key], [cert]),
        (f"SSH_PRIVATE_KEY_B64={key}", [key], []),
        (f"  DB_PASSWORD_BASE64: {blob}\n  DB_HOST: {h}\n", [blob], [h]),
        (f"signing_secret: \"{blob}\"\ncertificate: \"{cert}\"", [blob], [cert]),
        (f"they stored the key as base64 in the vault: {key}", [key], []),
        (f"sops:\n    encrypted_data: ENC[AES256_GCM,data:{g.s(B64, 44)},iv:{g.s(B64, 22)}=,tag:{g.s(B64, 22)}==,type:str]\n"
         f"    private_key_data: {key}\n", [key], []),
    ]
    text, secrets, decoys = g.pick(forms)
    return Row("base64-wrapper", wrap(g, text), secrets, decoys=decoys)


# --- 3. cloud CLI forms ----------------------------------------------------------------------------

def cloud_cli(g: Gen) -> Row:
    akid = "AKIA" + g.s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    sk = g.s(B64, 40)
    acct = "st" + g.s(LOWER + DIGITS, 10)
    akey = g.s(B64, 86) + "=="
    sas = g.s(B64, 43) + "="
    sa_email = f"ci-deployer@proj-{g.s(LOWER + DIGITS, 6)}.iam.gserviceaccount.com"
    pk_body = "\\n".join(g.s(B64, 64) for _ in range(6))
    pk = f"-----BEGIN PRIVATE KEY-----\\n{pk_body}\\n-----END PRIVATE KEY-----\\n"
    sql_pw = g.password()
    forms: list[tuple[str, list[str], list[str]]] = [
        (f"aws configure set aws_access_key_id {akid}\naws configure set aws_secret_access_key {sk}\naws configure set region us-east-1",
         [akid, sk], []),
        (f"aws configure set aws_secret_access_key {sk} --profile ci", [sk], []),
        (f"Access key ID: {akid}\nSecret access key: {sk}", [akid, sk], []),
        (f"User name,Password,Access key ID,Secret access key\nci-user,,{akid},{sk}", [akid, sk], []),
        (f"they exported the pair ({akid} / {sk}) into the runner", [akid, sk], []),
        (f"AWS_ACCESS_KEY_ID={akid} AWS_SECRET_ACCESS_KEY={sk} aws s3 ls", [akid, sk], []),
        (f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={akey};EndpointSuffix=core.windows.net",
         [akey], [acct + ";"]),
        (f"Endpoint=sb://{acct}.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={sas}",
         [sas], [f"{acct}.servicebus.windows.net"]),
        (f"Server=tcp:{acct}.database.windows.net,1433;Initial Catalog=app;User ID=app;Password={sql_pw};Encrypt=True;",
         [sql_pw], [f"{acct}.database.windows.net"]),
        (f'gcloud auth activate-service-account --key-file=<(cat <<EOF\n{{"type": "service_account", "project_id": "proj",'
         f' "private_key": "{pk}", "client_email": "{sa_email}"}}\nEOF\n)', [pk.split("\\n")[2]], []),
        (f"az storage blob upload --account-name {acct} --account-key {akey} -f a.tgz -c builds", [akey], [acct]),
    ]
    text, secrets, decoys = g.pick(forms)
    return Row("cloud-cli", wrap(g, text), secrets, decoys=decoys)


# --- 4. secrets split across lines -------------------------------------------------------------------

def split_line(g: Gen) -> Row:
    tok = "ghp_" + g.s(ALNUM, 36)
    oai = "sk-proj-" + g.s(B64URL, 74) + "T3BlbkFJ" + g.s(B64URL, 74)
    pw = g.password(symbols="", lo=20, hi=28)
    cut = g.r.randint(10, len(oai) - 10)
    wrap_prefix = "I am going to export it and retry the job: export API_TOKEN="
    pad = g.s(LOWER, 80 - len(wrap_prefix) - 12)
    forms: list[tuple[str, list[str]]] = [
        (f'client = OpenAI(\n    api_key=("{oai[:cut]}"\n             "{oai[cut:]}"),\n)', [oai]),
        (f'TOKEN = "{tok[:20]}" \\\n    "{tok[20:]}"', [tok]),
        (f'headers = {{"Authorization": "Bearer " + "{tok[:18]}"\n           + "{tok[18:]}"}}', [tok]),
        (f"export GITHUB_TOKEN={tok[:22]}\\\n{tok[22:]}", [tok]),
        (f"curl -H 'Authorization: token {tok[:15]}\\\n{tok[15:]}' https://api.github.com/user", [tok]),
        (f"db:\n  password: >-\n    {pw[:12]}\n    {pw[12:]}\n  host: {g.host()}", [pw]),
        (f"config:\n  api_secret: |\n    {pw}\n  region: eu-west-1", [pw]),
        (f"{wrap_prefix}{pad} {tok[:11]}\n{tok[11:]}", [tok]),
        (f"OPENAI_API_KEY={oai[:65]}\n{oai[65:]}", [oai]),
    ]
    text, secrets = g.pick(forms)
    return Row("split-line", wrap(g, text), secrets)


# --- 5. credentials in the user's language -------------------------------------------------------------

I18N = [
    ("de", ["Das Passwort ist {v}", "Passwort: {v}", "Kennwort={v}", "der API-Schlüssel lautet {v}", "Mein Passwort für den Server ist {v}"]),
    ("fr", ["le mot de passe est {v}", "Mot de passe : {v}", "mdp={v}", "la clé API est {v}", "voici le jeton : {v}"]),
    ("es", ["la contraseña es {v}", "Contraseña: {v}", "contraseña={v}", "la clave secreta es {v}", "el token de acceso es {v}"]),
    ("pt", ["a senha é {v}", "Senha: {v}", "senha={v}", "a chave da API é {v}", "minha senha do banco é {v}"]),
    ("it", ["la password è {v}", "Password: {v}", "la chiave segreta è {v}", "chiave API: {v}", "la parola d'ordine è {v}",
            "la password del database è {v}"]),
    ("nl", ["het wachtwoord is {v}", "Wachtwoord: {v}", "wachtwoord={v}", "de API-sleutel is {v}", "geheime sleutel: {v}"]),
    ("ru", ["пароль: {v}", "Пароль — {v}", "пароль={v}", "секретный ключ: {v}", "мой пароль от базы {v}", "токен доступа: {v}",
            "для пароля используй {v}"]),
    ("pl", ["hasło to {v}", "Hasło: {v}", "hasło={v}", "klucz API: {v}", "tajny klucz to {v}", "użyj hasła {v}"]),
    ("tr", ["şifre: {v}", "Şifre {v}", "parola={v}", "API anahtarı: {v}", "gizli anahtar {v}"]),
    ("zh", ["密码是{v}", "密码：{v}", "数据库密码: {v}", "密钥是 {v}", "API密钥：{v}", "访问令牌：{v}", "資料庫密碼是 {v}"]),
    ("ja", ["パスワードは{v}です", "パスワード：{v}", "APIキー: {v}", "秘密鍵は {v} です", "トークン：{v}"]),
    ("ko", ["비밀번호는 {v}입니다", "비밀번호: {v}", "API 키: {v}", "암호는 {v} 입니다", "토큰: {v}"]),
    # English narration with words between the name and the value
    ("en", ["the passphrase for the deploy key is {v}", "the user's password was reset to {v} yesterday",
            "the password I set for staging is {v}", "The secret is `{v}`", "the token for the CI bot is {v}",
            "I set the admin password to {v}", "Use {v} as the password for staging", "login with admin / {v}",
            "creds are deploy:{v}", "their token ({v}) has expired"]),
]


def i18n(g: Gen) -> Row:
    lang, forms = g.pick(I18N)
    v = g.password()
    sentence = g.pick(forms).format(v=v)
    host = g.host()
    text = g.pick([f"{sentence}\n(server {host})", f"The user wrote: \"{sentence}\". The host is {host}.",
                   f"> {sentence}\n\nI'll connect to {host} with it.", f"User: {sentence}, bitte/please use {host}"])
    return Row(f"i18n-{lang}", wrap(g, text), [v], decoys=[host])


# --- 6. vendor tokens with no key name, in bare prose ---------------------------------------------------

def vendor_tokens(g: Gen) -> list[tuple[str, Callable[[], str]]]:
    s = g.s
    return [
        ("openai", lambda: "sk-proj-" + s(B64URL, 48)),
        ("openai-legacy", lambda: "sk-" + s(ALNUM, 20) + "T3BlbkFJ" + s(ALNUM, 20)),
        ("openrouter", lambda: "sk-or-v1-" + s(HEX, 64)),
        ("anthropic", lambda: "sk-ant-api03-" + s(B64URL, 93) + "AA"),
        ("aws-key-id", lambda: "AKIA" + s("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
        ("github", lambda: "ghp_" + s(ALNUM, 36)),
        ("github-fine", lambda: "github_pat_" + s(ALNUM, 22) + "_" + s(ALNUM, 59)),
        ("gitlab", lambda: "glpat-" + s(B64URL, 20)),
        ("slack", lambda: "xoxb-" + s(DIGITS, 12) + "-" + s(DIGITS, 13) + "-" + s(ALNUM, 24)),
        ("stripe", lambda: "sk_live_" + s(ALNUM, 24)),
        ("stripe-webhook", lambda: "whsec_" + s(ALNUM, 32)),
        ("google", lambda: "AIza" + s(B64URL, 35)),
        ("huggingface", lambda: "hf_" + s(LOWER + UPPER, 34)),
        ("npm", lambda: "npm_" + s(ALNUM, 36)),
        ("pypi", lambda: "pypi-AgEIcHlwaS5vcmc" + s(B64URL, 50)),
        ("sendgrid", lambda: "SG." + s(B64URL, 22) + "." + s(B64URL, 43)),
        ("twilio", lambda: "SK" + s(HEX, 32)),
        ("telegram", lambda: s(DIGITS, 10) + ":AA" + s(B64URL, 33)),
        ("notion", lambda: "ntn_" + s(ALNUM, 40)),
        ("databricks", lambda: "dapi" + s(HEX, 32)),
        ("digitalocean", lambda: "dop_v1_" + s(HEX, 64)),
        ("doppler", lambda: "dp.pt." + s(ALNUM, 43)),
        ("linear", lambda: "lin_api_" + s(ALNUM, 40)),
        ("postman", lambda: "PMAK-" + s(HEX, 24) + "-" + s(HEX, 34)),
        ("planetscale", lambda: "pscale_tkn_" + s(ALNUM, 43)),
        ("pulumi", lambda: "pul-" + s(HEX, 40)),
        ("rubygems", lambda: "rubygems_" + s(HEX, 48)),
        ("sentry", lambda: "sntryu_" + s(HEX, 64)),
        ("shopify", lambda: "shpat_" + s(HEX, 32)),
        ("vault", lambda: "hvs." + s(ALNUM, 90)),
        ("grafana", lambda: "glsa_" + s(ALNUM, 32) + "_" + s(HEX, 8)),
        ("newrelic", lambda: "NRAK-" + s("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 27)),
        ("docker", lambda: "dckr_pat_" + s(B64URL, 27)),
        ("groq", lambda: "gsk_" + s(ALNUM, 52)),
        ("xai", lambda: "xai-" + s(ALNUM, 80)),
        ("replicate", lambda: "r8_" + s(ALNUM, 37)),
        ("perplexity", lambda: "pplx-" + s(ALNUM, 48)),
        ("langsmith", lambda: "lsv2_pt_" + s(HEX, 32) + "_" + s(HEX, 10)),
        ("supabase", lambda: "sbp_" + s(HEX, 40)),
        ("age", lambda: "AGE-SECRET-KEY-1" + s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58)),
        ("atlassian", lambda: "ATATT3" + s(B64URL, 60) + "=" + s(HEX, 8).upper()),
        ("mailgun", lambda: "key-" + s(HEX, 32)),
        ("heroku", lambda: "HRKU-A" + s(B64URL, 59)),
        ("sonarqube", lambda: "squ_" + s(ALNUM, 40)),
        ("tavily", lambda: "tvly-" + s(ALNUM, 32)),
        ("pinecone", lambda: "pcsk_" + s(ALNUM, 6) + "_" + s(ALNUM, 60)),
        ("figma", lambda: "figd_" + s(B64URL, 40)),
        ("resend", lambda: "re_" + s(ALNUM, 8) + "_" + s(ALNUM, 24)),
        ("neon", lambda: "napi_" + s(LOWER + DIGITS, 64)),
        ("bitbucket", lambda: "ATBB" + s(ALNUM, 32)),
        ("deepseek", lambda: "sk-" + s(HEX, 32)),
    ]


PROSE_FRAMES = [
    "I tried {t} and the API answered 401, so maybe it was revoked.",
    "the key {t} is the one from the staging project",
    "Use {t} for now, I'll rotate it tomorrow.",
    "They pasted {t} in the issue by mistake.",
    "Got it working with {t} — thanks!",
    "(token: {t})",
    "it still fails with {t}.",
    "Der Schlüssel {t} funktioniert nicht mehr.",
]


def vendor_prose(g: Gen) -> Row:
    name, make = g.pick(vendor_tokens(g))
    t = make()
    return Row(f"vendor-{name}", wrap(g, g.pick(PROSE_FRAMES).format(t=t)), [t])


# --- 7. personal data -----------------------------------------------------------------------------------

def luhn_complete(prefix: str, length: int, g: Gen) -> str:
    digits = prefix + g.s(DIGITS, length - len(prefix) - 1)
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2 == 0:
            d *= 2
            d -= 9 if d > 9 else 0
        total += d
    return digits + str((10 - total % 10) % 10)


IBAN_LEN = {"DE": 22, "FR": 27, "ES": 24, "IT": 27, "NL": 18, "GB": 22, "PL": 28, "BE": 16, "CH": 21, "AT": 20}


def iban(g: Gen) -> str:
    cc = g.pick(list(IBAN_LEN))
    n = IBAN_LEN[cc] - 4
    if cc == "NL":
        bban = g.s(UPPER, 4) + g.s(DIGITS, n - 4)
    elif cc == "GB":
        bban = g.s(UPPER, 4) + g.s(DIGITS, n - 4)
    else:
        bban = g.s(DIGITS, n)
    num = "".join(str(int(c, 36)) for c in bban + cc + "00")
    check = 98 - int(num) % 97
    return f"{cc}{check:02d}{bban}"


def phone(g: Gen) -> str:
    d = lambda n: g.s(DIGITS, n)  # noqa: E731
    return g.pick([
        f"+1 {g.r.randint(201, 989)} {g.r.randint(200, 999)} {d(4)}",
        f"+1-{g.r.randint(201, 989)}-{g.r.randint(200, 999)}-{d(4)}",
        f"({g.r.randint(201, 989)}) {g.r.randint(200, 999)}-{d(4)}",
        f"{g.r.randint(201, 989)}-{g.r.randint(200, 999)}-{d(4)}",
        f"+44 20 {d(4)} {d(4)}", f"+44 7{d(3)} {d(6)}", f"+49 30 {d(8)}", f"+49 151 {d(8)}",
        f"+33 6 {d(2)} {d(2)} {d(2)} {d(2)}", f"+34 6{d(2)} {d(3)} {d(3)}", f"+81 90-{d(4)}-{d(4)}",
        f"+86 138 {d(4)} {d(4)}", f"+7 916 {d(3)}-{d(2)}-{d(2)}", f"+{g.r.randint(30, 49)}{d(9)}",
        f"+1{g.r.randint(201, 989)}{g.r.randint(200, 999)}{d(4)}", f"06 {d(2)} {d(2)} {d(2)} {d(2)}",
        f"0{g.r.randint(151, 179)} {d(7)}", f"+31 6 {d(8)}", f"+48 {d(3)} {d(3)} {d(3)}", f"020 7{d(3)} {d(4)}",
        f"({g.r.randint(201, 989)}) {g.r.randint(200, 999)} {d(4)}", f"0{g.r.randint(30, 89)}-{d(7)}",
    ])


def card(g: Gen) -> str:
    kind = g.pick(["visa", "mc", "amex", "discover"])
    if kind == "visa":
        n = luhn_complete("4", 16, g)
    elif kind == "mc":
        n = luhn_complete(str(g.r.randint(51, 55)), 16, g)
    elif kind == "amex":
        n = luhn_complete(g.pick(["34", "37"]), 15, g)
        return g.pick([n, f"{n[:4]} {n[4:10]} {n[10:]}", f"{n[:4]}-{n[4:10]}-{n[10:]}"])
    else:
        n = luhn_complete("6011", 16, g)
    sep = g.pick(["", " ", "-"])
    return sep.join(n[i:i + 4] for i in range(0, 16, 4))


def ssn(g: Gen) -> str:
    return f"{g.r.randint(1, 665):03d}-{g.r.randint(1, 99):02d}-{g.r.randint(1, 9999):04d}"


FIRST = ["John", "Maria", "Anna", "Rahul", "Chen", "Fatima", "Lukas", "Sofia"]
LAST = ["Smith", "Garcia", "Müller", "Kowalski", "Okafor", "Tanaka", "Silva", "van Dijk"]


def pii(g: Gen) -> Row:
    kind = g.pick(["phone", "phone", "card", "iban", "ssn", "home"])
    decoys: list[str] = []
    if kind == "phone":
        v = phone(g)
        text = g.pick([f"Customer callback number: {v}", f"call me at {v} if the deploy breaks",
                       f"Kontakt: Tel. {v}", f"on-call phone {v} (pager fallback)", f"WhatsApp {v}",
                       f"ring the DBA on {v}", f"mobile: {v}", f"téléphone : {v}", f"电话：{v}"])
    elif kind == "card":
        v = card(g)
        text = g.pick([f"The failing payment used card {v} exp 04/29", f"test with {v} in the checkout form",
                       f'{{"card_number": "{v}", "amount": 1299}}', f"Karte {v} wurde abgelehnt"])
    elif kind == "iban":
        v = iban(g)
        text = g.pick([f"Refund to IBAN {v} failed validation", f"payout account: {v}", f'"iban": "{v}"',
                       f"Bankverbindung {v}, bitte prüfen"])
    elif kind == "ssn":
        v = ssn(g)
        text = g.pick([f"SSN: {v}", f"the applicant's social security number is {v}", f'{{"ssn": "{v}"}}',
                       f"SSN {v} appears in the fixture"])
    else:
        v = f"{g.pick(FIRST)} {g.pick(LAST)}"
        v = v.lower() if g.r.random() < 0.2 else v
        path = g.pick([f"C:\\Users\\{v}\\AppData\\Local\\Temp\\build.log",
                       f"/Users/{v}/Projects/app/src/main.ts" if v[0].isupper() else f"C:\\Users\\{v}\\Desktop\\main.ts",
                       f'"C:\\\\Users\\\\{v}\\\\source\\\\repos\\\\api"'])
        text = f"The stack trace points at {path}"
        decoys = ["AppData" if "AppData" in path else "main.ts" if "main.ts" in path else "repos"]
    return Row(f"pii-{kind}", wrap(g, text), pii=[v], decoys=decoys)


# --- what must be left alone --------------------------------------------------------------------------------

def leave_alone(g: Gen) -> Row:
    h = g.host()
    repo = g.pick(["acme/api", "team/web-app", "org/infra"])
    trace = f"00-{g.s(HEX, 32)}-{g.s(HEX, 16)}-01"
    v4 = ".".join(str(g.r.randint(1, 20)) for _ in range(4))
    sha = g.sha()
    uid = g.uuid()
    digest = "sha256:" + g.s(HEX, 64)
    pw = g.password(symbols="-_.~")
    raw = g.password(symbols="@#%!")  # typed into a URL as it is, @ and all
    tok = g.s(ALNUM, 32)  # a token given as the URL's user name
    u = g.user()
    n = g.r.randint(2, 9)
    forms: list[tuple[str, list[str], list[str]]] = [
        (f"DATABASE_URL=postgres://{u}:{pw}@{h}:5432/orders", [pw], [f"{h}:5432/orders", "postgres://"]),
        (f"psql postgresql://{u}:{raw}@{h}:5432/orders", [raw], [f"@{h}:5432/orders"]),
        (f"- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-creds-v{n}\n      key: password", [],
         ["valueFrom", f"db-creds-v{n}"]),
        ("password = %(db_password)s  # filled in by configparser", [], ["%(db_password)s"]),
        (f"The token lifetime is {n * 3600}s and the secret name is db-creds-v{n}.", [], [f"{n * 3600}s", f"db-creds-v{n}"]),
        (f"redis://default:{pw}@{h}:6379/0", [pw], [f"{h}:6379/0"]),
        (f"amqp://{u}:{pw}@{h}/vhost", [pw], [f"{h}/vhost"]),
        (f"git remote add origin git@github.com:{repo}.git", [], [f"git@github.com:{repo}.git"]),
        (f"git clone https://github.com/{repo}.git && cd {repo.split('/')[1]}", [], [f"https://github.com/{repo}.git"]),
        (f'[assembly: AssemblyVersion("{v4}")]', [], [v4]),
        (f"upgraded to version {v4} yesterday", [], [v4]),
        (f"traceparent: {trace}", [], [trace]),
        (f"commit {sha} broke the build", [], [sha]),
        (f"request id {uid} timed out after 30s", [], [uid]),
        (f"image ghcr.io/{repo}@{digest}", [], [digest]),
        ("export OPENAI_API_KEY=YOUR_API_KEY", [], ["YOUR_API_KEY"]),
        ("Authorization: Bearer <token>", [], ["<token>"]),
        ("password: xxxxxxxx", [], ["xxxxxxxx"]),
        (f"Authorization: Bearer\n{g.pick(['Retrying', 'Connection', 'Timeout'])}WithBackoffAfterFailure in client.py", [],
         ["WithBackoffAfterFailure"]),
        (f"curl -H 'Authorization: Bearer $TOKEN' https://{h}/v1/items", [], [h]),
        (f"at com.example.Service.call(Service.java:{g.r.randint(10, 999)})\n  at {h}", [], ["Service.java"]),
        (f"listening on 0.0.0.0:8080, build {g.version()}", [], ["0.0.0.0:8080"]),
        (f"2026-11-30T10:{g.r.randint(10, 59)}:{g.r.randint(10, 59)}Z worker-{g.r.randint(1, 9)} took {g.r.randint(100, 999)}ms",
         [], ["2026-11-30T10:"]),
        (f"package-lock integrity sha512-{g.s(B64, 86)}==", [], []),
        (f"git clone https://{tok}@github.com/{repo}.git", [tok], [f"@github.com/{repo}.git"]),
        (f"git clone https://deploy-bot-{n}@github.com/{repo}.git", [], [f"deploy-bot-{n}@github.com"]),
        (f"net use Z: \\\\{h}\\share /user:CORP\\{u} /persistent:no", [], ["/persistent:no", h]),
        ("use sha256 as the key derivation function, then smtp.login(user, password)", [],
         ["sha256", "smtp.login(user, password)"]),
        (f'{{"path": "/v{n}/items", "pattern": "^[a-z0-9-]+$", "dispatch": "queue"}} and ctx.load_verify_locations(capath=CAPATH)',
         [], [f'"/v{n}/items"', '"^[a-z0-9-]+$"', '"queue"', "capath=CAPATH"]),
    ]
    text, secrets, decoys = g.pick(forms)
    return Row("leave-alone", wrap(g, text), secrets, decoys=decoys)


FAMILIES: list[tuple[Callable[[Gen], Row], int]] = [
    (cmd_password, 3), (base64_wrapper, 2), (cloud_cli, 2), (split_line, 2), (i18n, 3), (vendor_prose, 3),
    (pii, 3), (leave_alone, 3),
]


def rows(seed: int = 13, n: int = 700) -> list[Row]:
    g = Gen(seed)
    makers = [f for f, w in FAMILIES for _ in range(w)]
    out = []
    for i in range(n):
        row = makers[i % len(makers)](g)
        row.decoys = [d for d in row.decoys if d in row.text]
        out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--rows", type=int, default=700)
    args = ap.parse_args()
    for r in rows(args.seed, args.rows):
        sys.stdout.write(json.dumps(r.__dict__, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
