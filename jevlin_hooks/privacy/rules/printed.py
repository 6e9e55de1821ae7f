"""Commands that print a credential, and the rule that redacts what they printed.

A secret manager's ``get`` with a field, a cloud CLI printing an access token, a ``| base64 -d``
of a Kubernetes Secret, a keychain lookup: when a text shows such a command and then its output,
the output is the secret, whatever it looks like (``hunter2`` after ``vault kv get
-field=password`` has no shape of its own). Each command is a row: what it is (for the docs), its
pattern (RE2 and Python alike, no capture group: the rule's pattern is their alternation) and,
where the command names what it prints (``-field=password``, ``printenv DB_TOKEN``,
``{.data.password}``), a Python pattern whose group 1 is that name: the output is redacted only
when the name says credential (checks/judges.credential_key, the key-name judgement of
``KEY=value``). checks/printed.py finds the output (after a shell prompt, in a Claude-Code-like
``⎿`` block, a Codex-like ``exec`` block, or the next JSON tool result) and judges it.
"""

from __future__ import annotations

from dataclasses import dataclass

from jevlin_hooks.privacy.rules.rule import Rule

_ARGS = r"[^\n|;&]*?"  # the rest of a command's arguments, on its line, before a pipe or the next command
# (the commands are written with [^\s], never \S: Hyperscan's prefilter refuses \S, and a pattern
# it refuses runs in RE2 over every text holding one of the rule's keywords)


@dataclass(frozen=True)
class PrintingCommand:
    what: str
    command: str
    keywords: tuple[str, ...]
    name: str = ""  # group 1: the name of what is printed, judged; "" = a secret whatever it is called
    # what must stand before the command on its line for the rule to look further (the rule's
    # pattern only: a REPL's prompt, where code is full of os.environ[...] that prints nothing)
    before: str = ""


_ENV_NAME = r"\$\{?(?:env:)?([A-Za-z_][A-Za-z0-9_]*)|%([A-Za-z_][A-Za-z0-9_]*)%"
_EXEC = r"(?:(?:kubectl|docker|podman|oc)[ \t]+exec\b" + _ARGS + r"[ \t](?:--[ \t]+)?)?"

