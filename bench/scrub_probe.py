"""Hand-written agent lines, each with a random value planted, that no generator of ours wrote:
which of them the scrubber misses.

    .venv/bin/python bench/scrub_probe.py [--seeds 3] [--tree PATH]

bench/agent_text learns a form once a probe finds it missed, so its recall says little about forms
nobody thought of; this file is where they are thought of. Each line is a form (``@@`` is where the
value goes) and the kind of value: a password (letters, digits, symbols), a random token, a phone
number, an SSN. A form counts as missed for a seed when the value, or any 8-character piece of
it, is left in the output (bench/scrub_eval.py's test, as for the generated rows). ``--tree``
scrubs with another checkout's scrubber (git archive of an older commit), to compare two trees on
the same lines. A few forms are expected misses (LEFT), each with its reason beside it.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import string
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALNUM = string.ascii_letters + string.digits
SYMBOLS = "!#%*+-.=?@^_~"

# connection strings, HTTP, code in ten languages, config files, commands, Windows, prose, PII
FORMS: list[tuple[str, str]] = [
    ('Server=tcp:sql-prod.database.windows.net,1433;Initial Catalog=orders;User ID=admin;Password=@@;Encrypt=True;', 'pw'),
    ('jdbc:mysql://db.internal:3306/shop?user=root&password=@@&useSSL=false', 'pw'),
    ('jdbc:postgresql://db:5432/app?user=app&password=@@', 'pw'),
    ('mongodb+srv://svc:@@@cluster0.ab1cd.mongodb.net/prod?retryWrites=true', 'pw'),
    ('REDIS_URL=redis://:@@@cache.internal:6379/0', 'pw'),
    ('redis://default:@@@redis-12345.c1.us-east-1.ec2.cloud.redislabs.com:12345', 'pw'),
    ('amqp://guest:@@@rabbit.internal:5672/vhost', 'pw'),
    ('Driver={ODBC Driver 18 for SQL Server};Server=db;Uid=sa;Pwd=@@;', 'pw'),
    ('Data Source=db01;User Id=sa;Password=@@;', 'pw'),
    ('"ConnectionStrings": {"Default": "Host=db;Database=app;Username=app;Password=@@"}', 'pw'),
    ('curl -H "X-API-Key: @@" https://api.example.com/v1/items', 'an'),
    ("curl -H 'apikey: @@' https://xyz.supabase.co/rest/v1/", 'an'),
    ('GET https://api.example.com/v1/search?q=retry&api_key=@@&limit=10', 'an'),
    ("wget 'https://files.example.com/export.csv?token=@@'", 'an'),
    ('https://graph.example.com/me?access_token=@@', 'an'),
    ('Cookie: sessionid=@@; csrftoken=abc', 'an'),
    ('Set-Cookie: session=@@; Path=/; HttpOnly', 'an'),
    ('curl -H "Authorization: Token @@" https://api.example.com', 'an'),
    ('curl --header "PRIVATE-TOKEN: @@" "https://gitlab.example.com/api/v4/projects"', 'an'),
    ('curl -H "x-goog-api-key: @@" https://generativelanguage.googleapis.com', 'an'),
    ('http -a admin:@@ POST https://api.example.com/login', 'pw'),
    ("requests.get(url, headers={'X-Auth-Token': '@@'})", 'an'),
    ('client = OpenAI(api_key="@@")', 'an'),
    ("stripe.api_key = '@@'", 'an'),
    ('const token = "@@";', 'an'),
    ('private static final String DB_PASSWORD = "@@";', 'pw'),
    ('let secret = "@@";', 'an'),
    ("$password = '@@';", 'pw'),
    ("'password' => '@@',", 'pw'),
    ("define('DB_PASSWORD', '@@');", 'pw'),
    ('config.password = "@@"', 'pw'),
    ('ENV["API_SECRET"] ||= "@@"', 'an'),
    ('os.Setenv("API_TOKEN", "@@")', 'an'),
    ('setenv("DB_PASS", "@@", 1);', 'pw'),
    ('System.setProperty("db.password", "@@");', 'pw'),
    ('props.put("password", "@@");', 'pw'),
    ('new NetworkCredential("svc_backup", "@@")', 'pw'),
    ('new PasswordAuthentication("bob", "@@".toCharArray())', 'pw'),
    ('requests.post(url, data={"username": "bob", "password": "@@"})', 'pw'),
    ('conn = psycopg2.connect(host="db", user="app", password="@@", dbname="app")', 'pw'),
    ('mysql.connector.connect(user="root", passwd="@@", host="127.0.0.1")', 'pw'),
    ('pymysql.connect(host="db", user="root", password="@@")', 'pw'),
    ('engine = create_engine("postgresql+psycopg2://app:@@@db:5432/app")', 'pw'),
    ('redis.Redis(host="cache", port=6379, password="@@")', 'pw'),
    ('smtp.login("alerts@example.com", "@@")', 'pw'),
    ('ftp.login("deploy", "@@")', 'pw'),
    ('ssh.connect("10.0.0.5", username="root", password="@@")', 'pw'),
    ('Mail::smtp_login(user: "x", password: "@@")', 'pw'),
    ('machine api.example.com login bob password @@', 'pw'),
    ('[pypi]\nusername = __token__\npassword = @@', 'pw'),
    ('https://bob:@@@github.com', 'pw'),
    ('spring.datasource.password=@@', 'pw'),
    ('spring.datasource.password: @@', 'pw'),
    ('ansible_become_pass: @@', 'pw'),
    ('web01 ansible_host=10.0.0.5 ansible_ssh_pass=@@', 'pw'),
    ('db_password = "@@"', 'pw'),
    ('<password>@@</password>', 'pw'),
    ('  <add key="DbPassword" value="@@" />', 'pw'),
    ('ldap.bind.password=@@', 'pw'),
    ('bind_pw = @@', 'pw'),
    ('rootpw @@', 'pw'),
    ('requirepass @@', 'pw'),
    ('masterauth @@', 'pw'),
    ('auth_pass @@', 'pw'),
    ('PASSWORD @@', 'pw'),
    ('secret: @@', 'an'),
    ('client_secret: @@', 'an'),
    ('[client]\nuser=root\npassword=@@', 'pw'),
    ('hostname:5432:app:app:@@', 'pw'),
    ('psql "postgresql://app:@@@db:5432/app"', 'pw'),
    ('mysql -u root --password=@@ shop', 'pw'),
    ('export MYSQL_PWD=@@', 'pw'),
    ('git clone https://oauth2:@@@gitlab.com/team/app.git', 'an'),
    ('git clone https://@@@github.com/org/repo.git', 'an'),
    ('heroku config:set API_KEY=@@', 'an'),
    ('fly secrets set DATABASE_PASSWORD=@@', 'pw'),
    ('kubectl create secret generic db --from-literal=password=@@', 'pw'),
    ('docker run -e POSTGRES_PASSWORD=@@ postgres:16', 'pw'),
    ('helm install pg bitnami/postgresql --set auth.postgresPassword=@@', 'pw'),
    ("terraform apply -var 'db_password=@@'", 'pw'),
    ('wget --password=@@ ftp://files.example.com/a.tar', 'pw'),
    ('wget --http-password=@@ https://files.example.com/a.tar', 'pw'),
    ('lftp -u deploy,@@ sftp://files.example.com', 'pw'),
    ('RSYNC_PASSWORD=@@ rsync -av rsync://backup@host/mod ./', 'pw'),
    ('sshpass -pX ssh root@10.0.0.5', 'pw'),
    ('gpg --batch --passphrase @@ -d secrets.gpg', 'pw'),
    ('htpasswd -nb admin @@', 'pw'),
    ('influx -username admin -password @@', 'pw'),
    ('vault kv put secret/app password=@@', 'pw'),
    ('mongosh --username admin --password @@', 'pw'),
    ('mysqladmin -uroot -pX status', 'pw'),
    ("echo '@@' | docker login --username bob --password-stdin", 'pw'),
    ('curl -u admin:@@ http://localhost:9200/_cat/indices', 'pw'),
    ('curl --user admin:@@ http://localhost:15672/api/overview', 'pw'),
    ('net use Z: \\\\fs01\\share /user:CORP\\bob @@', 'pw'),
    ('runas /user:admin @@', 'pw'),
    ("Invoke-WebRequest -Uri $u -Credential (New-Object PSCredential('bob', (ConvertTo-SecureString '@@' -AsPlainText -Force)))", 'pw'),
    ('$env:API_KEY = "@@"', 'an'),
    ('set DB_PASSWORD=@@', 'pw'),
    ('setx API_TOKEN @@', 'an'),
    ('I set the admin password to @@ and restarted the service.', 'pw'),
    ('Use @@ as the password for the staging DB.', 'pw'),
    ('The API key @@ was rejected with 401.', 'an'),
    ('login with admin / @@', 'pw'),
    ('user admin, password @@', 'pw'),
    ('creds are admin:@@', 'pw'),
    ('pw @@', 'pw'),
    ('the key `@@` is invalid', 'an'),
    ('My password is @@ btw', 'pw'),
    ('the new root password: @@', 'pw'),
    ('password for root = @@', 'pw'),
    ('their token (@@) has expired', 'an'),
    ('Das Passwort lautet @@.', 'pw'),
    ('Le mot de passe est @@.', 'pw'),
    ('La contraseña es @@', 'pw'),
    ('A senha é @@', 'pw'),
    ('Пароль: @@', 'pw'),
    ('密码是@@', 'pw'),
    ('パスワードは@@です', 'pw'),
    ('비밀번호는 @@ 입니다', 'pw'),
    ('Hasło to @@', 'pw'),
    ('Şifre: @@', 'pw'),
    ('Het wachtwoord is @@', 'pw'),
    ('La password è @@', 'pw'),
    ('API-Schlüssel: @@', 'an'),
    ('clé API : @@', 'an'),
    # env, config and prose in more shapes
    ('password: "@@"', 'pw'),
    ("password: '@@'", 'pw'),
    ('password: @@ # prod', 'pw'),
    ('password = "@@"', 'pw'),
    ('password=@@', 'pw'),
    ('<dataSource url="jdbc:x" password="@@"/>', 'pw'),
    ('"credentials": {"username": "bob", "password": "@@"}', 'pw'),
    ('Password: "@@",', 'pw'),
    ('Password = "@@";', 'pw'),
    ('- "POSTGRES_PASSWORD=@@"', 'pw'),
    ('stringData:\n  password: @@', 'pw'),
    ('//registry.npmjs.org/:_authToken=@@', 'pw'),
    ('index-url = https://bob:@@@pypi.example.com/simple', 'pw'),
    ('aws_secret_access_key = @@', 'pw'),
    ('The old password @@ no longer works', 'pw'),
    ('Here is the token: @@', 'pw'),
    ('Token = @@', 'pw'),
    ("I'll use the API key @@", 'pw'),
    ("password: @@ (don't share)", 'pw'),
    ("bob's password is @@", 'pw'),
    ('Mein Passwort ist @@', 'pw'),
    ('mon mot de passe : @@', 'pw'),
    ('mi contraseña es @@', 'pw'),
    ('minha senha é @@', 'pw'),
    ('il mio password è @@', 'pw'),
    ('mijn wachtwoord is @@', 'pw'),
    ('мой пароль @@', 'pw'),
    ('moje hasło to @@', 'pw'),
    ('şifrem: @@', 'pw'),
    ('şifreniz @@', 'pw'),
    ('şifresi @@', 'pw'),
    ('Kennwort lautet @@', 'pw'),
    ('我的密码：@@', 'pw'),
    ('パスワード: @@', 'pw'),
    ('비밀번호: @@', 'pw'),
    ('pass=@@', 'pw'),
    ('passwd: @@', 'pw'),
    ("PASSWORD='@@'", 'pw'),
    ('DB_PASSWORD: "@@"', 'pw'),
    ('db.password=@@', 'pw'),
    ('database.password: @@', 'pw'),
    ('mysql_root_password: @@', 'pw'),
    ('ADMIN_PASS=@@', 'pw'),
    ('root_pw = @@', 'pw'),
    ("password => '@@'", 'pw'),
    (":password => '@@'", 'pw'),
    ('password: !!str @@', 'pw'),
    ('password := "@@"', 'pw'),
    ('"password":"@@"', 'pw'),
    ("'password':'@@'", 'pw'),
    ("{password: '@@'}", 'pw'),
    ('export SECRET_KEY_BASE=@@', 'pw'),
    ('JWT_SECRET=@@', 'pw'),
    ('SESSION_SECRET=@@', 'pw'),
    ('ENCRYPTION_KEY=@@', 'pw'),
    ('COOKIE_SECRET=@@', 'pw'),
    ('SIGNING_KEY=@@', 'pw'),
    ('HMAC_KEY=@@', 'pw'),
    ('webhook_secret: @@', 'pw'),
    ('WEBHOOK_SECRET=@@', 'pw'),
    ('OAUTH_CLIENT_SECRET=@@', 'pw'),
    ('client_secret=@@', 'pw'),
    ('app_secret: @@', 'pw'),
    ('master_key = @@', 'pw'),
    ('admin password: @@', 'pw'),
    ('root password @@', 'pw'),
    ('PW: @@', 'pw'),
    ('pwd=@@', 'pw'),
    ('sudo password is @@', 'pw'),
    ('wifi password: @@', 'pw'),
    ('WiFi-Passwort: @@', 'pw'),
    ('the passphrase @@', 'pw'),
    ('passphrase=@@', 'pw'),
    ('-p @@ (mysql)', 'pw'),
    ('password is set to @@', 'pw'),
    ('changed my password to @@', 'pw'),
    ('new password: @@', 'pw'),
    ('temporary password: @@', 'pw'),
    ('initial admin password is @@', 'pw'),
    ('default password @@ was not changed', 'pw'),
    ('otp secret @@', 'pw'),
    ('TOTP secret: @@', 'pw'),
    ('recovery code: @@', 'pw'),
    ('Password1: @@', 'pw'),
    ('password2=@@', 'pw'),
    ('user_password=@@', 'pw'),
    ('userPassword: @@', 'pw'),
    ('dbPassword = "@@"', 'pw'),
    ('passwordHash? no, password: @@', 'pw'),
    ('psql -W @@', 'pw'),
    ('PGPASS=@@', 'pw'),
    ('MYSQL_ROOT_PASSWORD=@@', 'pw'),
    ('ORACLE_PWD=@@', 'pw'),
    ('SA_PASSWORD=@@', 'pw'),
    ('ELASTIC_PASSWORD=@@', 'pw'),
    ('KEYCLOAK_ADMIN_PASSWORD=@@', 'pw'),
    ('GF_SECURITY_ADMIN_PASSWORD=@@', 'pw'),
    ('RABBITMQ_PASSWORD=@@', 'pw'),
    ('REDIS_AUTH=@@', 'pw'),
    ('MINIO_ROOT_PASSWORD=@@', 'pw'),
    ('MINIO_SECRET_KEY=@@', 'pw'),
    ('VAULT_TOKEN=@@', 'pw'),
    ('CONSUL_HTTP_TOKEN=@@', 'pw'),
    ('NOMAD_TOKEN=@@', 'pw'),
    ('ARGOCD_AUTH_TOKEN=@@', 'pw'),
    ('SONAR_TOKEN=@@', 'pw'),
    ('NPM_TOKEN=@@', 'pw'),
    ('CODECOV_TOKEN=@@', 'pw'),
    ('TWINE_PASSWORD=@@', 'pw'),
    ('DOCKER_PASSWORD=@@', 'pw'),
    ('CI_REGISTRY_PASSWORD=@@', 'pw'),
    ('HEROKU_API_KEY=@@', 'pw'),
    ('SENTRY_AUTH_TOKEN=@@', 'pw'),
    ('DD_API_KEY=@@', 'pw'),
    ('NEW_RELIC_LICENSE_KEY=@@', 'pw'),
    ('ALGOLIA_ADMIN_KEY=@@', 'pw'),
    ('MAPBOX_ACCESS_TOKEN=@@', 'pw'),
    ('FIREBASE_TOKEN=@@', 'pw'),
    ('EXPO_TOKEN=@@', 'pw'),
    ('api_key: @@', 'pw'),
    ("apiKey: '@@'", 'pw'),
    ('x-api-key=@@', 'pw'),
    ('access_token=@@', 'pw'),
    ('refresh_token: @@', 'pw'),
    ('id_token=@@', 'pw'),
    ('auth_token=@@', 'pw'),
    ('bearer @@', 'pw'),
    ('Authorization: Bearer @@', 'pw'),
    ('Authorization: token @@', 'pw'),
    ('Private-Token: @@', 'pw'),
    ('X-Vault-Token: @@', 'pw'),
    # structured output agents paste: AWS STS, terraform output, az, vault, tables
    ('{"Credentials": {"AccessKeyId": "ASIAQ2W3E4R5T6Y7U2I3", "SecretAccessKey": "@@", "SessionToken": "x"}}', "b64-40"),
    ('"SessionToken": "@@"', "b64-300"),
    ('terraform output -json\n{"db_password": {"sensitive": true, "type": "string", "value": "@@"}}', "pw"),
    ('db_password = <sensitive>\nadmin_password = "@@"', "pw"),
    ('  "appId": "x",\n  "displayName": "ci",\n  "password": "@@",\n  "tenant": "y"', "token"),
    ("Token                 @@\nToken Accessor        x", "token"),
    ("| password | @@ |", "pw"),
    ("password\t@@", "pw"),
    ("Password        : @@", "pw"),
    ("key: DB_PASSWORD, value: @@", "pw"),
    ("DB_PASSWORD -> @@", "pw"),
    ("set password @@", "pw"),
    ("--set-string auth.password=@@", "pw"),
    ("--build-arg NPM_TOKEN=@@", "token"),
    ("-e 'DB_PASSWORD=@@'", "pw"),
    ('environment = { DB_PASSWORD = "@@" }', "pw"),
    ("secrets:\n  db_password: @@", "pw"),
    ("mysql://root:@@@localhost/db", "pw"),
    ("sqlite:///x.db?password=@@", "pw"),
    ("ldap://cn=admin:@@@ldap.example.com", "pw"),
    ("The password for the `ci` user is `@@`.", "pw"),
    ("Passwort für den Admin: @@", "pw"),
    ("Le mot de passe de l'admin est « @@ »", "pw"),
    ('La contraseña del usuario root es "@@"', "pw"),
    ("管理员密码为 @@", "pw"),
    ("管理者のパスワードは「@@」です", "pw"),
    ("관리자 비밀번호는 '@@'입니다", "pw"),
    ("Пароль администратора — @@", "pw"),
    ("Hasło administratora: @@", "pw"),
    ("Yönetici şifresi: @@", "pw"),
    ("Het wachtwoord van de beheerder is @@", "pw"),
    ("A senha do administrador é @@", "pw"),
    ("La password dell'amministratore è @@", "pw"),
    # personal data
    *((f, "phone") for f in ("call me on @@", "phone: @@", "Tel.: @@", "my number is @@", "reach the owner at @@", "SMS to @@ failed",
                             "tél. @@", "teléfono @@", "telefone: @@", "номер телефона @@", "手机号 @@", "電話番号: @@", "Tel: @@",
                             "电话：@@", "Телефон: @@", "Phone No. @@", "phone number @@", "mobile @@", "Mob: @@", "cell: @@",
                             "contact number: @@", "Tel.-Nr. @@", "Handy: @@", "WhatsApp: @@", "fax @@")),
    *((f, "ssn") for f in ("SSN: @@", "SSN#: @@", "ssn=@@", "social security no. @@", "Social Security Number: @@")),
    *((f, "email") for f in ("email me at @@", "the user @@ cannot log in", "From: Jane Doe <@@>", "contact=@@")),
]

# expected misses, each for a reason (README, "left alone")
LEFT = {
    "hostname:5432:app:app:@@",  # a .pgpass line: host:port:db:user:password, no word says password
    "runas /user:admin @@",  # runas takes no password on its command line: it prompts
    "pw @@",  # two letters and a space: in prose, too weak a name
    "the key `@@` is invalid",  # "key" alone names too many things to take what follows
    "psql -W @@",  # -W forces a prompt and takes no value: what follows is a database name
    "-p @@ (mysql)",  # a flag with no command
    "password: !!str @@",  # a YAML tag before the value
    "recovery code: @@",  # "code" alone is no credential name
    "PGPASS=@@",  # no such variable (PGPASSWORD is; PGPASSFILE=path must stay)
    "REDIS_AUTH=@@",  # "auth" only hints: the value must look random, a 10-character password may not
    "bearer @@",  # a bearer token has no ! # % * ? @ ^: a password after "bearer" is not one
    "DB_PASSWORD -> @@",  # -> after a name is also a lambda and a member access in code
}


def value(kind: str, r: random.Random) -> str:
    d = lambda n: "".join(r.choice(string.digits) for _ in range(n))  # noqa: E731
    if kind in ("pw", "simple"):
        n = r.randint(10, 18)
        chars = [r.choice(ALNUM + (SYMBOLS if kind == "pw" else "")) for _ in range(n - 3)]
        chars += [r.choice(string.digits), r.choice(string.digits), r.choice(string.ascii_lowercase)]
        r.shuffle(chars)
        return "".join(chars)
    if kind in ("an", "token"):
        return "".join(r.choice(ALNUM) for _ in range(r.randint(20, 40)))
    if kind.startswith("b64-"):
        return "".join(r.choice(ALNUM + "+/") for _ in range(int(kind[4:])))
    if kind == "phone":
        return r.choice([f"+44 20 7946 {d(4)}", f"020 7946 {d(4)}", f"030 {d(8)}", f"01 23 45 {d(2)} {d(2)}", f"+39 06 {d(8)}",
                         f"+61 4{d(2)} {d(3)} {d(3)}", f"+55 11 9{d(4)}-{d(4)}", f"+91 98{d(3)} {d(5)}", f"+1 (415) 555-{d(4)}",
                         f"415.555.{d(4)}", f"+49 (0)30 {d(8)}", f"+86 10 {d(4)} {d(4)}", f"+7 (495) {d(3)}-{d(2)}-{d(2)}",
                         f"03-{d(4)}-{d(4)}", f"010-{d(8)}", f"+33 1 {d(2)} {d(2)} {d(2)} {d(2)}", f"(0{d(2)}) {d(4)} {d(4)}"])
    if kind == "ssn":
        return f"{r.randint(100, 665)}-{r.randint(10, 99)}-{d(4)}"
    if kind == "email":
        return r.choice(["jane.doe", "j.smith+test", "mario_rossi", "anna-k"]) + str(r.randint(1, 99)) + "@" + \
            r.choice(["gmail.com", "example.co.uk", "corp.de", "mail.ru"])
    raise ValueError(kind)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--tree", help="scrub with this checkout's jevlin_hooks instead of this one's")
    args = ap.parse_args()
    sys.path.insert(0, os.path.abspath(args.tree) if args.tree else ROOT)
    from jevlin_hooks.privacy import scrub

    sys.path.insert(0, ROOT)  # this checkout's bench/, whichever scrubber was imported above
    from bench.scrub_eval import left_of

    missed: collections.Counter[str] = collections.Counter()
    for seed in range(1, args.seeds + 1):
        r = random.Random(seed)
        for form, kind in FORMS:
            v = value(kind, r)
            text = form.replace("@@", v)
            if left_of(v, scrub.scrub(text)[0]):
                missed[form] += 1
    print(f"scrubber: {os.path.dirname(os.path.dirname(os.path.dirname(scrub.__file__)))}; {len(FORMS)} forms x {args.seeds} seeds")
    for form, n in missed.most_common():
        print(f"  {'LEFT' if form in LEFT else 'MISS'} {n}/{args.seeds}  {form!r}")
    unexpected = sum(1 for f in missed if f not in LEFT)
    print(f"missed in some seed: {len(missed)} of {len(FORMS)} forms ({unexpected} not in LEFT)")


if __name__ == "__main__":
    main()
