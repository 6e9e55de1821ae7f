"""For users (docs/privacy.md): what a matching rule still leaves alone, and why.

Each item is what one or more value checks (this package) and heuristics (privacy/heuristics.py)
turn down; change them together.
"""

LEFT_ALONE = """\
- **placeholders**, whatever rule matched: `xxxxxxxx`, `********`, `########`, 16 equal
  lower-case letters or digits, `EXAMPLE`, `<your token>` (a value that opens with `<` or holds
  a closed `<...>`: a password holding a `<` alone is a password), `${TOKEN}`, `$VAR`, a label
  (`Password:`: a name and a colon; a value ending in a colon with digits or symbols is a value),
  and a token whose tail is masked (`xoxp-1234-...-#####`) or already redacted
  (`ops_eyJzaWdu..[Redacted]`);
- **vendor tokens that do not vary**: the random part of a prefixed token must not be a counting
  run (`1234567890`, `abcdefghij`) or a few characters repeated (`sntryu_aaaa...`); tokens with a
  published exact shape (Anthropic, Sentry, Sourcegraph, Google, Azure AD, Telegram) must have it,
  including where they end: a near miss is a fixture or a broken key, not a working credential;
- **values next to credential names** that are not secrets: variable references (`$X`,
  `process.env.X`, `secrets.X`, `op://...`, `%(password)s`, `%APPDATA%`, `@Value(...)`,
  `@secrets/db.txt`, `...`; a value that starts with `%`, `@`, `=` or `...` and goes on like a
  password, `%Tq9zW2xk`, is one), a value under `pass` or `pw` alone that does not look like a
  password (`pass: 3/3`, `pw: true`), what prose says about a secret rather than the secret
  (`the token lifetime is 86400s`, `the secret name is db-creds-v2`: name, ARN, lifetime, header,
  hash, ... between the word and the value), a code object's field in prose (`the key is
  settings.OPENAI_KEY`; any other dotted value after is/was/to is a password), stop words (`true`, `none`, `changeme`, ...), code
  (`self.api_key`, a quoted `x = y`, though not after a password flag or in an upper-case shell
  assignment, where `-p'd0~ = c*7w'` is a password; but a dotted value with digits inside its words, like a
  kubeadm token or `Qb9sM6.ET3`, or a part in mixed case with digits and almost no vowels, like
  `ko.bkSjv23`, or cased at random, like `eC900.JLgIZoWPW` and `fIpR82.ByXg0`, is a value, and so is any dotted value where nothing refers to a
  variable: after a password flag, `-p ti.KsPc75_Y` or `--password x.Y1`, in `user:password`,
  assigned to an upper-case name in a shell, `.env` or YAML env line, `DB_PASS=x.Y1`, or in a
  connection string, `Password=x.Y1;` or `password=x.Y1 dbname=app`, or as a label's value
  alone on its line, `Password: x.Y1`, or with digits and both cases alone on its line among YAML
  lines, `user: etl` / `pass: nxZly5.wC5`, or after "use" and before "as the password"), a host name (ending in a top-level domain, a
  country code or an internal suffix: `db-1.internal`, `cache.svc.cluster.local`; not one random
  label under a country code, `4ui2wqp.ls`), a version (`1.2-3+deb12u1`, `2.1.0+cu118`; not one with
  random letters after its `+`, `1.06+wbxali`) and the rest of a compound word (`Passwort-Manager`)
  after a credential word in another language, a host
  and its port (`db-pwdy.corp.example.org:6379`: "pwd" in a host name names no credential), the name of a secret in a store (`secretKey: api-key`), the next key of a JSON
  object (`"kind": "Secret", "data": {`), a flag with no value (`mysql -p dbname` prompts;
  `-passin env:VAR` names a variable; a Windows flag after `net use` or `net user`,
  `/persistent:no`, `/add`, and `*`, which prompts), a crypted hash (`rootpw --iscrypted $6$...`),
  a value in a `.login(...)` call that does not look like a password (`client.login('user', 'pass')`),
  what a value is used as when the credential's name is followed by another noun (`use sha256 as
  the key derivation function`), an aside in brackets after `token` (`(whitespace_split=True)`),
  a URL, a path, an address, a host and port or a time after `login`, `sign in` or `creds`
  (`login from fe80::1`, `login at 10:30:15`), and counting runs;
- **names that hold something else**: ids, URLs, paths, sizes, hashes (`client_id`,
  `token_url`, `UserSecretsId`, `keyPath`), public keys and tokens (`public_key`,
  `publishableKey`; a "public" password or secret is still redacted),
  anti-forgery tokens (`csrf`, `xsrf`, `authenticity_token`), `key` inside another word
  (`monkeys`, `keying`), and public or ciphertext fields (`signature`, `iv`, `tag`, `mac`,
  `nonce`, `encrypted_data`, `certificate-authority-data`: a name ending in `data` is skipped only
  when no credential word is in it, so `client-key-data` and `secret_data` are still checked);
- **random-looking values that are not secrets** (entropy rules only): git SHAs, UUIDs, package
  integrity hashes, image digests, W3C `traceparent` values, version strings, paths and URLs,
  dotted host names, and unquoted values assigned with `=` to a camelCase name (code, where a
  secret would be a string literal; YAML's `name: value` is still checked);
- **values that look random and are public** (privacy/public.py), next to any credential name,
  word or table cell: masked values (`sk-...abcd`, `ghp_****ab12`, `sk_live_…4242`, `****`,
  `•••`, `xxxxxx`, `[REDACTED]`, `<redacted>`; a value showing more than a vendor prefix and six
  characters, `Tr0ub4dor***`, is a password), durations (`300s`, `720h`, `59m48s`), file paths
  (`/var/secrets/google/key.json`, `~/.ssh/id_ed25519`; not one whose parts mix capitals, small
  letters and digits), ARNs (and a key name inside one: `arn:aws:...:secret:prod/db`), SSH
  fingerprints (`SHA256:...`, `MD5:xx:...`), age recipients (`age1...`), Stripe publishable keys
  (`pk_live_`, `pk_test_`), Supabase anon keys (a JWT from Supabase with the role `anon`; its
  `service_role` key is redacted), a GPG key id or fingerprint under `signingkey`, `keyid` or
  `fingerprint`, and credentials vendors print in their documentation (jwt.io's token, Stripe's
  and GitHub's documented keys); names that say what a value measures or picks
  (`TOKEN_TTL_SECONDS`, `API_KEY_MAX_AGE_DAYS`, `PASSWORD_MIN_LENGTH`, `refreshTokenTtl`,
  `JWT_ALGORITHM`, `PASSWORD_HASHER`, `SECRET_BACKEND`, `TOKEN_ENDPOINT`, `SECRET_ARN`), a digest
  algorithm's name (`SHA256:`, `sha-256=`, `Content-MD5`), request and trace ids (`x-request-id`,
  `x-amz-id-2`, `trace_id`, `span_id`, `cf-ray`, and a `value` whose pair's `name` is one of
  them), `public key:` and site keys (`RECAPTCHA_SITE_KEY`, `data-sitekey`); a placeholder in
  angle brackets never takes the text after it (`<password>` must be closed by `</password>`);
- **public base64**: base64 of a PEM certificate or public key (`LS0tLS1CRUdJTiBDRVJU...`) is kept
  wherever it appears, except as data of a Kubernetes `kind: Secret`;
- **URLs and remotes**: in `scheme://user:password@host/path` only the password goes; the scheme,
  the user name (an account like `postgres` or `app`; it tells which credential leaked), the host
  and the path stay; a user name with no password goes only when it is a random-looking token
  (`https://TOKEN@github.com/org/repo.git`, as git accepts), and an account name stays
  (`https://deploy-bot@...`). `git@github.com:org/repo.git` and `ssh deploy@host` are remotes, not e-mail
  addresses;
- **numbers that are not personal data**: version tuples (`AssemblyVersion("2.1.0.3")`,
  `version 1.2.3.4`, `requests==2.31.0.1`) and network blocks (`10.0.0.0/8`, `81.2.0.0/16`:
  host bits all zero) are not IP addresses, and private and reserved addresses (RFC 1918,
  loopback, link-local, CGNAT `100.64.0.0/10`, the documentation and benchmark ranges, multicast,
  IPv6 unique-local `fc00::/7`, `fe80::/10`, `2001:db8::/32`) are no one's on the internet; a run of
  hex pairs longer than an IPv6 address (`MD5:a5:4d:...`) is a fingerprint; the user name of a
  system, image or CI account in a home path (`/home/ubuntu`, `/home/runner`; `root`,
  `admin`, `ec2-user`, `ci`, `dev`, `app`, `node`, `vagrant`, `www-data`, ...) names no one; a
  message id (`Message-ID: <uuid@host>`) or an address whose local part is a UUID or a long hex run
  is not an e-mail address; dates, times, versions and addresses are not phone
  numbers; a card number must pass the Luhn check and fit a card network's prefix and length; an
  IBAN must fit its country's length and pass its mod-97 check; a US SSN needs `SSN` or
  `social security` just before it and a possible area (not 000, 666 or 9xx);
- **line breaks**: `Bearer` and `Authorization:` never take the next line as their token (a bare
  `Authorization: Bearer` with nothing after it on the line is left as it is).
"""