COMMANDS: tuple[PrintingCommand, ...] = (
    PrintingCommand("`vault kv get`, `vault read`, `vault write`, `vault token create` with `-field=NAME`",
                    r"vault[ \t]" + _ARGS + r"[ \t]-field[= ]", ("vault",), r"-field[= ][\"']?([\w.\-]+)"),
    PrintingCommand("`aws secretsmanager get-secret-value --query SecretString`",
                    r"aws[ \t]+secretsmanager[ \t]+get-secret-value\b" + _ARGS + r"--query[= ][\"']?SecretString",
                    ("secretsmanager",)),
    PrintingCommand("`aws ssm get-parameter --with-decryption --query ...`",
                    r"aws[ \t]+ssm[ \t]+get-parameters?\b" + _ARGS + r"(?:--with-decryption" + _ARGS + r"--query|--query"
                    + _ARGS + r"--with-decryption)", ("get-parameter",)),
    PrintingCommand("`aws ecr get-login-password`, `aws codeartifact get-authorization-token --query ...`",
                    r"aws[ \t]+(?:ecr|ecr-public)[ \t]+get-login-password\b|aws[ \t]+codeartifact[ \t]+get-authorization-token\b"
                    + _ARGS + r"--query", ("get-login-password", "get-authorization-token")),
    PrintingCommand("`aws configure get NAME`", r"aws[ \t]+configure[ \t]+get[ \t]+", ("configure",),
                    r"get[ \t]+(?:--\S+[ \t]+\S+[ \t]+)*([\w.\-]+)"),
    PrintingCommand("`gcloud secrets versions access`", r"gcloud[ \t]+(?:beta[ \t]+)?secrets[ \t]+versions[ \t]+access\b",
                    ("gcloud",)),
    PrintingCommand("`gcloud auth print-access-token`, `print-identity-token`, `application-default print-access-token`",
                    r"gcloud[ \t]+auth[ \t]+(?:application-default[ \t]+)?print-(?:access|identity)-token\b", ("gcloud",)),
    PrintingCommand("`gcloud ... --format='value(NAME)'`", r"gcloud[ \t]" + _ARGS + r"--format[= ][\"']?value\(", ("gcloud",),
                    r"value\(([\w.\-]+)"),
    PrintingCommand("`az keyvault secret show --query value`",
                    r"az[ \t]+keyvault[ \t]+secret[ \t]+show\b" + _ARGS + r"--query[= ][\"']?value\b", ("keyvault",)),
    PrintingCommand("`az ... --query NAME`, `aws ... --query NAME` (`az account get-access-token --query accessToken`, "
                    "`aws sts ... --query Credentials.SecretAccessKey`)", r"(?:az|aws)[ \t]" + _ARGS + r"--query[= ]", ("--query",),
                    r"--query[= ][\"']?(?:[\w\[\]*.]*\.)?([A-Za-z][\w]*)[\"'\]]*(?:[ \t]|$)"),
    PrintingCommand("`gh auth token`, `heroku auth:token`, `fly auth token`, `doctl auth token`",
                    r"(?:gh|glab|fly|flyctl|heroku|doctl|railway)[ \t]+auth[ \t:]+token\b", ("auth token", "auth:token")),
    PrintingCommand("`heroku config:get NAME`, `dokku config:get`, `netlify env:get NAME`",
                    r"(?:heroku|dokku|netlify)[ \t]+(?:config|env):get[ \t]+", (":get",),
                    r":get[ \t]+(?:-\S+[ \t]+)*([\w.\-]+)"),
    PrintingCommand("`op read op://vault/item/FIELD`", r"op[ \t]+read[ \t]+", ("op read",), r"op://[^\s'\"]*/([\w.\-]+)"),
    PrintingCommand("`op item get ... --fields NAME`", r"op[ \t]+item[ \t]+get\b" + _ARGS + r"--fields?[= ]", ("op item",),
                    r"--fields?[= ][\"']?(?:label=)?([\w.\-]+)"),
    PrintingCommand("`pass show`, `gopass show`", r"(?:gopass|pass)[ \t]+show\b", ("pass show",)),
    PrintingCommand("PowerShell `Get-Secret -AsPlainText` (SecretManagement), whatever it is piped to",
                    r"(?i:get-secret)\b" + _ARGS + r"[ \t]-(?i:asplaintext)\b", ("get-secret",)),
    PrintingCommand("`security find-generic-password -w`, `find-internet-password -w` (macOS keychain)",
                    r"security[ \t]+find-(?:generic|internet)-password\b" + _ARGS + r"[ \t]-[A-Za-z]*w", ("-password",)),
    PrintingCommand("`secret-tool lookup`, `keyring get`, `bw get password`, `lpass show --password`",
                    r"secret-tool[ \t]+lookup\b|keyring[ \t]+get\b|bw[ \t]+get[ \t]+(?:password|totp|notes)\b|lpass[ \t]+show\b"
                    + _ARGS + r"--password", ("secret-tool", "keyring", "bw get", "lpass")),
    PrintingCommand("`kubectl get secret ... -o jsonpath='{.data.NAME}'` (and `| base64 -d`)",
                    r"(?:kubectl|oc)[ \t]+get[ \t]+secrets?\b" + _ARGS + r"(?:jsonpath|go-template|template)", ("kubectl", "oc get"),
                    r"(?:data\.|index[ \t]+\.data[ \t]+\")([\w.\-\\]+)"),
    PrintingCommand("anything decoded by `| base64 -d` whose command names a credential (`echo $TOKEN | base64 --decode`, "
                    "`jq -r .data.password | base64 -d`)", r"[^\n|;&]" + _ARGS + r"\|[^\n]*?\bbase64[ \t]+(?:-d|--decode|-D)\b",
                    ("base64",), r"(?:\.|\$\{?)([\w\-]+)[\"'}\]]*[ \t]*\|[^\n]*?\bbase64\b"),
    PrintingCommand("`doppler secrets get NAME --plain`, `infisical secrets get NAME --plain`",
                    r"(?:doppler|infisical)[ \t]+secrets[ \t]+get\b" + _ARGS + r"--(?:plain|raw)\b", ("doppler", "infisical"),
                    r"get[ \t]+(?:-\S+[ \t]+)*([\w.\-]+)"),
    PrintingCommand("`printenv NAME`, `echo $NAME`, `printf '%s' \"$NAME\"`, PowerShell `$env:NAME`, cmd `echo %NAME%` "
                    "(also after `kubectl exec ... --`, `docker exec`)",
                    _EXEC + r"(?:printenv[ \t]+|(?:echo|printf|Write-Output)[ \t]+(?:-[^\s]+[ \t]+)?(?:'[^'\n]*'[ \t]+)?\\?[\"']?[$%]|\$env:)",
                    ("printenv", "echo", "printf", "$env:", "write-output"), r"printenv[ \t]+([\w]+)|" + _ENV_NAME),
    PrintingCommand("`os.environ['NAME']`, `os.getenv('NAME')`, `process.env.NAME`, `ENV['NAME']` in a REPL",
                    r"(?:print\(|console\.log\(|puts[ \t]+|p[ \t]+)?(?:os\.environ(?:\.get\(|\[)|os\.getenv\(|process\.env\.|ENV(?:\.fetch\(|\[))",
                    ("environ", "getenv", "process.env", "env["), r"[\"']([\w]+)[\"']|process\.env\.([\w]+)",
                    r"(?:>>>|>|In \[\d+\]:|irb\([^)\n]*\)[:\d]*>|pry\([^)\n]*\)>)[ \t]*"),
    PrintingCommand("`terraform output -raw NAME`, `pulumi config get NAME`, `pulumi stack output NAME --show-secrets`",
                    r"terraform[ \t]+output\b" + _ARGS + r"[ \t]-(?:raw|json)\b|pulumi[ \t]+(?:config[ \t]+get|stack[ \t]+output)\b",
                    ("terraform", "pulumi"), r"(?:-raw|-json|get|output)[ \t]+(?:-\S+[ \t]+)*([\w.\-:]+)"),
    PrintingCommand("`jq -r .NAME`, `yq .NAME` (the field a file's credential is read from)",
                    r"(?:[^\n|;&]" + _ARGS + r"\|[ \t]*)?[jy]q[ \t]+(?:-[^\s]+[ \t]+)*[\"']?\.", ("jq ", "yq "),
                    r"\b[jy]q[ \t]+(?:-\S+[ \t]+)*[\"']?[^\s'\"]*?\.([\w\-]+)[\"']?(?:[ \t]|$)"),
    PrintingCommand("`cat`, `type`, `Get-Content`, `head` of a file named like a credential (`cat /run/secrets/db_password`)",
                    r"(?:cat|type|Get-Content|gc|head|more|bat)[ \t]+(?:-[^\s]+[ \t]+)*[\"']?[^\s'\"|;&<>]*"
                    # (the file's name holds a credential's stem, or "more than" in prose would run the check)
                    r"(?i:pass|pwd|secret|token|key|cred|auth)",
                    ("cat ", "type ", "get-content", "gc ", "head ", "more ", "bat "),
                    r"[ \t][\"']?(?:[^\s'\"|;&<>]*[/\\])?\.?([\w\-]+?)(?:\.(?:txt|key|pem|secret|token|json|b64))?[\"']?[ \t]*$"),
    PrintingCommand("`openssl rand -hex|-base64`, `pwgen`, `python -c '...secrets.token_...'`, `head -c N /dev/urandom | base64`"
                    " (a fresh key)", r"openssl[ \t]+rand\b|pwgen\b|python3?[ \t]+-c[ \t]+[\"'][^\n]*secrets\.token_"
                    r"|head[ \t]+-c[ \t]*\d+[ \t]+/dev/u?random[^\n]*\|[ \t]*(?:base64|xxd|od)\b",
                    ("openssl", "pwgen", "secrets.token_", "/dev/urandom")),
    PrintingCommand("`kubectl create token`, `kubeadm token create`",
                    r"kubectl[ \t]+create[ \t]+token\b|kubeadm[ \t]+token[ \t]+create\b", ("create token", "token create")),
)

