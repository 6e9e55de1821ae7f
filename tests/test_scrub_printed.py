"""printed-secret (rules/printed.py, checks/printed.py) on transcripts drawn at random: commands
that print a credential from the table, after a shell prompt of several shapes, in
Claude-Code-like and Codex-like transcripts and in JSON tool call/result pairs, with random
secrets, errors, and commands that print something else. A printed secret goes whole; an
error, what a non-credential name prints, and what follows the output stay."""

from __future__ import annotations

import json
import random
import string

import pytest

from jevlin_hooks.privacy import scrub
from jevlin_hooks.privacy.engine import Scrubber
from jevlin_hooks.privacy.rules import BY_NAME
from jevlin_hooks.privacy.rules.printed import COMMANDS

SCRUBBERS = {"hyperscan": scrub.default(), "automaton": Scrubber(prefilter=False)}
ALNUM = string.ascii_letters + string.digits

SECRET_NAMES = ["DB_PASSWORD", "password", "api_key", "GITHUB_TOKEN", "client_secret", "SECRET_KEY", "auth_token",
                "STRIPE_SECRET_KEY", "db_pass", "admin-password", "REDIS_PASSWORD", "signing_key"]
OTHER_NAMES = ["username", "HOME", "region", "db_host", "LOG_LEVEL", "port", "user", "NODE_ENV"]

# command templates: {n} is the name of what is printed; None: the command prints a secret whatever it names
NAMED = ["vault kv get -field={n} secret/prod/app", "vault read -field={n} database/creds/ro", "printenv {n}", "echo ${n}",
         'echo "${{{n}}}"', "heroku config:get {n} -a web", "op read op://Prod/app/{n}", "doppler secrets get {n} --plain",
         "kubectl get secret app -o jsonpath='{{.data.{n}}}' | base64 -d", "terraform output -raw {n}",
         "docker exec web printenv {n}", "jq -r .{n} creds.json", "cat /run/secrets/{n}", "aws configure get {n}"]
UNNAMED = ["gcloud auth print-access-token", "gh auth token", "aws ecr get-login-password --region eu-west-1",
           "pass show infra/router", "security find-generic-password -s github -a ci -w",
           "aws secretsmanager get-secret-value --secret-id prod/app --query SecretString --output text",
           "gcloud secrets versions access latest --secret=db", "az keyvault secret show --vault-name kv --name db --query value -o tsv",
           "openssl rand -hex 32"]
PROMPTS = ["$ ", "% ", "# ", "❯ ", "dev@bastion:~/src/app$ ", "[root@devbox ~]# ", "mbp-mk% ", "PS C:\\src> ", ""]
ERRORS = ["Error: secret not found", "No value found at secret/data/prod/app", "error: the server doesn't have a resource type",
          "An error occurred (AccessDeniedException) when calling the GetSecretValue operation: denied",
          "bash: printenv: command not found"]


def secret(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return "".join(rng.choice(ALNUM) for _ in range(rng.randint(12, 64))) + rng.choice(string.digits)
    if kind == 1:
        return "".join(rng.choice(ALNUM + "!#%*+-_.@^") for _ in range(rng.randint(10, 24))) + "#" + rng.choice(string.digits)
    if kind == 2:
        return "-".join("".join(rng.choice("bcdfgklmnprstv") + rng.choice("aeiou") for _ in range(3)) for _ in range(3)) \
            + "-" + str(rng.randint(10, 99))
    return "".join(rng.choice("0123456789abcdef") for _ in range(64))


def transcript(rng: random.Random, command: str, output: str) -> str:
    """The command and its output, in one of the shapes agents and terminals show them."""
    style = rng.randrange(5)
    if style == 0:
        p = rng.choice(PROMPTS)
        return f"{p}{command}\n{output}\n{p}echo done\ndone\n"
    if style == 1:
        return f"⏺ Bash({command})\n  ⎿  {output}\n\n⏺ Found it: the value comes from the store.\n"
    if style == 2:
        return f"exec\nbash -lc {json.dumps(command)} in /home/dev/src/app\n succeeded in {rng.randint(5, 900)}ms:\n{output}\n\ncodex\nDone.\n"
    if style == 3:
        return f"• Ran {command}\n  └ {output}\n\n• Found it.\n"
    call = {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                                           "input": {"command": command, "description": "inspect"}}]}}
    result = {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                        "content": [{"type": "text", "text": output + "\n"}]}]}}
    return json.dumps(call) + "\n" + json.dumps(result) + "\n"


