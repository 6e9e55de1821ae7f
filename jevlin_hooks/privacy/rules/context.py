"""Credentials known by their context: key names, command lines, prose, configuration formats."""

from __future__ import annotations

from jevlin_hooks.privacy.rules import parts
from jevlin_hooks.privacy.rules.codes import RECOVERY_WORDS
from jevlin_hooks.privacy.rules.password_words import PASSWORD_WORDS
from jevlin_hooks.privacy.rules.rule import Rule

RULES: tuple[Rule, ...] = (
    Rule("quoted-high-entropy", "secret", "long random-looking quoted values (32+ characters, mixed letters and digits, high entropy) next to any name: vendor keys named only for their vendor",
         r"(?:^|[^A-Za-z0-9_\-])([A-Za-z_][A-Za-z0-9_\-]*)[\"']?[ \t]*(?:=>|:=|=|:|,)[ \t]*[\"'`]?([A-Za-z0-9+/=_\-]{32,})", ("=", ":", ","), 2, "entropy32",
         examples=("cloudflare: \"{alnum:40}\"", "algoliaAdmin: {alnum:60}"),
         counter_examples=("sumOfExposures = 3Kof2VffNQ0QgYIhXUPJosVlCaQKm2hfpWE6F1fT9YGY74blQBIPsrkCcf1TwKE5;",
                           "integrity \"sha512-3Ahq6nNQ0sBZAkBcyKNXtUk3rU3mpS5vAlg/kuQ6gmpVSbzDVk1Wg5iBp2HNoKJmEEDWKDnKFcGbSohRrCNm5sA==\"",
                           "publicToken = \"9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit\"",
                           "The ED25519 key fingerprint is SHA256:{b64:43}.", "Digest: sha-256={b64:43}=",
                           "< x-amz-id-2: {b64:76}", "{\"name\": \"x-trace-id\", \"value\": \"{hex:32}\"}",
                           "# public key: age1{lowernum:58}", "[\"APP_ENV=staging\", \"SOURCE_COMMIT={hex:40}\", \"HOSTNAME=web-1\"]")),
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
         + parts.CMD_VALUE,
         ("mysql", "mariadb", "redis-cli", "sshpass", "login", "sqlcmd", "bcp", "osql", "isql", "mongo", "ldap", "keytool",
          "openssl", "storepass", "keypass", "pass:", "zip", "7z", "ssh-keygen", "twine", "smbclient", ":_auth", ":_password",
          "http-basic", "pypi-token", "rabbitmqctl", "put-parameter", "lftp", "net use", "net user", "setx", "convertto-securestring"),
         (1, 2, 3), "cli-command", anchors=("net ", "net\t"),
         examples=("mysql -h db.internal -u root -pZq8kL2p{alnum:6} orders",
                   "redis-cli -h cache.internal -a Xk9mz2Lq{alnum:4} PING",
                   "sshpass -p 'Tr0ub4dor&3' ssh deploy@10.0.0.5 uptime",
                   "keytool -list -keystore t.jks -storepass ch4ng3d{alnum:4}",
                   "openssl rsa -in k.pem -passin pass:Qw9er7Ty{alnum:4} -out plain.pem",
                   "net use \\\\host\\share Zq8kL2pVw9x /user:ops"),
         counter_examples=("mysql -u root -p orders", "mysql -P 3306 -h db.internal", "redis-cli -p 6379 PING",
                           "openssl rsa -in k.pem -passin env:KEY_PASS", "keytool -list -storepass:env STOREPASS",
                           "net user bob /add")),
    Rule("stdin-password", "secret", "a password piped or fed to a program that reads it from stdin: echo X | docker login --password-stdin, --password-stdin <<< X (docker, podman, helm, oras, crane, skopeo, buildah, nerdctl), echo X | sudo -S, gh auth login --with-token <<< X, gcloud secrets ... --data-file=- <<< X",
         r"\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?" + parts.CMD_VALUE + r"[ \t]*\|[ \t]*(?:(?:sudo[ \t]+)?(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane)\b[^\n|;&]*--password-stdin|sudo[ \t]+(?:-[A-Za-z]*S\b|--stdin))"
         r"|(?:--password-stdin|--with-token|--data-file[= ]-)[ \t]*<<<[ \t]*(?:'([^'\r\n]+)'|\"([^\"\r\n]+)\"|([^\s'\"`;|&<>()]+))",
         ("--password-stdin", "sudo", "--with-token", "--data-file"), (1, 2, 3, 4, 5, 6), "command",
         examples=("echo Zq8kL2p{alnum:6} | docker login -u bot --password-stdin registry.example.com",
                   "docker login ghcr.io -u bot --password-stdin <<< 'Xk9#mz2Lq{alnum:4}'")),
    Rule("htpasswd-password", "secret", "the password given to htpasswd -b (the last argument: htpasswd -b[c] FILE USER X, htpasswd -nb USER X)",
         r"(?m)\bhtpasswd(?:[ \t]+-[A-Za-z]+)+(?:[ \t]+[^\s\-]\S*){1,2}?[ \t]+" + parts.CMD_VALUE + r"[ \t]*(?:$|[|;&)`])",
         ("htpasswd",), (1, 2, 3), "command",
         examples=("htpasswd -b -c /etc/nginx/.htpasswd admin Zq8kL2p{alnum:6}",
                   "htpasswd -nb admin Xk9mz2Lq{alnum:4}")),
    Rule("config-directive-password", "secret", "passwords in server configuration directives, at the start of a line (or of a quote) or after CONFIG SET: Redis requirepass X and masterauth X, OpenLDAP rootpw X (and kickstart's rootpw --plaintext X), nslcd bindpw X, keepalived auth_pass X; rootpw --iscrypted HASH stays (a hash)",
         r"(?im)(?:^[ \t>]*[`'\"]?[ \t]*|\bconfig[ \t]+set[ \t]+)(?:requirepass|masterauth|rootpw(?:[ \t]+--plaintext)?|bindpw|auth_pass)[ \t]+" + parts.CMD_VALUE,
         ("requirepass", "masterauth", "rootpw", "bindpw", "auth_pass"), (1, 2, 3), "directive", prefilter=True,
         examples=("requirepass Zq8kL2p{alnum:6}", "redis-cli CONFIG SET masterauth Xk9mz2Lq{alnum:4}"),
         counter_examples=("rootpw --iscrypted $6$rounds=4096$abc$def",)),
    Rule("aws-cli-secret", "secret", "aws configure set aws_secret_access_key X (and aws_session_token)",
         r"(?i)\baws[ \t]+configure[ \t]+set[ \t]+(?:[a-z0-9_\-]+\.)?(?:aws_secret_access_key|aws_session_token)[ \t]+[\"']?([A-Za-z0-9/+=]{16,})",
         ("configure",), 1,
         examples=("aws configure set aws_secret_access_key {alnum:30}/{alnum:9}",)),
    Rule("aws-secret-near-key-id", "secret", "an AWS secret access key (40 random base64 characters) within two lines after an AWS access key id, whatever names them: a credentials CSV, prose, a key pair pasted side by side",
         r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b[^\n]{0,120}?(?:\r?\n[^\n]{0,120}?)?(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
         ("akia", "asia", "abia", "acca", "a3t"), 1, "aws40",
         examples=("User name,Password,Access key ID,Secret access key\nci,,AKIA{upper:16},{alnum:30}/{alnum:9}",
                   "the pair (AKIA{upper:16} / {alnum:30}+{alnum:9}) is in the runner")),
    Rule("private-key-base64", "secret", "base64 of a PEM private key (it starts LS0tLS1CRUdJTi, the encoding of -----BEGIN), also wrapped over lines, as in kubeconfig client-key-data and Kubernetes TLS secrets; base64 certificates stay",
         r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}(?:\r?\n[ \t]*(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9+/]{1,15}={1,2}))*",
         ("ls0tls1crudjti",), 0, "pem64",
         examples=("client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo{b64:120}",),
         counter_examples=("client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk{b64:120}",)),
    Rule("docker-config-auth", "secret", "registry credentials in Docker config JSON: a base64 {\"auths\": ...} blob (.dockerconfigjson) and each \"auth\": base64(user:password)",
         r"(?:\b(?:eyJhdXRocyI6|ewogICJhdXRocyI6|ewoJImF1dGhzIjog|eyAiYXV0aHMiOi)[A-Za-z0-9+/]{16,}={0,2}|\"auth\"[ \t]*:[ \t]*\"([A-Za-z0-9+/]{8,}={0,2})\")",
         ("eyjhdxrocyi6", "ewogicjhdxrocyi6", "ewojimf1dghzijog", "eyaiyxv0ahmioi", '"auth"'), (1, 0), "dockerauth",
         examples=("{\"auths\": {\"registry.example.com\": {\"auth\": \"Ym90OlpxOGtMMnBWdzl4WGs5bXoyTHE=\"}}}",
                   ".dockerconfigjson: eyJhdXRocyI6{b64:80}")),
    Rule("kubeadm-token", "secret", "Kubernetes bootstrap tokens (6 + 16 lower-case letters and digits: abcdef.0123456789abcdef) after the word token",
         r"\b[a-z0-9]{6}\.[a-z0-9]{16}\b", ("token",), 0, "bootstrap-token", ("token",),
         examples=("kubeadm join 10.0.0.1:6443 --token {lowernum:6}.{lowernum:16}",)),
    Rule("yaml-block-secret", "secret", "a YAML literal or folded block (key: | or key: >-) under a credential-named key: every more-indented line below it",
         r"(?im)^([ \t]*)[\"']?(?:" + parts.STRONG + r")[\"']?[ \t]*:[ \t]*[|>][+\-]?[0-9]?[ \t]*(?:#[^\n]*)?\r?\n",
         ("pass", "pwd", "secret", "token", "key", "cred", "bearer", "jwt", "pat", "_sig", "pw"), 0, "yamlblock", longest=0, longest_in_long_texts=True,
         examples=("client_secret: |\n  {alnum:40}\n  {alnum:20}\nnext: value\n",
                   "github_pat: |\n  Zq8kL2pVw9xXk9mzLq8kL2pVw9\n"),
         counter_examples=("description: |\n  a block of text\n",)),
    Rule("credential-i18n", "secret", "credentials named in the user's language, in prose and key=value: German (Passwort, Kennwort, Schlüssel), French (mot de passe, mdp, clé, jeton), Spanish (contraseña, clave), Portuguese (senha, chave), Italian (la password è, chiave, parola d'ordine), Dutch (wachtwoord, sleutel), Russian (пароль, ключ, токен, секрет), Polish (hasło, klucz), Turkish (şifre, parola, anahtar), Chinese (密码, 密钥, 口令, 令牌), Japanese (パスワード, 秘密鍵, キー, トークン), Korean (비밀번호, 암호, 키, 토큰): the first credential-looking word in the 64 characters after it",
         # a word in Latin letters must stand alone (mdp and clave hide inside base64); CJK words
         # have no spaces around them (密码是X)
         r"(?i)(?:(?:^|[^A-Za-z0-9_])(?:" + "|".join(w for w in parts.I18N_WORDS if w.isascii()) + r")([^A-Za-z0-9\n][^\n]{0,63})"
         r"|(?:" + "|".join(w for w in parts.I18N_WORDS if not w.isascii()) + r")([^\n]{1,64}))",
         parts.I18N_WORDS, (1, 2), "i18n",
         field_value=True, examples=("Mein Passwort ist Zq8#kL2p{alnum:4}, bitte ändern.", "le mot de passe est Xk9#mz2Lq{alnum:4}",
                   "密码是Ab3$xy9Kq{alnum:4}", "пароль: Qw9#er7Ty{alnum:4}"),
         counter_examples=("Der Passwort-Manager speichert alles.", "postgres://root:j5cC.mdP@host/db",
                           "La chiave che finisce con ghp...{alnum:4} è stata revocata ieri.")),
    Rule("credential-label", "secret", "a password after its label, the label a key naming a password in any language and any casing or separator convention (Passwort, mot_de_passe, contraseña, senha, пароль, パスワード, 密码, 비밀번호, hasło, wachtwoord, şifre, mật khẩu, kata sandi, كلمة المرور, ...; adminPwd, smtpPass, shop:dbPassword) standing first on its line, after a speaker: or a table bar: the quoted string whole, or the rest of the line (a passphrase of words: password: spruce dragon cabin glacier, adminPassword: maple_orange_river_stone); a placeholder, a reference, a mask, a count, a URL, a path and a sentence stay",
         r"(?i)(" + "|".join(w.replace(".", r"\.") for w in PASSWORD_WORDS) + ")",
         PASSWORD_WORDS, 1, "label",
         examples=("Passwort: {lower:8}", "  \"mot_de_passe\": \"{alnum:10}*\",", "пароль = {alnum:12}",
                   "[07:49] Li: 密码: {lower:6}.{lower:5}.{lower:6}.{lower:5}", "password: {lower:6} {lower:5} {lower:7} {lower:6}",
                   "adminPassword: {lower:6}_{lower:7}_{lower:5}_{lower:6}", "  비밀번호: \"{lower:5} {lower:6} the {lower:5} at 7!\""),
         counter_examples=("Passwort: siehe Vault", "mot_de_passe_oublie: https://example.com/reset", "max_password_length: 128",
                           "Passwort-Manager: KeePassXC", "пароль: ${DB_PASSWORD}", "password: reset it in the portal",
                           "hasło = <twoje hasło>", "senha: ********", "password_policy: min_length_twelve_chars")),
    Rule("recovery-codes", "secret", "an account's recovery (backup, scratch) codes after their label in any of 20 languages (Recovery codes:, Backup-Codes:, códigos de recuperación, резервные коды, 恢复码, 복구 코드, ...): the rest of the label's line, or the lines below it, when they hold only codes (3 to 10 letters and digits joined by dashes, or two groups of digits: 2675 8087  R7LT-N7X2-XCPH, one a line with a bullet); a sentence after the label stays",
         r"(?i)(" + "|".join(RECOVERY_WORDS) + ")", RECOVERY_WORDS, 1, "recovery-codes",
         examples=("Recovery codes: {digits:4} {digits:4}  {uppernum:4}-{uppernum:4}-{uppernum:4}  {hex:5}-{hex:5}",
                   "Backup-Codes:\n- {hex:5}-{hex:5}\n- {hex:5}-{hex:5}\n- {hex:5}-{hex:5}\n", "恢复码：{digits:4} {digits:4}, {digits:4} {digits:4}"),
         counter_examples=("Recovery codes: stored in 1Password (vault Ops)", "the recovery codes we printed in 2024 are gone",
                           "Backup codes:\nnone left, generate new ones")),
    Rule("env-line", "secret", "an env file's or env dump's NAME=value line (from the line's start, after export or a YAML list's dash) whose value holds a character that ends a value in code (; ( ) { } < > [ ] \\): the value to the line's end, under a name the credential judge reads (OCI_AUTH_TOKEN=Uo;:40)bi)x:UR(a{b>K)",
         r"(?m)^[ \t]*(?:- |export[ \t]+)?([A-Za-z_][A-Za-z0-9_.\-]*)=([^\s\"'`$][^\s;(){}<>\[\]\\]*[;(){}<>\[\]\\][^\s]*)[ \t]*\r?$",
         ("pass", "pwd", "secret", "token", "key", "cred", "auth", "bearer", "jwt", "salt", "cookie"), 2, "env-line", prefilter=True,
         examples=("OCI_AUTH_TOKEN=Uo;:40)bi{alnum:6}x:UR(a{b>K", "      - DJANGO_SECRET_KEY=66mjghc1yy#4)qt_5w{lower:12}&^sq"),
         counter_examples=("API_KEY=$(cat /run/secrets/api_key)", "TOKEN_TTL=3600;", "SECRET_KEY=<your-secret-key>",
                           "PASSWORD_HASHERS=[argon2,bcrypt]")),
    Rule("yaml-next-line", "secret", "a YAML key naming a credential with its value on the next, deeper-indented line (a plain scalar folded under its key: client_secret: / EFX5rMpoya4c...)",
         r"(?m)^([ \t]*)[\"']?([A-Za-z0-9_.\-]+)[\"']?[ \t]*:[ \t]*\r?\n([ \t]+)[\"']?((?:-[^\s\"']|[^\s#\-\"'|>&*!{}\[\]])(?:[^\s\"']*[^\s\"':])?)[\"']?[ \t]*\r?$",
         ("pass", "pwd", "secret", "token", "key", "cred", "auth", "bearer", "jwt", "salt", "cookie"), 4, "yaml-next-line",
         prefilter=True,
         examples=("paypal:\n    client_secret:\n      {b64url:80}\n  max_password_length:\n    128",),
         counter_examples=("db:\n  password:\n    secretKeyRef: db\n", "token_ttl:\n  3600\n", "password:\nnext: value\n")),
    Rule("credential-attribute", "secret", "an XML or HTML element named for a credential by its name, key or id attribute: its value attribute or its text (Android <string name=\"backend_api_secret\">X</string>, <input name=\"api_key\" value=\"X\">, .NET <add key=\"DD_APP_KEY\" value=\"X\"/>)",
         r"(?i)<[a-z][a-z0-9:_\-]*[ \t][^<>\n]*?\b(?:name|key|id)=[\"']([^\"'<>\r\n]{1,80})[\"'][^<>\n]*?(?:\bvalue=[\"']([^\"'\r\n]{3,})[\"'][^<>\n]*>|>([^<\r\n]{3,})</)",
         ("name=", "key=", "id="), (2, 3), "attribute", prefilter=True,
         examples=("<string name=\"backend_api_secret\">{alnum:48}</string>", "<input type=\"hidden\" name=\"api_key\" value=\"int.{alnum:32}\">",
                   "<add key=\"DD_APP_KEY\" value=\"{hex:40}\" />"),
         counter_examples=("<string name=\"app_name\">Shop</string>", "<add key=\"token_bucket_rate\" value=\"250\" />",
                           "<input type=\"password\" name=\"password\" value=\"\">", "<string name=\"api_key_hint\">Paste your key</string>")),
    Rule("yaml-children", "secret", "the values under a YAML parent key naming credentials (api_tokens:, secrets:, passwords:, credentials:), each child named for a vendor or a service (cohere: \"...\", vercel: \"...\"): a random-looking value or a long password; settings (enabled: true, ttl: 3600) stay",
         r"(?im)^([ \t]*)[\"']?[a-z0-9_.\-]*(?:tokens?|secrets?|passwords?|credentials|api[_\-]?keys|apikeys)[\"']?[ \t]*:[ \t]*(?:#[^\n]*)?(\r?\n)",
         ("token", "secret", "password", "credentials", "api_keys", "api-keys", "apikeys"), 2, "yaml-children", prefilter=True,
         examples=("api_tokens:\n  cohere: \"{alnum:40}\"\n  vercel: \"{alnum:24}\"\nadmins:\n", "secrets:\n  stripe: {alnum:32}\n  enabled: true\n"),
         counter_examples=("api_tokens:\n  enabled: true\n  ttl: 3600\n  issuer: https://auth.example.com\n",)),
    Rule("pgpass", "secret", "a line of PostgreSQL's password file (~/.pgpass, PGPASSFILE): host:port:database:user:password, the port a number or *: the password",
         r"(?m)^[ \t]*([A-Za-z0-9*][A-Za-z0-9.\-*]*):([0-9]{1,5}|\*):([^\s:#]+):([^\s:]+):(\S+)[ \t]*\r?$",
         (":5432:", ":5433:", ":6432:", ":*:", "pgpass"), 5, "pgpass",
         examples=("db.internal:5432:shop:shop_app:{alnum:12}", "*:*:*:replicator:Xk9#{alnum:8}"),
         counter_examples=("10:30:15:12:00 started", "db.internal:5432:shop:shop_app:*")),
    Rule("otp-seed", "secret", "a TOTP seed (16 to 64 base32 characters of one case, digits among them) under a name holding seed, totp, otp, mfa or 2fa (MFA_SEED=6TXV4FRY3CYF7HRL, \"totp_secret\": \"...\")",
         r"(?i)(?:^|[^a-z0-9])([a-z0-9_.\-]*(?:seed|totp|otp|mfa|2fa)[a-z0-9_.\-]*)[\"']?[ \t]*[:=][ \t]*[\"']?([a-z2-7]{16,64})=*(?:[^a-z0-9=]|$)",
         ("seed", "totp", "otp", "mfa", "2fa"), 2, "otp-seed",
         examples=("MFA_SEED=6TXV4FRY3CYF7HRL", "\"totp_secret\": \"JBSW4Y3DPEHPK3PXP2QW7RTY\""),
         counter_examples=("RANDOM_SEED=ABCDEFGHIJKLMNOPQRST", "otp_length: 6")),
    Rule("azure-storage-account-key", "secret", "an Azure storage account key alone (88 base64 characters ending in ==, 64 random bytes) where key1, key2, AccountKey, account key or storage is named within 64 characters before it, as az storage account keys list and the portal print it; an integrity hash (sha512-...==) stays",
         r"(?:^|[^A-Za-z0-9+/=:\-])([A-Za-z0-9+/]{86}==)(?:[^A-Za-z0-9+/=]|$)",
         ("key1", "key2", "accountkey", "account key", "account-key", "account_key", "storage"), 1,
         near=("key1", "key2", "accountkey", "account key", "account-key", "account_key", "storage"), prefilter=True,
         examples=("KeyName    Permissions    Value\n---------  -------------  ----------\nkey1       FULL           {b64:86}==",),
         counter_examples=("storage integrity sha512-{b64:86}==",)),
    # --- credentials by context ----------------------------------------------------------------
    Rule("kubernetes-secret-data", "secret", "values under data:/stringData: in a Kubernetes Secret manifest",
         r"(?i)(?:^|\n)[ \t]+[\"']?[a-z0-9_.\-]{1,60}[\"']?:[ \t]*(?:[\"']?([A-Za-z0-9+/]{8,}={0,2})[\"']?[ \t]*(?:\r?\n|$)|[|>][\-+]?[ \t]*\r?\n[ \t]+([A-Za-z0-9+/]{16,}={0,2}))",
         ("secret",), (1, 2), "k8s",
         examples=("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: {b64:24}==\n",)),
    Rule("credential-flag", "secret", "credentials passed as command-line flags: --password X, --token=X, --api-key X, --secret X, --account-key X, --sas-token X, --storepass X, --secret-string X (aws secretsmanager)",
         r"(?i)(?:^|[^a-z0-9_\-])-?(?:-[a-z0-9]+)*-(?:password|passwd|pass|pwd|token|api[-_]?key|apikey|secret|client[-_]secret|access[-_]key|secret[-_]key|auth[-_]token"
         r"|account[-_]key|sas[-_]token|access[-_]token|refresh[-_]token|master[-_]key|storage[-_]key|shared[-_]key|(?:key|store)[-_]?pass(?:word)?"
         r"|secret[-_]string)(?:=|[ \t]+)" + parts.QUOTED_OR_BARE,
         ("-pass", "-pwd", "-token", "-api", "-secret", "-client", "-access", "-auth", "-account", "-sas", "-refresh",
          "-master", "-storage", "-shared", "-key", "-store"), (1, 2, 3, 4), "command",
         examples=("mysql --password=Tr0ub4dor&3 -u root", "app --token sometokenvalue123 --verbose",
                   "rds create --db-password correcthorsebattery"),
         counter_examples=("This method implements the single-token deletion",
                           "aws cognito-idp forgot-password --client-id 3n4b5urk")),
    Rule("credential-assignment", "secret", "values assigned to credential-named keys (password, secret, token, api_key, access_key, private_key, client_secret, credentials, ...) in env files, shell exports, JSON, YAML, TOML, INI, XML, code and Makefiles; placeholders and variable references stay",
         r"(?i)(?:^|[^a-z0-9_])" + "(" + parts.STRONG + ")" + parts.ASSIGN + parts.QUOTED_OR_BARE,
         ("pass", "pwd", "secret", "token", "key", "cred", "bearer", "jwt", "pat", "sig", "_pw", "-pw", ".pw", "pw:", "pw=", "pw =", "pw\t", "pw ", "pw\"", "pw'", "pw`", "pw]", "pw?", "pw+", "pw|", "pw."),
         (2, 3, 4, 5), "assignment",
         field_value=True, examples=("{\"password\": \"correct-horse-battery\"}", "db:\n  password: 'hunter2hunter2'\n",
                   "export DB_PASS=Zq8kL2p{alnum:6}", "PUBLIC_DB_PASSWORD = \"q9Xv2kLmP4wR\"",
                   "    dbPassword: super-secret-password", "smtp_password = {lower:6} {lower:7} {lower:5} {lower:6}"),
         counter_examples=("token = get_token()", "api_key = config.api_key", "password = os.environ['DB_PASSWORD']",
                           "export TOKEN=$GITHUB_TOKEN", "export DB_PASS=$DB_PASS", "SMTP_PASS=${SMTP_PASS}",
                           "    secretKey: api-key", "    secretKey: github_token", "API_TOKEN=abcdefghijklmnop",
                           "pw: true", "db-pwdy.corp.example.org:6379", "TOKEN_TTL_SECONDS=86400", "session_timeout: 30m",
                           "max_password_length: 128", "JWT_ALGORITHM=RS256", "PASSWORD_HASHER=argon2id", "OPENAI_API_KEY=sk-...{alnum:4}",
                           "GITHUB_TOKEN=ghp_****{alnum:4}", "api_key: \"•••••••\"", "GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/google/key.json",
                           "\"ARN\": \"arn:aws:secretsmanager:us-east-1:{digits:12}:secret:prod/db-{alnum:6}\"",
                           "signingkey = {HEX:40}", "RECAPTCHA_SITE_KEY=6L{b64url:38}")),
    Rule("credential-in-prose", "secret", "a password, passphrase, passcode, secret, token or key named in prose (\"the password is X\", \"the password is: X\", \"DB password -> X\", \"with token X\", \"set the password to X\", \"their token (X) expired\", \"the passphrase for the deploy key is X\", \"the password was reset to X\", \"the signing / encryption / master / deploy / licence key is X\", \"the password for the `ci` user is X\": up to four words between the name and is/was/to) when X looks like one: digits, symbols or mixed case, not a plain word",
         r"(?i)\b(?:password|passphrase|passwd|pass phrase|passcode|api[ _-]?key|secret key|access key|secret|token|credentials|creds|"
         # a key named for what it does with secrets: the signing, encryption, master, deploy key
         r"(?:signing|sign|encryption|encrypting|decryption|master|deploy|deployment|private|shared|hmac|jwt|session"
         r"|webhook|wrapping|unlock|recovery|root|admin|licen[cs]e|activation|product|storage|account|service[ -]account)[ _-]key:?)"
         r"(?:\s+(?:is:?|was:?|of|to|=|:|->)|(?:[ \t]+[`'\"]?[a-z][a-z0-9'_\-]{0,14}[`'\"]?){1,4}?(?:[ \t]+(?:is:?|was:?|=|:|to|->)|:))?[ \t]+[\"'`]?([^\s\"'`,;]{6,})",
         ("pass", "key", "token", "secret", "cred"), 1, "prose",
         examples=("then the token x9Y8z7W6v5 expired", "the password is Zq8#kL2p{alnum:4}",
                   "the password for the `ci` user is Xk9mz2Lq{alnum:4}", "The signing key is {alnum:24}, keep it safe.",
                   "our master key was Zq8#kL2p{alnum:6}"),
         counter_examples=("token_url=https://auth.example.com/oauth/token region=eu-west-1",
                           "the token lifetime is 86400s", "the secret name is db-creds-v2",
                           "the signing key is RS256 and the deploy key is in 1Password",
                           "the deploy key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64:43} ci@example",
                           "\"9d2e3c93 feat: token refresh\\nf7419b3c0 fix: config loader\"", "the key ending in ghp_...{alnum:4} was revoked")),
    Rule("credential-use-as", "secret", "a value named as a credential after it: \"use X as the password\", \"with X as the new admin password\", \"set X as the API key\" (up to two words before the name), when X looks like one",
         r"(?i)\b(?:use|using|with|try|set|enter|type)[ \t]+[\"'`]?([^\s\"'`,;]{6,}?)[\"'`]?[ \t]+as[ \t]+(?:(?:the|a|your|my|our|their)[ \t]+)?(?:[a-z]+[ \t]+){0,2}?"
         r"(?:password|passphrase|passcode|passwd|pwd|secret|token|api[ _-]?key)\b",
         ("pass", "pwd", "secret", "token", "api key", "api_key", "api-key", "apikey"), 1, "use-as", prefilter=True,
         examples=("use Xk9#mz2Lq{alnum:4} as the new admin password",),
         counter_examples=("use sha256 as the key derivation function",)),
    Rule("credential-pair", "secret", "a user name and password given together in prose: \"creds are admin:X\", \"login with admin / X\", \"credentials: bob / X\", \"sign in as root:X\", when X looks like a password (a path, a URL or a plain word stays)",
         r"(?i)\b(?:creds?|credentials|log[ \t]?in|sign[ \t]?in|logon)\b(?:[ \t]+(?:are|is|were|was|with|as|using))?[ \t]*[:=]?[ \t]*[\"'`]?"
         r"([A-Za-z0-9_.\-@\\]{1,64})[\"'`]?[ \t]*(?:/|:)[ \t]*[\"'`]?([^\s\"'`,;]{6,})",
         ("cred", "login", "log in", "log\tin", "sign in", "sign\tin", "signin", "logon"), 2, "pair", prefilter=True,
         examples=("creds are admin:Zq8#kL2p{alnum:4}", "login with admin / Xk9#mz2Lq{alnum:4}"),
         counter_examples=("login at 10:30:15.12Z", "login from fe80::1")),
    Rule("credential-xml", "secret", "credential-named XML elements and key/value attributes (<password>X</password>, <add key=\"Password\" value=\"X\"/>)",
         r"(?i)(?:<(" + parts.STRONG + r")>\s*([^<\s][^<\r\n]{2,}?)\s*</|key=\"([^\"]*(?:passw|secret|token|apikey)[^\"]*)\"\s+value=\"([^\"]{3,})\")",
         ("<", "value="), (2, 4), "xml",
         examples=("<add key=\"ClientSecret\" value=\"q9Xv!2kLmP#4\" />", "<ClientSecret>q9Xv!2kLmP#4</ClientSecret>"),
         counter_examples=("<UserSecretsId>79a3edd0-2092-40a2-a04d-dcb46d5ca9ed</UserSecretsId>",
                           "<add key=\"refreshTokenTtl\" value=\"720h\" />",
                           "SLACK_TOKEN=<your-api-key> HOST=db API_KEY_HEADER=X-Api-Key SMTP_PASSWORD=<your-api-key>")),
    Rule("basic-auth-call", "secret", "a password given with its user name in code: auth=(\"user\", \"X\") (requests, httpx), HTTPBasicAuth(\"user\", \"X\"), HTTPDigestAuth, aiohttp.BasicAuth, basic_auth(\"user\", \"X\"), .NET NetworkCredential(\"user\", \"X\"), Java PasswordAuthentication and UsernamePasswordCredentials, smtplib/ftplib/imaplib .login(\"user\", \"X\"), superagent .auth(\"user\", \"X\"), ldap simple_bind_s(\"dn\", \"X\")",
         r"(?i)(?:\bauth[ \t]*=[ \t]*\(|\b(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth|basic_auth|NetworkCredential|PasswordAuthentication"
         r"|UsernamePasswordCredentials|PasswordCredential)[ \t]*\(|\.(?:login|auth|simple_bind_s|bind_s)[ \t]*\()[ \t]*[\"']([^\"'\r\n]*)[\"'][ \t]*,[ \t]*"
         r"(?:\"([^\"\r\n]{3,})\"|'([^'\r\n]{3,})')",
         ("auth", "credential", "login", "bind_s"), (2, 3), "auth-call", prefilter=True,
         examples=("requests.get(url, auth=(\"admin\", \"Zq8kL2p{alnum:6}\"))",
                   "HTTPBasicAuth(\"bot\", \"Xk9#mz2Lq{alnum:4}\")"),
         counter_examples=("client.login('user', 'pass')",)),
    Rule("generic-high-entropy", "secret", "long random-looking values assigned to key-like names (key, id, account, auth, salt, cookie, ...); git SHAs, UUIDs, integrity hashes and image digests stay",
         r"(?i)(?:^|[^a-z0-9_])(" + parts.WEAK + ")" + parts.ASSIGN + parts.QUOTED_OR_BARE,
         ("key", "_id", "id", "sid", "account", "auth", "salt", "hash", "cookie"), (2, 3, 4, 5), "entropy",
         field_value=True, examples=("signingkey = \"aB3dE5fG7hJ9kL1mNq\"", "session_cookie={alnum:32}"),
         counter_examples=("keying = \"aB3dE5fG7hJ9kL1mNq\"", "csrf_token = \"Mj2qykJO5rELyHgezQ69nzUX0i3OH67V\"",
                           "commit 9a038989604e8da62ecddbe2094b16ce1b778be1 fixed it",
                           "request id 832d2129-a846-4e27-99f4-7004b6ad53ef failed",
                           "image ghcr.io/org/app@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
                           "# public key: age1{lowernum:58}", "x-amz-id-2: {b64:76}")),
)