RULES: tuple[Rule, ...] = (
    Rule("printed-secret", "secret", "what a command that prints a credential printed: a secret manager's get with a field, a "
         "cloud CLI's access token, a Kubernetes Secret's decoded data, a keychain lookup, `printenv` of a credential's "
         "name, ... (the commands: see \"Values printed alone\"), after a shell prompt, in a Claude-Code-like or "
         "Codex-like transcript, or in the next JSON tool result; an error message, an empty or masked value, and a "
         "name that is no credential's (`-field=username`, `printenv HOME`) stay",
         r"(?:^|[^A-Za-z0-9_.\-/])((?:" + "|".join(c.before + c.command for c in COMMANDS) + r")[^\n]*)",
         tuple(dict.fromkeys(k for c in COMMANDS for k in c.keywords)), 1, "printed", prefilter=True,
         examples=("$ vault kv get -field=password secret/prod/db\nZq8kL2p{alnum:10}\n$ ",
                   "⏺ Bash(gcloud auth print-access-token)\n  ⎿  ya29.{b64url:60}\n",
                   "dev@bastion:~$ pass show infra/router\nMaple{alnum:6}!\nlogin: ops\n",
                   "PS C:\\src> az keyvault secret show --vault-name kv-prod --name db --query value -o tsv\n{alnum:24}",
                   "exec\nbash -lc 'printenv DB_PASSWORD' in /app\n succeeded in 12ms:\ncorrect-{lower:6}-{lower:5}-42\n"),
         counter_examples=("$ vault kv get -field=username secret/prod/db\nadmin-{lower:8}\n",
                           "$ printenv HOME\n/home/{lower:6}\n",
                           "$ aws secretsmanager get-secret-value --secret-id x --query SecretString --output text\n"
                           "An error occurred (ResourceNotFoundException) when calling the GetSecretValue operation: not found\n")),
)