def _left(value: str, clean: str) -> str | None:
    for i in range(max(1, len(value) - 7)):
        if value[i:i + 8] in clean:
            return value[i:i + 8]
    return None


@pytest.mark.parametrize("name", sorted(SCRUBBERS))
def test_random_transcripts_lose_what_a_credential_command_printed(name: str) -> None:
    s = SCRUBBERS[name]
    s.wait_prefilter()
    rng = random.Random(f"printed {name}")
    for _ in range(300):
        if rng.random() < 0.6:
            template = rng.choice(NAMED)
            names = [n for n in SECRET_NAMES if n.isidentifier()] if "echo" in template or "printenv" in template else SECRET_NAMES
            command = template.format(n=rng.choice(names))
        else:
            command = rng.choice(UNNAMED)
        value = secret(rng)
        clean, _ = s.scrub(transcript(rng, command, value))
        assert _left(value, clean) is None, (command, value, clean)
        assert "done" in clean.lower() or "Found it" in clean or "Done." in clean or "toolu_1" in clean


@pytest.mark.parametrize("name", sorted(SCRUBBERS))
def test_errors_other_names_and_prose_stay(name: str) -> None:
    s = SCRUBBERS[name]
    s.wait_prefilter()
    rng = random.Random(f"printed kept {name}")
    for _ in range(200):
        r = rng.random()
        if r < 0.4:  # an error where the secret would be
            command, output = rng.choice(NAMED).format(n=rng.choice(SECRET_NAMES)), rng.choice(ERRORS)
        elif r < 0.8:  # the same commands printing what a non-credential name holds
            command = rng.choice(NAMED).format(n=rng.choice(OTHER_NAMES))
            output = rng.choice(["eu-west-1", "admin", "8080", "production", "db.internal", "info", "ci-bot"])
        else:  # a command in a sentence: no output is read after prose
            command = rng.choice(NAMED).format(n=rng.choice(SECRET_NAMES))
            text = f"I ran `{command}` and then\nchecked the pool settings again\n"
            assert s.scrub(text)[0] == text or "printed-secret" not in s.scrub(text)[0], text
            continue
        text = transcript(rng, command, output)
        assert "printed-secret" not in {f.rule for f in s.find(text)}, text


def test_a_value_printed_without_a_newline_keeps_the_prompt_glued_to_it() -> None:
    rng = random.Random(7)
    v = "qF" + "".join(rng.choice(ALNUM) for _ in range(20))
    text = f"bastion% kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{v}bastion%"
    assert scrub.scrub(text)[0].endswith("\n[REDACTED:printed-secret]bastion%")
    text = f"$ kubectl get secret db -o jsonpath='{{.data.password}}'\n{v}$ kubectl get pods\nNAME READY\n"
    assert v not in scrub.scrub(text)[0] and "$ kubectl get pods" in scrub.scrub(text)[0]


def test_the_commands_are_a_table_with_one_row_each_and_the_rule_turns_off() -> None:
    assert len(COMMANDS) >= 20 and all(c.what and c.keywords for c in COMMANDS)
    rule = BY_NAME["printed-secret"]
    text = "$ vault kv get -field=password secret/db\nZq8kL2pVw9xXk9mz\n"
    assert "printed-secret" in {f.rule for f in scrub.find(text)}
    assert scrub.scrub(text, (rule.name,))[0] == text


def test_a_repl_shows_what_an_environment_lookup_printed_and_code_alone_prints_nothing() -> None:
    rng = random.Random("printed repl")
    for _ in range(150):
        name, value = rng.choice([n for n in SECRET_NAMES if n.isidentifier()]), secret(rng)
        style = rng.randrange(4)
        if style == 0:
            text = f">>> import os\n>>> os.environ{rng.choice(['[', '.get('])}'{name}'{']' if rng.random() < 0.5 else ')'}\n'{value}'\n>>> "
        elif style == 1:
            text = f"In [{rng.randint(1, 40)}]: os.getenv(\"{name}\")\nOut[{rng.randint(1, 40)}]: '{value}'\n"
        elif style == 2:
            text = f"> process.env.{name}\n'{value}'\n> .exit\n"
        else:
            text = f"irb(main):00{rng.randint(1, 9)}:0> ENV['{name}']\n=> \"{value}\"\n"
        clean = scrub.scrub(text)[0]
        assert _left(value, clean) is None, (text, clean)
        code = f"    {name.lower()} = os.environ[\"{name}\"]\n    client = connect({name.lower()})\n"
        assert "printed-secret" not in {f.rule for f in scrub.find(code)}, code
