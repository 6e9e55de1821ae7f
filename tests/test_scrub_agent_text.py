"""The secrets and personal data agents actually write, family by family, with planted random values.

Every value here is drawn at run time from a seeded generator: none is a real credential, and no
literal secret sits in this file. A value is gone when neither it nor any 8-character piece of it
is left in the output; what must stay (hosts, paths, versions, digests) must stay verbatim.
"""

from __future__ import annotations

import base64
import json
import os
import random
import string
import sys

import pytest

from jevlin_hooks.privacy import record, scrub
from jevlin_hooks.privacy.rules import BY_NAME, RULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import scrub_eval  # noqa: E402
from bench.agent_text import generate  # noqa: E402

RNG = random.Random(1313)
ALNUM = string.ascii_letters + string.digits


def rand(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def password(symbols: str = "!#%*+-.=?@^_~") -> str:
    return generate.Gen(RNG.randrange(1 << 30)).password(symbols=symbols)


def gone(value: str, clean: str, public: tuple[str, ...] = ()) -> bool:
    return scrub_eval.left_of(value, clean, public) == ""


def assert_gone(text: str, *values: str, keep: tuple[str, ...] = ()) -> str:
    """Each value gone (no 8-character piece left but those the kept public values share: the
    base64 of -----BEGIN starts a key and a certificate alike); each kept string verbatim."""
    clean, findings = scrub.scrub(text)
    for v in values:
        assert gone(v, clean, keep), (v, clean)
    for k in keep:
        assert k in clean, (k, clean)
    assert findings
    return clean


# --- 1. passwords in commands and environment names ----------------------------------------------

COMMANDS = [
    "mysql -h db.internal -u root -p{v} orders", "mysql -u app -p'{q}' -h db.internal", 'mysqldump -uroot -p"{q}" shop',
    "redis-cli -h cache.internal -a {v} PING", "sshpass -p {v} ssh deploy@10.0.0.5 uptime", "sshpass -p'{q}' scp a b:/tmp",
    "htpasswd -b -c /etc/nginx/.htpasswd admin {v}", "htpasswd -nb admin {v}", "docker login -u bot -p {v} registry.example.com",
    "podman login quay.io -u bot -p {v}", "sqlcmd -S db.internal -U sa -P {v} -Q 'select 1'", "sqlcmd -S x -U sa -P '{q}'",
    "az login --service-principal -u http://app -p {v} --tenant t", "openssl rsa -in k.pem -passin pass:{v} -out plain.pem",
    "openssl pkcs12 -export -in c.pem -out b.p12 -passout pass:{v}", "keytool -list -keystore t.jks -storepass {v}",
    "keytool -importkeystore -srckeystore a.p12 -srcstorepass {v} -destkeystore b.jks",
    'ldapsearch -x -D "cn=admin,dc=corp" -w {v} -b dc=corp', "ldapmodify -x -D cn=admin -w '{q}' -f c.ldif",
    "curl -u admin:{v} https://api.internal/health", "curl --user 'admin:{q}' https://api.internal/metrics",
    "PGPASSWORD={v} psql -h db.internal -U app", "export DB_PASS={v}", "SMTP_PASS={v}", "RABBITMQ_DEFAULT_PASS={v}",
    "LDAP_BIND_PW={v}", "export MYSQL_PWD={v}", "REDIS_PASSWD={v}", "GPG_PASSPHRASE='{q}' ./release.sh",
    "mongosh mongodb://db.internal:27017 -u app -p {v}",
    "echo {v} | docker login -u bot --password-stdin registry.example.com",
    "docker login ghcr.io -u bot --password-stdin <<< '{q}'",
]


def test_several_password_flags_in_one_command():
    v, w = password(), password()
    assert_gone(f"keytool -genkeypair -keystore k.jks -storepass {v} -keypass {w}", v, w)
    assert_gone(f"openssl pkcs12 -in a.p12 -passin pass:{v} -passout pass:{w} -out b.p12", v, w)


@pytest.mark.parametrize("form", COMMANDS)
def test_passwords_in_commands_and_env_names(form):
    for _ in range(5):
        v, q = password(), password(symbols="!#%*+-.=?@^_~ ")
        text = f"The user ran:\n`{form.format(v=v, q=q)}`\nand it failed."
        secret = q if "{q}" in form else v
        clean = assert_gone(text, secret)
        assert "The user ran" in clean and "and it failed." in clean


def test_command_flags_without_a_password_stay():
    for text in ("mysql -u root -p orders", "mysql -P 3306 -h db.internal", "redis-cli -p 6379 PING",
                 "openssl rsa -in k.pem -passin env:KEY_PASS", "keytool -list -storepass:env STOREPASS",
                 "export DB_PASS=$DB_PASS", "SMTP_PASS=${SMTP_PASS}"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


# --- 2. keys in kubeconfig and other base64 wrappers ------------------------------------------------

def pem_b64(kind: str) -> str:
    body = "\n".join(rand(ALNUM + "+/", 64) for _ in range(5))
    return base64.b64encode(f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n".encode()).decode()


@pytest.mark.parametrize("kind", ["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY"])
def test_kubeconfig_client_key_goes_certificates_stay(kind):
    key, cert, ca = pem_b64(kind), pem_b64("CERTIFICATE"), pem_b64("CERTIFICATE")
    text = (f"clusters:\n- cluster:\n    certificate-authority-data: {ca}\n    server: https://k8s.internal:6443\n"
            f"users:\n- name: admin\n  user:\n    client-certificate-data: {cert}\n    client-key-data: {key}\n")
    assert_gone(text, key, keep=(ca, cert, "https://k8s.internal:6443"))
    assert_gone(f"decode it with: echo {key} | base64 -d", key)
    wrapped = "\n".join(key[i:i + 76] for i in range(0, len(key), 76))
    assert_gone(f"tls.key: |\n{wrapped}\n", key[76:152], key[-40:])


def test_data_named_fields_public_or_ciphertext_stay_secret_named_go():
    blob = base64.b64encode(password().encode() * 3).decode()
    iv = rand(ALNUM, 22)
    sops = f"    encrypted_data: ENC[AES256_GCM,data:{rand(ALNUM, 44)},iv:{iv}=,type:str]"
    assert scrub.scrub(sops)[0] == sops
    assert_gone(f"  secret_data: {blob}0aZ", blob)
    assert_gone(f'"token-data": "{blob}9Qx"', blob)


# --- 3. cloud CLI forms ----------------------------------------------------------------------------

def aws_pair() -> tuple[str, str]:
    return "AKIA" + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), rand(ALNUM, 30) + "/" + rand(ALNUM + "+", 9)


def test_aws_cli_and_key_pairs():
    for _ in range(10):
        akid, sk = aws_pair()
        assert_gone(f"aws configure set aws_secret_access_key {sk}", sk)
        assert_gone(f"aws configure set default.aws_session_token {sk}", sk)
        assert_gone(f"User name,Password,Access key ID,Secret access key\nci,,{akid},{sk}", akid, sk)
        assert_gone(f"Access key ID: {akid}\nSecret access key: {sk}", akid, sk)
        assert_gone(f"the pair ({akid} / {sk}) is in the runner", akid, sk)
    # one real secret key in 900 has no digit; a long CamelCase name next to a key id stays
    akid, _ = aws_pair()
    for _ in range(40):
        sk = "".join(RNG.choice(string.ascii_letters + "+/") for _ in range(40))
        assert_gone(f"they exported the pair ({akid} / {sk}) into the runner", akid, sk)
    name = "ConfigureRunnerCredentialsFromEnvironmentX"[:40]
    assert name in scrub.scrub(f"{akid} / {name}")[0]


def test_a_base64_key_starting_with_two_slashes():
    for _ in range(10):
        key = "//" + rand(ALNUM + "+/", 84) + "=="
        assert_gone(f"az storage blob upload --account-name stx --account-key {key} -f a.txt", key)
        assert_gone(f'AZURE_STORAGE_KEY="{key}"', key)
    for text in ("token = //comment here", "password: //cdn.example.com/pw.txt"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_a_command_line_password_that_looks_like_code():
    for v in ("ti.KsPc75_Y", "cfg.Prod_2024x", "Ab.Cd9_e4"):
        assert_gone(f"docker login -u svc_reports -p {v} registry.example.com", v, keep=("registry.example.com",))
        assert_gone(f"echo {v} | docker login -u bot --password-stdin ghcr.io", v)
    # in an assignment, a dotted name is still code, not a value
    assert scrub.scrub("password = settings.db_password")[0] == "password = settings.db_password"


def test_azure_and_gcloud():
    acct = "st" + rand(string.ascii_lowercase, 8)
    key = rand(ALNUM + "+/", 86) + "=="
    pw = password()
    assert_gone(f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={key};EndpointSuffix=core.windows.net",
                key, keep=(f"AccountName={acct};",))
    assert_gone(f"Endpoint=sb://{acct}.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={key}", key)
    assert_gone(f"Server=tcp:{acct}.database.windows.net,1433;User ID=app;Password={pw};Encrypt=True;", pw,
                keep=(f"{acct}.database.windows.net",))
    assert_gone(f"az storage blob upload --account-name {acct} --account-key {key} -f a.tgz", key, keep=(acct,))
    body = "\\n".join(rand(ALNUM + "+/", 64) for _ in range(4))
    assert_gone('gcloud auth activate-service-account --key-file=<(echo \'{"type": "service_account", '
                f'"private_key": "-----BEGIN PRIVATE KEY-----\\n{body}\\n-----END PRIVATE KEY-----\\n"}}\')',
                body.split("\\n")[1], body.split("\\n")[3])


# --- 4. secrets split across lines -------------------------------------------------------------------

def test_split_values_leave_no_fragment():
    for _ in range(20):
        tok = "ghp_" + rand(ALNUM, 36)
        oai = "sk-proj-" + rand(ALNUM + "-_", 74) + "T3BlbkFJ" + rand(ALNUM + "-_", 74)
        pw = rand(ALNUM, 24)
        cut = RNG.randint(10, len(oai) - 10)
        head = "export it and retry: export API_TOKEN="
        pad = rand(string.ascii_lowercase, 80 - len(head) - 12)
        for text, secret in [
            (f'client = OpenAI(api_key=("{oai[:cut]}"\n                        "{oai[cut:]}"))', oai),
            (f'TOKEN = "{tok[:20]}" \\\n    "{tok[20:]}"', tok),
            (f'h = {{"Authorization": "Bearer " + "{tok[:18]}"\n     + "{tok[18:]}"}}', tok),
            (f"export GITHUB_TOKEN={tok[:22]}\\\n{tok[22:]}", tok),
            (f"db:\n  password: >-\n    {pw[:12]}\n    {pw[12:]}\n  host: db.internal", pw),
            (f"config:\n  api_secret: |\n    {pw}\n  region: eu-west-1", pw),
            (f"{head}{pad} {tok[:11]}\n{tok[11:]}", tok),
            (f"OPENAI_API_KEY={oai[:65]}\n{oai[65:]}", oai),
            (f"note: >-\n  {tok[:19]}\n  {tok[19:]}\nnext: 1", tok),
            (f'key = "{oai[:cut]}" f"{oai[cut:]}"', oai),
        ]:
            clean = assert_gone(text, secret)
            assert "REDACTED" in clean


def test_yaml_block_keeps_the_next_key():
    pw = rand(ALNUM, 20)
    clean = assert_gone(f"db:\n  password: |\n    {pw}\n  host: db.internal\n", pw)
    assert "  host: db.internal" in clean


def test_joined_pieces_of_ordinary_code_stay():
    for text in ('msg = ("connection reset by peer, "\n       "retrying in 5 seconds")',
                 'print("a" "b")', "echo one \\\n  two", "x" * 79 + "y\nzzz"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


# --- 5. credentials in the user's language -------------------------------------------------------------

@pytest.mark.parametrize("lang,forms", generate.I18N)
def test_credentials_in_twelve_languages(lang, forms):
    for form in forms:
        v = password()
        assert_gone(f"{form.format(v=v)} (server db-1.internal)", v, keep=("db-1.internal",))


def test_i18n_value_with_a_dot_is_no_host_name():
    for v in ("ee5u79.5x0", "k3Y.9pq2z", "a1b2c3.d4", "a77h706-.r", "p60vr3w.uhz", "2-56-XfvX3s"):
        assert_gone(f"a chave da API é {v}, bitte/please use mq-bt05.svc.cluster.local", v,
                    keep=("mq-bt05.svc.cluster.local",))
    for host in ("db-1.internal", "mq-bt05.svc.cluster.local", "cache01.prod.example.com", "auth-8wz1.corp.example.org",
                 "api2.example.de", "ledger-x9.eu-west-1.rds.amazonaws.com", "1.2.3", "2.0.0-rc1", "4.1-SNAPSHOT"):
        assert host in scrub.scrub(f"das Passwort liegt auf {host}")[0]


def test_i18n_value_ending_in_two_letters_that_are_no_country():
    """Only real country codes make a two-letter top-level domain (zjdn9s7vo.ii is a password),
    and under one a label switching three times between letters and digits is random
    (4ui2wqp.ls, in Lesotho by its suffix); a host the 64-character window cuts is taken whole,
    not redacted as the word its cut leaves (seeds 6000-6199, 9000-9099)."""
    for v in ("zjdn9s7vo.ii", "4ui2wqp.ls", "q8w7e6.zq", "a1b2c3.de"):
        assert_gone(f'The user wrote: "Şifre {v}". The host is search-jkco.eu-west-1.rds.amazonaws.com.', v,
                    keep=("search-jkco.eu-west-1.rds.amazonaws.com",))
    for host in ("api2.example.de", "k8s.io", "w3schools.ch", "mail.example.co.uk", "cdn7.example.ls"):
        assert host in scrub.scrub(f"das Passwort liegt auf {host}")[0], host
    text = "Şifre: see the vault. The database is search-jkco.eu-west-1.rds.amazonaws.com."
    assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_i18n_version_shaped_password_and_compound_words():
    """A version's local part (after +) is made of known words, numbers and hex; random letters
    there make a password that looks like a version (seeds 6000-6199, 12000-12199, 14000-14199).
    The rest of a compound word (Passwort-Manager) is not what follows the credential word."""
    for v in ("1.06+wbxali", "8-1+dws75r", "0.0+emodgm"):
        assert_gone(f"hasło to {v}", v)
        assert_gone(f"de API-sleutel is {v}. The host is api-66jb.internal.", v, keep=("api-66jb.internal",))
    for v in ("1.2-3+deb12u1", "2.1.0+cpu", "2.0.1+cu118", "1.0.0+build.5", "1.0.0+sha.5114f85", "5.15+really5.14",
              "1.2+b1", "1.0+git20230101.abc1234", "3.0.11-1+deb12u2", "1.0.0+20130313144700"):
        assert scrub.scrub(f"hasło to {v}")[0] == f"hasło to {v}", v
    for text in ("Ich nutze einen Passwort-Manager seit Jahren.", "das Passwort-Modul in 1.2.3 ist kaputt",
                 "Passwort-Reset für alle Konten"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)
    assert_gone("Passwort-x9Kq2Lm7 ist gesetzt", "x9Kq2Lm7")


def test_i18n_words_without_a_credential_stay():
    for text in ("Das Passwort ist abgelaufen, bitte zurücksetzen.", "la contraseña es demasiado corta",
                 "密码错误，请重试。", "パスワードを忘れました", "비밀번호를 잊어버렸습니다", "пароль не подходит",
                 "Le mot de passe est dans le coffre", "sha512-mdpXk2 appears in a base64 blob: aGVsbG8gbWRwMTIz"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


# --- 6. vendor tokens with no key name, in bare prose --------------------------------------------------

def test_vendor_tokens_ending_in_a_non_word_character():
    """A token whose random part ends in - or = (one in 32 base64url tokens) is taken whole,
    even when that character is the last one its length needs."""
    tail = string.ascii_letters + string.digits + "_-"
    for make, ends in ((lambda e: "figd_" + rand(tail, 39) + e, "-"), (lambda e: "whsec_" + rand(ALNUM + "+/", 31) + e, "="),
                       (lambda e: "dckr_pat_" + rand(tail, 26) + e, "-"), (lambda e: "hvs." + rand(tail, 23) + e, "-"),
                       (lambda e: "glc_" + rand(ALNUM, 31) + e, "-=")):
        for end in ends:
            tok = make(end)
            for frame in ("Use {} for now, I'll rotate it", "I tried {} and the API answered 401", "token={}"):
                clean = assert_gone(frame.format(tok), tok)
                assert not clean.endswith(end + " for now, I'll rotate it") and end + " and the API" not in clean


def test_vendor_tokens_whose_random_tail_repeats_by_chance():
    tok = "rubygems_f5446194a56acf1f0401a47d563b6" + "e2655ee22e52e86e7e9"  # 20 hex ending 2.4 bits
    assert_gone(f"the key {tok} is in ~/.gem/credentials", tok)
    for fake in ("GR1348941" + "123" * 8, "sntryu_" + "a" * 64, "rubygems_" + "ab12" * 12):
        assert fake in scrub.scrub(f"the fixture uses {fake} here")[0], scrub.scrub(f"the fixture uses {fake} here")


def test_vendor_tokens_without_a_digit():
    """One Bitbucket app password or Tavily key in 300 has no digit: its letters are cased at
    random; a long CamelCase name after the same prefix is code."""
    for _ in range(50):
        for prefix in ("ATBB", "tvly-"):
            tok = prefix + "".join(RNG.choice(string.ascii_letters) for _ in range(32))
            assert_gone(f"They pasted {tok} in the issue by mistake", tok)
    for code in ("ATBBAcceptanceTimeoutSecondsHandlers", "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"):
        assert code in scrub.scrub(f"see {code} in the client")[0]
    # one Docker token in a hundred has no digit, often with few capitals: few vowels say random,
    # and so do capitals close together where the case switches only 7 times
    assert_gone("also pasted dckr_pat_kemyCDEPojGnqrNqeg-Huopoa-A in chat", "dckr_pat_kemyCDEPojGnqrNqeg-Huopoa-A")
    for _ in range(50):
        tok = "dckr_pat_" + rand(string.ascii_letters + "_-", 27)
        assert_gone(f"docker login -u bot --password-stdin <<< {tok}; also pasted {tok} in chat", tok)


def test_bootstrap_tokens_without_a_digit():
    for _ in range(30):
        tok = rand(string.ascii_lowercase, 6) + "." + rand(string.ascii_lowercase, 16)
        assert_gone(f"kubeadm join cp.svc.cluster.local:6443 --token {tok} --discovery-token-ca-cert-hash x", tok)
        assert_gone(f"users:\n- name: ci\n  user:\n    token: {tok}\n", tok)
    for text in ("token: abcdef.0123456789abcdef", "token: abcdef.ghijklmnopqrstuv", "token: aaaaaa.aaaaaaaaaaaaaaaa"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_dotted_passwords_in_shell_assignments_and_user_password_pairs():
    for v in ("qUpq04.CYRP1", "F493.erpXS1", "Gtzlf68.xN", "smgp4.IuaOC78", "qoeiCwB4_wi.j8", "PLKSEf0.yHrtbuY_g8", "LWRp2.GN_p0"):
        for form in ("PGPASSWORD={v} psql -h db.internal -U admin", "export DB_PASS={v}", "REDIS_PASSWD='{v}'",
                     "curl -sS --user 'etl:{v}' https://cache.internal/metrics",
                     "    env:\n      MONGO_INITDB_ROOT_PASSWORD: {v}\n",
                     "Server=tcp:x.database.windows.net,1433;User ID=app;Password={v};Encrypt=True;",
                     "htpasswd -b -c /etc/nginx/.htpasswd ci-bot {v}", "vault login --password {v}",
                     'psql "host=db.internal user=app password={v} dbname=analytics"'):
            assert_gone(form.format(v=v), v)
    # code keeps its references: with blanks, a lower-case name, or in a program
    for text in ("password = config.db_password", "client(api_key=settings.OPENAI_KEY)",
                 "DB_PASS = os.environ.DB_PASS", "token: ctx.auth.token2"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_a_password_with_blanks_around_an_equals_sign_after_a_password_flag():
    """` = ` inside a quoted value is a line of code in a program (`password = 'x = y'` stays), but
    not after a command's password flag or in an upper-case shell assignment (seeds 15000-16199)."""
    for text, v in (("sshpass -p'{}' scp build.tgz svc_reports@auth-4mis.corp.example.org:", "d0~ = c*7wbjP62W4G3"),
                    ("`GPG_PASSPHRASE='{}' ./release.sh`", "H@91? = Cb#B"), ("mysql -p'{}' -h db.internal", "Zx9 = q#2Lm"),
                    ("docker login -u bot -p '{}' ghcr.io", "kq := 7Tz@1q")):
        assert_gone(text.format(v), v)
    for text in ("password = 'x = y'", 'token: "a = b"', "secret = `k = v`"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_short_dotted_passwords_are_random_where_names_are_words():
    """A dotted value after a key is code unless a part is random: mixed case and digits, and
    letters with under a fifth vowels, or letters cased at random (found in seeds 9000-9099 and
    12000-12199: Password: ko.bkSjv23, > Password: eC900.JLgIZoWPW)."""
    for v in ("ko.bkSjv23", "ab.XkTr9q4", "qz.MNtwp57", "eC900.JLgIZoWPW", "x7.QwErTyZxP2"):
        assert_gone(f"Password: {v}\n(server api-2ptx.svc.cluster.local)", v, keep=("api-2ptx.svc.cluster.local",))
    for text in ("password = settings.myKey12", "api_key = cfg.apiKey2", "token = ctx.auth.token2",
                 "token: cfg.OAuthToken2", "password = s3.GetObject2"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_a_host_and_its_port_are_no_key_and_value():
    """db-pwdy.corp.example.org:6379 holds "pwd", but it is a host and a port (seeds 9000-9099)."""
    pw = "k3r.14e86gDvr2"
    assert scrub.scrub(f"redis://default:{pw}@db-pwdy.corp.example.org:6379/0")[0] == \
        "redis://default:[REDACTED:url-credentials]@db-pwdy.corp.example.org:6379/0"
    for text in ("connect to secret-store.internal:8200 now", "vault at token-svc.corp.example.com:8443/v1"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)
    assert_gone(f"secret-store.password: {pw}", pw)  # a dotted key that is no host still names a value


def test_a_random_hex_body_with_few_bits_is_still_random():
    """32 random hex digits carry 3.6 bits a character on average, under 3.0 about once in
    200,000 (seeds 18000-18199); patterns and placeholders stay below even the lower floor."""
    # (and a Databricks token, seed 22031, whose prefix has no separator and whose tail holds 6 digits)
    for tok in ("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", "dapi1a89e24232cc3366fae6733eaf336aef"):
        assert_gone(f"They pasted {tok} in the issue by mistake", tok)
    for fake in ("shpat_" + "deadbeef" * 4, "shpat_" + "0" * 31 + "1", "shpat_" + "0123456789abcdef" * 2, "shpat_" + "ab" * 16,
                 "dapi" + "deadbeef" * 4, "dapi" + "0" * 31 + "1", "dapi" + "ab" * 16):
        assert scrub.scrub(f"They pasted {fake} in the issue")[0] == f"They pasted {fake} in the issue", fake


def test_every_vendor_prefix_in_bare_prose():
    g = generate.Gen(2026)
    for name, make in generate.vendor_tokens(g):
        for frame in generate.PROSE_FRAMES:
            for _ in range(3):
                t = make()
                assert_gone(frame.format(t=t), t), name


# --- 7. personal data ------------------------------------------------------------------------------------

def docker_config(registry: str, auth: str) -> str:
    return json.dumps({"auths": {registry: {"auth": auth}}})


def test_docker_config_credentials():
    pw = password()
    auth = base64.b64encode(f"ci-bot:{pw}".encode()).decode()
    assert_gone(docker_config("registry.example.com", auth), auth, keep=("registry.example.com",))
    blob = base64.b64encode(docker_config("r.example.com", auth).encode()).decode()
    assert_gone(f"  .dockerconfigjson: {blob}", blob)


def test_phone_numbers():
    g = generate.Gen(7)
    for p in ("1-800-555-0199", "+44 (0)20 7946 0958", "415.555.0132"):
        assert_gone(f"support line {p}", p)
    for p in ("020 7946 0958", "06 12 34 56 78", "0151 2345678", "4155550132"):
        assert_gone(f"ring me on {p} tomorrow", p)
        assert_gone(f"Customer callback number: {p}", p)
        assert_gone(f"hotline {p}", p)
    for _ in range(200):
        p = generate.phone(g)
        assert_gone(f"call me at {p} if it breaks", p)
    for text in ("version 1.2.3.4", "2026-11-30 10:12:01", "took 1234567890 ns", "port 8080-8090",
                 "at 10.0.0.12:5432", "release 2024.11.30", "+1.5 points", "order 0123 4567 89"):
        assert "phone-number" not in {f.rule for f in scrub.find(text)}, scrub.find(text)


def test_payment_cards_luhn_valid_only():
    g = generate.Gen(8)
    for _ in range(200):
        c = generate.card(g)
        assert_gone(f"the card {c} was declined", c)
    valid = generate.luhn_complete("4", 16, g)
    invalid = valid[:-1] + str((int(valid[-1]) + 1) % 10)
    assert scrub.scrub(f"card {invalid} declined")[0] == f"card {invalid} declined"
    assert scrub.scrub("ids 1234567812345678 4111111111111112")[1] == []


def test_ibans_checksum_valid_only():
    g = generate.Gen(9)
    for _ in range(200):
        iban = generate.iban(g)
        spaced = " ".join(iban[i:i + 4] for i in range(0, len(iban), 4))
        assert_gone(f"refund to {iban} failed", iban)
        assert_gone(f"IBAN {spaced}, please check", spaced)
        bad = iban[:2] + f"{(int(iban[2:4]) + 1) % 100:02d}" + iban[4:]
        assert scrub.scrub(f"refund to {bad} failed")[0] == f"refund to {bad} failed"


def test_ssn_only_labelled_and_possible():
    g = generate.Gen(10)
    for _ in range(100):
        s = generate.ssn(g)
        assert_gone(f"SSN: {s}", s)
        assert_gone(f"the applicant's social security number is {s}", s)
    assert scrub.scrub("ticket 123-45-6789 closed")[0] == "ticket 123-45-6789 closed"
    assert scrub.scrub("SSN: 666-12-3456")[0] == "SSN: 666-12-3456"


def test_home_directory_names_with_spaces():
    for name in ("John Smith", "Maria van Dijk", "Anna Müller"):
        clean = assert_gone(f"at C:\\Users\\{name}\\AppData\\Local\\Temp\\build.log line 3", name,
                            keep=("AppData\\Local\\Temp\\build.log",))
        assert name.split()[-1] not in clean
        assert_gone(f"open /Users/{name}/Projects/app/main.ts", name, keep=("/Projects/app/main.ts",))
    assert scrub.scrub("see /home/alice is where src/main.py lives")[0] == "see /home/[REDACTED:home-username] is where src/main.py lives"


# --- what must be left alone -------------------------------------------------------------------------------

def test_url_credentials_keep_scheme_user_host_and_path():
    for _ in range(20):
        pw = password(symbols="-_.~")
        for url, keep in [(f"postgres://app:{pw}@db.internal.example.com:5432/orders", "db.internal.example.com:5432/orders"),
                          (f"redis://default:{pw}@cache.example.net:6379/0", "cache.example.net:6379/0"),
                          (f"https://x-access-token:{pw}@github.com/acme/api.git", "github.com/acme/api.git")]:
            clean = assert_gone(f"DATABASE_URL={url}", pw, keep=(keep,))
            assert url.split("://")[0] + "://" in clean and url.split("//")[1].split(":")[0] + ":" in clean


@pytest.mark.parametrize("text", [
    "git remote add origin git@github.com:acme/api.git", "git clone https://github.com/acme/api.git",
    "ssh deploy@build-7.example.com 'uptime'", "scp dist.tgz root@files.example.org:/srv/",
    '[assembly: AssemblyVersion("2.1.0.3")]', '<AssemblyFileVersion>4.0.30319.1</AssemblyFileVersion>',
    "upgraded to version 1.2.3.4 today", '"version": "10.4.2.1"',
    "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "commit 9a038989604e8da62ecddbe2094b16ce1b778be1 broke it", "request 832d2129-a846-4e27-99f4-7004b6ad53ef",
    "image app@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    "export OPENAI_API_KEY=YOUR_API_KEY", "Authorization: Bearer <token>", "password: xxxxxxxx",
    "Authorization: Bearer\nConnectionRetriedWithBackoffAfterFailure in client.py",
])
def test_left_alone(text):
    assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_bearer_never_reaches_across_a_line_break():
    tok = rand(ALNUM, 30)
    clean = scrub.scrub(f"token type: Bearer\n{tok} is the next word")[0]
    assert tok in clean


# --- forms no generator of ours wrote (probed by hand on 2026-12-01) ----------------------------------------

def test_passwords_that_begin_with_a_symbol():
    """A generated password may begin with any symbol; % @ = were taken for references
    (%(password)s, @Value(...), == x) whatever followed."""
    for sigil in "%@=":
        v = sigil + password(symbols="")
        for form in ("DB_PASSWORD={v}", 'password = "{v}"', '{{"password": "{v}"}}', "api_key={v}",
                     "The password is {v} for now.", "sshpass -p '{v}' ssh deploy@10.0.0.5", "curl -u bob:{v} https://x.example.com"):
            assert_gone(form.format(v=v), v)
    assert_gone("docker login -u bot -p %nar1h3rSv% registry.example.com", "%nar1h3rSv%")
    for text in ("password = %(db_password)s", "DB_PASSWORD=%APPDATA%", "DB_PASSWORD=%DB_PASS2%", "set PASSWORD=%SystemRoot%",
                 '<add key="ClearTextPassword" value="%TestSourcePassword%" />', 'password: "@Value(${db.password})"',
                 "password=@secrets/db_pass.txt", "if password == other:", "token = @Model.Token", "pass: %s"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_url_passwords_with_an_unencoded_at_sign_and_e_mail_user_names():
    for form, v in (("psql postgresql://app:{}@db.internal:5432/prod", "8tm#Pj%ww@tsO"),
                    ("redis://:{}@cache.internal:6379/0", "-BR!nb@SIh-4M"),
                    ("smtp://ops@corp.example.com:{}@smtp.example.com:587", "Zq9x@Lm2Kw")):
        clean = assert_gone(form.format(v), v)
        assert clean.endswith(form.split("{}")[1]), clean  # the host and the rest stay
    for text in ("git+ssh://git@github.com:org/repo.git@v1.2", "docker://registry:5000/img@sha256:abc",
                 "pip install git+https://github.com/org/repo@main"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_prose_with_words_between_the_credential_and_its_value():
    for form in ("The passphrase for the deploy key is {v} according to the runbook.",
                 "The user's password was reset to {v} yesterday.", "The password I set for staging is {v}",
                 "The secret is `{v}`, store it in Vault.", "La password dell'utente è {v}.", "Il token d'accesso è {v}"):
        v = password(symbols="")
        assert_gone(form.format(v=v), v)
    for text in ("The password for the admin user is stored in Vault under kv/prod.",
                 "The secret is mounted as a volume at /etc/app.", "The token for this request was issued by Keycloak.",
                 "The password field in the form is required.", "The token lifetime is 86400s.",
                 "The secret name is db-creds-v2.", "The Token Name is abc123def", "the password env variable is DB_PASS_2",
                 "The password hash algorithm is bcrypt2b", "The token header was X-Auth-Token2"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_more_prose_connectors_and_words():
    for form in ("the passcode is {v}", "PASSCODE={v}", "DB password -> {v}", "password is: {v}", "the token is: {v}",
                 "Il mio token è {v}", "El token es {v}", "Das Token ist {v}"):
        v = password(symbols="")
        assert_gone(form.format(v=v), v)
    for text in ("the token is: valid", "token -> 3600s", "the password is: see the vault"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_credentials_in_name_value_pairs_subscripts_and_auth_tuples():
    v, t = password(symbols=""), rand(ALNUM, 24)
    for text, value in ((f'- name: API_TOKEN\n  value: "{t}"', t), (f"env:\n  - name: DB_PASSWORD\n    value: {v}\n", v),
                        (f'{{"name": "DB_PASSWORD", "value": "{v}"}}', v),
                        (f'{{ name = "STRIPE_SECRET", value = "{t}" }}', t),
                        (f'os.environ["ANTHROPIC_API_KEY"] = "{t}"', t), (f"ENV['SECRET_KEY'] = '{t}'", t),
                        (f'requests.get(url, auth=("bob", "{v}"))', v), (f'httpx.BasicAuth("bob", "{v}")', v),
                        (f"user: bob\npass: {v}", v)):
        assert_gone(text, value)
    for text in ("- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
                 '- name: LOG_LEVEL\n  value: "debug"', 'auth=("bob", os.environ["PW"])', "pass: 3/3", "pw: true",
                 "you can pass timeout = 30s to the client",
                 "Tests pass: 120 passed"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_dotted_and_elided_values_in_prose_literals_and_next_to_a_key_id():
    """Found by sweeping the generator once it wrote English prose and symbol-first passwords:
    a dotted password in prose read as code (1 password in 2,000), a quoted literal under a
    subscript or in an auth tuple read as code, a label's dotted value alone on its line read as a
    Go field, a password beginning with ..., an SSN with two distinct digits, an AWS secret with
    no digit and its case switching only 9 times in 40, a hex key whose last 20 digits hold 6."""
    for text, v in (("The password is caqpk.oa15.", "caqpk.oa15"), ("the token for the CI bot is uVGc.A279?", "uVGc.A279"),
                    ("the API key is PetQGzEp.O618", "PetQGzEp.O618"), ('os.environ["DB_PASSWORD"] = "xINo58.EYyiEutmYs"', "xINo58.EYyiEutmYs"),
                    ('resp = requests.get(url, auth=("ci-bot", "%St6_WkA.IP2"), timeout=10)', "%St6_WkA.IP2"),
                    ("密码是 ...naa9bM0", "...naa9bM0"), ("the token is ...naa9bM0 ok", "...naa9bM0"),
                    ("SSN: 552-55-2222", "552-55-2222"), ("Password: ysuI25.XF0\n(server api-j42w.internal)", "ysuI25.XF0"),
                    ("Password: EGN22.QlJF", "EGN22.QlJF"), ("секретный ключ: =%Xv-etg16.kI", "=%Xv-etg16.kI"),
                    ("密码：@96lrPz.bHP2CnD.ee", "@96lrPz.bHP2CnD.ee"),
                    ("Got it working with 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 — thanks!",
                     "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"),
                    ("ci-user,,AKIA5K65QF23Q7CG5MPY,m/HXPUwMtnVpH/oemRQKPBW/rcPHYCOMQmwffuz/", "m/HXPUwMtnVpH/oemRQKPBW/rcPHYCOMQmwffuz/")):
        assert_gone(text, v)
    for text in ("The API key is settings.OPENAI_KEY", "the password is config.db_password", "password: ...", "mdp: @db-1.internal:5432",
                 "SSN 111-11-1111", "SSN: 123-45-6789", 'os.environ["DB_PASSWORD"] = cfg.db_password', "password = cfg.dbPass2",
                 "\tPassword: cfg.DBPass,\n", "Password: cfg.DBPass, Host: cfg.Host"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_phone_numbers_after_contact_reach_and_compound_words():
    g = generate.Gen(RNG.randrange(1 << 30))
    for form in ("contact: {p}", "reach her at {p} after 5pm", "Telefonnummer {p}", "Handynummer: {p}", "please reach me on {p}"):
        for p in ("06 12 20 82 69", "0164 3388054", generate.phone(g)):
            assert_gone(form.format(p=p), p)
    for text in ("contact: the on-call team", "reach the server at 10.0.0.0/8 from the VPN"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_network_blocks_and_pinned_versions_are_no_addresses():
    for text in ("allow 10.0.0.0/8 and 192.168.1.0/24", "the VPC is 172.16.0.0/12.", "pip install requests==2.31.0.1",
                 "pin foo~=1.2.3.4 and bar>=4.0.0.1"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)
    # (public addresses: a private or reserved one stays anyway)
    for text, ip in (("ssh to 81.1.2.3/8", "81.1.2.3"), ("route 81.1.2.3/32", "81.1.2.3"), ("where ip==81.2.3.4", "81.2.3.4"),
                     ("status.podIP==81.0.0.5", "81.0.0.5"), ("x >= 81.0.0.1", "81.0.0.1"),
                     # a version word or == at the end of the line before is not before the address
                     ('"abc=="\n81.101.104.186 - - [30/Nov/2026] GET /', "81.101.104.186"), ("version\n81.1.2.3 up", "81.1.2.3")):
        assert ip not in scrub.scrub(text)[0], text


@pytest.mark.parametrize("form", [
    "zip -P {v} backup.zip data.csv", "unzip -P {v} backup.zip", "7z a -p{v} archive.7z docs/",
    "ssh-keygen -p -P {old} -N {v} -f ~/.ssh/id_ed25519", "twine upload -u __token__ -p {v} dist/*",
    "smbclient //fs/share -U bob%{v}", "npm config set //npm.pkg.github.com/:_authToken {v}",
    "poetry config http-basic.private bob {v}", "poetry config pypi-token.private {v}",
    "rabbitmqctl add_user app {v}", "rabbitmqctl change_password app {v}",
    "aws ssm put-parameter --name /app/db --value {v} --type SecureString",
    "aws secretsmanager create-secret --name db --secret-string {v}",
    "echo {v} | sudo -S systemctl restart nginx", "gh auth login --with-token <<< {v}",
    "gcloud secrets versions add db-pass --data-file=- <<< {v}",
])
def test_more_command_line_passwords(form):
    v = password()
    assert_gone(form.format(v=v, old=password(symbols="")), v)


@pytest.mark.parametrize("form", [
    "lftp -u deploy,{v} sftp://files.example.com", "net use Z: \\\\fs01\\share /user:CORP\\bob {v}",
    "net use \\\\fs01\\share {v} /user:CORP\\bob", "net user admin {v} /add", "setx DB_PASSWORD {v}",
    "$sec = ConvertTo-SecureString '{v}' -AsPlainText -Force", "http -a admin:{v} POST https://api.example.com/login",
    "https --auth admin:{v} api.example.com/me", "requirepass {v}", "  masterauth {v}", "redis-cli CONFIG SET requirepass {v}",
    "rootpw {v}", "rootpw --plaintext {v}", "bindpw {v}", "    auth_pass {v}", "`requirepass {v}`", "> masterauth {v}",
])
def test_windows_httpie_lftp_and_server_config_passwords(form):
    v = password()
    if v.startswith(("/", "-")):  # a Windows flag, a directive's option: the forms above never take one
        v = "x" + v
    assert_gone(form.format(v=v), v)


def test_windows_flags_hashes_and_references_stay():
    for text in ("net use Z: \\\\fs01\\share /user:CORP\\bob /persistent:no", "net user admin /delete", "net user bob * /add",
                 "setx PATH \"%PATH%;C:\\tools\"", "setx API_KEY %API_KEY%", "$sec = ConvertTo-SecureString $plain -AsPlainText -Force",
                 "rootpw --iscrypted $6$rounds=4096$salt$hash", "git commit -a -m 'fix: retry on 503'"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_credentials_in_code_calls_and_url_queries():
    t = rand(ALNUM, 28)
    for form in ('new NetworkCredential("svc_backup", "{v}")', 'new PasswordAuthentication("bob", "{v}".toCharArray())',
                 'new UsernamePasswordCredentials("bob", "{v}")', 'smtp.login("alerts@example.com", "{v}")',
                 'ftp.login("deploy", "{v}")', "request.post(url).auth('bob', '{v}')",
                 'conn.simple_bind_s("cn=admin,dc=example,dc=org", "{v}")', 'ENV["DB_PASSWORD"] ||= "{v}"',
                 "jdbc:mysql://db.internal:3306/shop?user=root&password={v}&useSSL=false"):
        v = password()
        assert_gone(form.format(v=v), v)
    # a token as a URL's user name (git accepts it there); its host and repository stay
    clean = assert_gone(f"git clone https://{t}@github.com/org/repo.git", t)
    assert clean.endswith("@github.com/org/repo.git"), clean
    for text in ("client.login('user', 'pass')", "smtp.login(user, password)", "imap.login('testuser', 'testpw')",
                 "git clone https://deploy-bot-for-production@github.com/org/repo.git", "ssh://git@github.com/org/repo.git",
                 "https://x-access-token@github.com/org/repo"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_prose_that_names_the_credential_after_the_value_or_gives_a_pair():
    for form in ("I set the admin password to {v} and restarted the service.", "Use {v} as the password for the staging DB.",
                 "try {v} as the admin password", "use {v} as your API key", "login with admin / {v}", "creds are admin:{v}",
                 "credentials: bob / {v}", "the login is bob:{v}", "their token ({v}) has expired"):
        v = password(symbols="")
        clean = assert_gone(form.format(v=v), v)
        assert ")" in clean or ")" not in form, clean  # the bracket around a token stays
    # a dotted value named as the password after it is the value, unless a code object's (settings.DB_PASS);
    # the one a sweep drew (seed 2031: random, no one's)
    assert_gone("Use lKgfo12.olsj as the password for staging", "lKgfo12.olsj")
    assert scrub.scrub("use settings.DB_PASS2 as the password")[0] == "use settings.DB_PASS2 as the password"
    for v in ("V2" + rand(ALNUM, 13) + "=" + rand(string.ascii_lowercase, 2), rand(ALNUM, 5) + "_7" + rand(ALNUM, 6) + "!=M",
              "u=oV9" + rand(ALNUM, 5)):
        # an = in a token is no keyword argument (max_len=512)
        assert_gone(f"their token ({v}) has expired", v)
    for text in ("use sha256 as the key derivation function", "use v2.3.1 as the token format", "use getpass() as the password source",
                 "replicates a secret to eu-west-3 and keeps it in sync", "one complete token (whitespace_split=True).",
                 "Log in with GitHub: https://github.com/login/oauth2", "login at 10:30:15.123456Z", "login from fe80::1:abcd",
                 "sign in to example.com:8443", "the password to login is in the vault", "login:password", "Login/Logout"):
        clean = scrub.scrub(text)[0]
        assert "credential" not in clean, (text, clean)


def test_terraform_outputs_key_value_lists_tables_and_quoted_words_in_prose():
    for form in ('{{"db_password": {{"sensitive": true, "type": "string", "value": "{v}"}}}}',
                 '{{"key": "DB_PASSWORD", "value": "{v}", "protected": true}}', "- key: API_TOKEN\n  value: {v}\n",
                 "key: DB_PASSWORD, value: {v}", "| password | {v} |", "| `DB_PASSWORD` | `{v}` |", "| **Password** | {v} |",
                 "The password for the `ci` user is `{v}`.", "The password for 'admin' is {v}.", "PW: {v}", "pw={v}"):
        v = password()
        assert_gone(form.format(v=v), v)
    for text in ('{"db_host": {"sensitive": false, "type": "string", "value": "db.internal"}}',
                 "- Key: TagKey\n  Value: TagValue", '{"Key": "mykey", "Value": "myvalue"}', "--tags Key=\"mykey\",Value=\"myvalue\"",
                 "| password | string | The user's password |", "| api_key | required | Your API key |", "| token | `$TOKEN` | from env |",
                 "| TOKEN_TTL | 3600 |", "| keyboard | us-intl2 |", "PW: true", "pw: 3/3",
                 "valueFrom:\n  secretKeyRef:\n    name: db\n    key: password\n"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_an_aws_secret_with_no_digit_but_a_plus_beside_its_key_id():
    # the one a sweep found (seed 4104): no digit, vowels and random case not far from a name's, two
    # slashes (read as a path by the entropy rules); the + says it is no name and no path
    # (drawn by bench/agent_text's generator, seed 4104: random, no one's key)
    key_id, secret = "AKIA" + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), "c+qAHEdgavv/IAE/LrHZBHFumipeIYiJBJVLOalh"
    assert_gone(f"Access key ID: {key_id}\nSecret access key: {secret}\n", secret)


def test_dotted_passwords_in_yaml_blocks_and_under_popular_two_letter_suffixes():
    # random values the sweeps drew (bench/agent_text, seeds 10015, 10113, 12119): YAML refers to
    # nothing, so a dotted value there is the value; a random label under .gg is no host
    for text, v in (("user: ci-bot\npass: OykcQD6.HHc1\nhost: ledger-lcx1.prod.example.net\n", "OykcQD6.HHc1"),
                    ("db:\n  user: etl\n  pass: Got6.enDv5\n", "Got6.enDv5"),
                    ("la password è io1f58o1.gg\n(server mq-hhh0.prod.example.net)", "io1f58o1.gg"),
                    # the case switching at every other letter (seed 26171), where a name switches once a word
                    ('The user wrote: "Password: =fIpR82.ByXg0". The host is search-s8zi.internal.', "fIpR82.ByXg0")):
        assert_gone(text, v)
    for text in ("auth: {\n  user: cfg.user,\n  pass: cfg.smtpPass2\n}\n", "const o = {\n  pass: cfg.smtpPass2\n};\n",
                 "class Settings(BaseSettings):\n    user: str\n    db_password: models.CharField\n    token: np.int64\n",
                 "see k8s.io, h2o.ai and api2.example.de", 'Password: "OAuthToken.Value2"', "password = cfg.smtpPass2"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


def test_pat_and_sig_only_as_a_part_of_a_name():
    """GitHub's PAT and a URL's sig are credential names only as a part of their own: path,
    pattern, capath and dispatch hold the letters (22,016 findings in the stdlib and site-packages)."""
    for text in ('path = "src/main.py"', '"path": "RouteTable"', '"pattern": "^[A-Za-z0-9_-]+$"',
                 "ctx.load_verify_locations(capath=CAPATH)", "__darwin_sigset_t = __uint32_t", '"dispatch": "queue"'):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)
    for form in ("GITHUB_PAT={v}", "pat: {v}", 'azure_pat = "{v}"', 'githubPat = "{v}"', "url_sig={v}"):
        v = password(symbols="")
        assert_gone(form.format(v=v), v)


def test_type_annotations_under_credential_names_stay():
    """api_key: Optional[str] is a parameter's type, not an HTTP header (their names have hyphens):
    api-header took 51 of them in site-packages; credential-assignment, with its tests for code, judges."""
    for text in ("def connect(url: str, api_key: Optional[str] = None) -> None:", "    auth_token: Optional[str]\n",
                 "  api_key: fake-key\n"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)
    for form in ("X-Api-Key: {v}", "api_key: {v}", '"x-api-key": "{v}"', "access_token: {v}", "Auth-Token: {v}"):
        v = password(symbols="")
        assert_gone(form.format(v=v), v)


def test_phone_numbers_after_tel_with_an_accent_and_my_number():
    d = rand("0123456789", 8)
    for label, number in (("tél. ", f"030 {d}"), ("Tél : ", "06 " + " ".join(d[i:i + 2] for i in range(0, 8, 2))),
                          ("my number is ", f"020 7946 {d[:4]}"), ("Mob: ", f"(066) {d[:4]} {d[4:]}")):
        assert_gone(label + number, number)
    for text in ("my number is 42, not 7", "mob programming in 2024 with 12 people"):
        assert scrub.scrub(text)[0] == text, scrub.scrub(text)


# --- every new rule can be turned off -----------------------------------------------------------------------

def sample(rule: str) -> str:
    v = password(symbols="")
    g = generate.Gen(RNG.randrange(1 << 30))
    return {
        "cli-password": f"mysql -u root -p{v} db", "htpasswd-password": f"htpasswd -nb admin {v}",
        "aws-cli-secret": f"aws configure set aws_secret_access_key {rand(ALNUM, 40)}",
        "aws-secret-near-key-id": "AKIA{} / {}".format(*[rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), rand(ALNUM, 40)]),
        "private-key-base64": f"blob {pem_b64('PRIVATE KEY')}", "kubeadm-token": f"--token {rand('abcdef0123456789', 6)}.{rand('abcdefghij0123456789', 16)}",
        "yaml-block-secret": f"password: |\n  {v}\n", "credential-i18n": f"Das Passwort ist {v}",
        "openrouter-key": "sk-or-v1-" + rand("0123456789abcdef", 64), "stripe-webhook-secret": "whsec_" + rand(ALNUM, 32),
        "langsmith-key": "lsv2_pt_" + rand("0123456789abcdef", 32) + "_" + rand("0123456789abcdef", 10),
        "supabase-key": "sbp_" + rand("0123456789abcdef", 40), "llm-provider-key-2": "tvly-" + rand(ALNUM, 32),
        "dev-platform-token": "figd_" + rand(ALNUM, 40), "stdin-password": f"echo {v} | docker login -u bot --password-stdin",
        "payment-provider-token": f"access-production-{generate.Gen(1).uuid()}", "dropbox-token": "sl." + rand(ALNUM, 140), "phone-number": "call +1 415 555 0132 now",
        "phone-number-labelled": "Telefon: 030 " + rand("0123456789", 8),
        "docker-config-auth": docker_config("ghcr.io", base64.b64encode(f"bot:{v}".encode()).decode()),
        "payment-card": f"card {generate.card(g)} ok", "iban": f"IBAN {generate.iban(g)} ok", "us-ssn": f"SSN: {generate.ssn(g)}",
        "url-token-user": f"git clone https://{rand(ALNUM, 30)}@github.com/org/repo.git", "config-directive-password": f"requirepass {v}",
        "credential-use-as": f"use {v} as the password", "credential-pair": f"creds are admin:{v}",
    }[rule]


NEW_RULES = ["cli-password", "stdin-password", "htpasswd-password", "aws-cli-secret", "aws-secret-near-key-id", "private-key-base64",
             "kubeadm-token", "yaml-block-secret", "credential-i18n", "openrouter-key", "stripe-webhook-secret", "langsmith-key",
             "supabase-key", "llm-provider-key-2", "dev-platform-token", "payment-provider-token", "dropbox-token", "phone-number", "phone-number-labelled",
             "docker-config-auth", "payment-card", "iban", "us-ssn", "url-token-user", "config-directive-password",
             "credential-use-as", "credential-pair"]


@pytest.mark.parametrize("name", NEW_RULES)
def test_each_new_rule_fires_and_can_be_turned_off(name):
    assert name in BY_NAME
    text = sample(name)
    assert name in {f.rule for f in scrub.find(text)}, (name, scrub.find(text))
    assert name not in {f.rule for f in scrub.find(text, (name,))}


def test_every_rule_is_documented_with_a_description():
    assert all(r.description and r.name for r in RULES)


# --- positions on non-ASCII text, one pass over a record ------------------------------------------------------

def test_positions_exact_after_non_ascii_and_astral_characters():
    tok = "ghp_" + rand(ALNUM, 36)
    v = password(symbols="")
    text = f"接続に失敗 🎉🎉 — Ünïcödé {tok} 密码是{v}。 ✅ bob@example.com"
    clean, findings = scrub.scrub(text)
    assert clean == "接続に失敗 🎉🎉 — Ünïcödé [REDACTED:github-token] 密码是[REDACTED:credential-i18n]。 ✅ [REDACTED:email]"
    for f in findings:
        assert text[f.start:f.end] in (tok, v, "bob@example.com")


def test_scrub_many_equals_one_field_at_a_time():
    rows = generate.rows(31, 120)
    for i in range(0, len(rows), 6):
        texts = [r.text for r in rows[i:i + 6]] + ["Bash", "", "claude-x"]
        many = scrub.scrub_many(texts)
        for t, (clean, n) in zip(texts, many, strict=True):
            one, found = scrub.scrub(t)
            assert (clean, n) == (one, len(found))


def test_make_safe_counts_redactions_across_fields():
    tok = "ghp_" + rand(ALNUM, 36)
    rec = {"v": 1, "record_id": "ab" * 16, "kind": "search", "ts": "2026-01-01T00:00:00Z", "harness": "claude-code",
           "session_id": "s", "turn_id": "t", "call_id": "c", "window": 0, "seq": 1, "history": f"using {tok}",
           "query": f"why does {tok} fail", "host_meta": {"model": f"m {tok}"}, "tool": tok, "status": "ok"}
    safe = record.make_safe(rec, b"k" * 32)
    assert tok not in str(safe) and safe["host_meta"]["redactions"] == 3


# --- the labelled set meets the targets on a seed the bench does not use -------------------------------------------

def test_labelled_agent_text_meets_the_targets():
    res = scrub_eval.evaluate_agent_text(generate.rows(4242, 700))
    secrets, n_secrets, pii, n_pii, fragments, _rows, kept, n_decoys = res["total"]
    assert secrets / n_secrets >= 0.98, res["misses"][:5]
    assert pii / n_pii >= 0.96, res["misses"][:5]
    assert fragments == 0, [m for m in res["misses"] if m[1] == "fragment"][:5]
    assert kept / n_decoys >= 0.97, res["lost"][:5]


@pytest.mark.parametrize("text", [
    "mysql " + " -p" * 300000, "htpasswd -b " + "x " * 400000, "LS0tLS1CRUdJTi" * 70000, '"a" "' * 200000,
    ("x" * 79 + "y\n") * 12000, "password: |\n" + "".join(" " * i + "password: |\n" for i in range(1, 1400)),
    "Passwort " * 110000, "+1 " * 300000, "creds are " * 100000 + "a:" * 100000, "use x " * 100000 + "as the password",
    "net use " * 100000, "https://" + "a" * 400000 + "@", "requirepass " * 100000, "| password " * 200000, '"db_password": {' * 100000, "4111 " * 200000, "DE89 " * 200000, "AKIA" + "A" * 16 + " x" * 400000,
])
def test_new_rules_stay_linear_on_hostile_text(text):
    clean, _ = scrub.scrub(text)
    assert isinstance(clean, str)


def test_pw_alone_with_any_blank_or_quote_before_the_operator() -> None:
    """`pw` as a whole key name: the gate took `pw:`, `pw=` and `pw =` only, so a tab, two blanks, a
    quote or a bracket before the operator left the rule unrun where no other keyword was."""
    for text in ["pw\t= Zq8kL2pVw9", "pw  = Zq8kL2pVw9", "{'pw': 'Zq8kL2pVw9'}", '["pw"]= "Zq8kL2pVw9"', "pw := Zq8kL2pVw9",
                 "pw ||= Zq8kL2pVw9", "pw += Zq8kL2pVw9"]:
        assert "Zq8kL2pVw9" not in scrub.scrub(text)[0], text
    assert scrub.scrub("pw: true")[0] == "pw: true"  # not password-like: left alone, as before


def test_spellings_the_keywords_once_missed() -> None:
    """Each rule runs only where one of its keywords occurs; the line-search analysis (anchored.py)
    showed matches that hold none. Each of these leaked on the starting tree (69c2089)."""
    for text in ["use Xk9#mz2Lq as new password",  # credential-use-as: "as new", not "as the"
                 "log\tin with admin / Xk9#mz2Lq",  # credential-pair: a tab in "log in"
                 "github_pat: |\n  Zq8kL2pVw9xXk9mzLq8kL2pVw9\n"]:  # yaml-block-secret: pat, not pass/key/token
        assert "Xk9#mz2Lq" not in scrub.scrub(text)[0] and "Zq8kL2pVw9xXk9" not in scrub.scrub(text)[0], text
    # single-dash flags are credential-flag's own now (credential-in-prose took some before)
    assert scrub.scrub("app -secret Zq8kL2pVw9xXk9mz")[1][0].rule == "credential-flag"


def test_credential_flags_are_whole_flags() -> None:
    """A flag starts after a blank, a quote or `=`, and may name its credential last
    (`--db-password`, `--master-user-password`); a word inside another one is no flag."""
    for text in ["rds create --db-password correcthorsebattery", "rds --master-user-password hunter22x",
                 "app --admin-token Zq8kL2pVw9xXk9", "x=--password correcthorse", "--pass-token Zq8kL2pVw9"]:
        clean, found = scrub.scrub(text)
        assert [f.rule for f in found] == ["credential-flag"] and "REDACTED" in clean, text
    for text in ["This method implements the single-token deletion", "csrf-token=Mj2qykJO5rELyHgez",
                 "aws cognito-idp forgot-password --client-id 3n4b5urk", "aws apigateway create-api-key --name ci"]:
        assert scrub.scrub(text)[0] == text, text
    assert scrub.scrub("aws apigateway delete-api-key --api-key 8bklk8bl1k3sB38D9B3")[0].endswith("--api-key [REDACTED:credential-flag]")
