"""Issue 10, cases 1 and 2: a config that cannot be used, or a home that is not the user's,
means tracing is off and the queue is held, with one line saying why in status, doctor and
the hook log. Driven through real hook processes, the CLI and the daemon."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import PROBE_CONFIG, hook_errors, queued, run

from jevlin_hooks import replay
from jevlin_hooks.base import config, spool

CLI = [sys.executable, "-m", "jevlin_hooks.cli"]


def cli(home: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env={**os.environ, "JEVLIN_HOME": home, **(env or {})},
                          capture_output=True, text=True, timeout=60)


def basic_session(home: str, env: dict[str, str] | None = None) -> None:
    """Claude Code's basic scenario (one search), every event as a real hook process."""
    for _, payload in replay.scenario_events("basic"):
        run(home, payload, env=env)


def write_config(home: str, text: str) -> str:
    path = os.path.join(home, "config.toml")
    with open(path, "w") as f:
        f.write(text)
    return path


def test_probe_config_records_the_search(home):
    """The control: with a good config the same session queues its search."""
    write_config(home, PROBE_CONFIG)
    basic_session(home)
    assert len(queued(home, "search")) == 1


BAD = [
    ('trace = "of"\n', 'trace = "of": must be "on" or "off"'),
    ('trce = "off"\n', "unknown key 'trce'"),
    ("[privacy]\ndisabled_rules = 1\n", "privacy.disabled_rules = 1: must be a list of strings"),
    ('[ship]\nsink = "platform"\n', 'ship.sink = "platform": must be "local" or "jevlin" or "otlp"'),
    ("batch_size = true\n", "daemon.batch_size = True: must be an integer"),  # lands in [daemon]
    ('trace = "off\n', "not valid TOML"),
    ("[ship]\napi_key = 4711081512\n", "ship.api_key = (value not shown): must be a string"),
]


@pytest.mark.parametrize("text,what", BAD)
def test_unusable_config_means_trace_off_and_one_line_everywhere(home, text, what):
    # top-level keys before the first table; tables and [daemon] keys after PROBE_CONFIG's [daemon]
    path = write_config(home, text + PROBE_CONFIG if text.startswith("tr") else PROBE_CONFIG + text)
    basic_session(home)
    assert queued(home) == []  # today: defaults, trace on, the search is queued
    log = hook_errors(home)
    lines = [ln for ln in log.splitlines() if "config unusable" in ln]
    assert len(lines) == 1, log  # nine events, one line
    reason = lines[0].split("Z ", 1)[1]
    assert reason.startswith(f"config unusable: {path}: ") and what in reason
    assert "tracing is off" in reason and "4711081512" not in log + reason  # a credential is never quoted
    status = cli(home, "status").stdout
    assert f"config    {reason}" in status.splitlines()
    assert "trace     off" in status and "sink: local" not in status
    doctor = cli(home, "doctor").stdout
    assert f"!!  config: {reason} (every key: `jevlin-hooks config example`; in effect: `jevlin-hooks config show`)" in doctor.splitlines()
    ctx = json.loads(cli(home, "context").stdout)  # may travel with the search: no local path in it
    assert ctx == {"trace": "off", "error": "settings unusable, so tracing is off; `jevlin-hooks status` says why"}


def test_invalid_trace_in_the_environment_is_an_error_not_on(home):
    write_config(home, PROBE_CONFIG)
    basic_session(home, env={"JEVLIN_TRACE": "of"})
    assert queued(home) == []
    assert hook_errors(home).count("JEVLIN_TRACE='of' in the environment") == 1  # nine events, one line
    assert "JEVLIN_TRACE='of' in the environment" in cli(home, "status", env={"JEVLIN_TRACE": "of"}).stdout


def test_daemon_holds_the_queue_while_the_config_is_unusable(home):
    write_config(home, PROBE_CONFIG)
    basic_session(home)
    n = spool.count(home, "new")
    assert n == 2  # the search and its turn end
    path = write_config(home, 'trace = "of"\n' + PROBE_CONFIG)
    p = cli(home, "daemon", "run", "--once")
    assert p.returncode == 0, p.stderr
    assert spool.count(home, "new") == 0 and spool.count(home, "held") == n
    assert not os.path.exists(os.path.join(home, "traces.db"))  # nothing delivered to the local sink
    with open(os.path.join(home, "logs", "daemon.log")) as f:
        assert f'config unusable: {path}: trace = "of": must be' in f.read()
    status = cli(home, "status").stdout
    assert f"{n} held" in status and "config    config unusable" in status
    # fixed: released by hand (the reason is in the status line), then delivered
    write_config(home, PROBE_CONFIG)
    assert cli(home, "spool", "release-held").returncode == 0
    assert cli(home, "daemon", "run", "--once").returncode == 0
    assert spool.count(home, "new") == spool.count(home, "held") == 0
    assert "config    " not in cli(home, "status").stdout


def test_symlinked_config_owned_by_the_user_is_followed(home, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "jevlin.toml"
    target.write_text('trace = "off"\n' + PROBE_CONFIG)
    os.unlink(os.path.join(home, "config.toml"))
    os.symlink(target, os.path.join(home, "config.toml"))
    basic_session(home)
    assert queued(home) == []  # today: the symlink is refused, defaults apply, the search ships
    assert "config" not in hook_errors(home)
    status = cli(home, "status").stdout
    assert "trace     off   sink: local" in status and "config    " not in status
    # the same link to a file with tracing on: the search is recorded
    target.write_text(PROBE_CONFIG)
    basic_session(home)
    assert len(queued(home, "search")) == 1


def test_saving_a_symlinked_config_keeps_the_link(home, tmp_path):
    target = tmp_path / "dotfiles" / "jevlin.toml"
    target.parent.mkdir()
    target.write_text(PROBE_CONFIG)
    link = os.path.join(home, "config.toml")
    os.unlink(link)
    os.symlink(target, link)
    cfg, why = config.settings(home)
    assert why == "" and cfg is not None
    cfg["miner"]["turn_end"] = False
    config.save(cfg, home)
    assert os.path.islink(link) and config.settings(home)[0]["miner"]["turn_end"] is False
    assert "turn_end = false" in target.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_config_target_owned_by_another_user_is_refused(home, tmp_path):
    target = tmp_path / "theirs.toml"
    target.write_text(PROBE_CONFIG)
    os.chown(target, 65534, 65534)
    os.unlink(os.path.join(home, "config.toml"))
    os.symlink(target, os.path.join(home, "config.toml"))
    basic_session(home)
    assert queued(home) == []
    assert "is owned by uid 65534, not you (uid 0): refused" in cli(home, "status").stdout


def test_group_writable_config_is_refused(home):
    path = write_config(home, PROBE_CONFIG)
    os.chmod(path, 0o662)
    basic_session(home)
    assert queued(home) == []
    assert "is writable by group or others (mode 662)" in cli(home, "doctor").stdout


def test_same_effective_sink_in_status_and_daemon_status(home):
    """A stopped daemon's last sink is not shown as if it were a setting."""
    write_config(home, PROBE_CONFIG + '[ship]\nsink = "otlp"\nendpoint = "http://127.0.0.1:9/v1/traces"\n')
    os.makedirs(os.path.join(home, "state"), mode=0o700, exist_ok=True)
    with open(os.path.join(home, "state", "daemon.json"), "w") as f:
        json.dump({"sink": "local"}, f)
    status = cli(home, "status").stdout
    assert "sink: otlp" in status and "sink: local" not in status
    doctor = cli(home, "doctor").stdout
    assert "ok  config: trace on, sink otlp, turn_end on" in doctor and "sink local" not in doctor


# --- case 2: only the owner's files are trusted ------------------------------------------------

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make files of another user")


def other_users_home(tmp_path, config: str) -> str:
    """What another user who created the home first leaves: their config, their endpoint."""
    h = str(tmp_path / "jevlin")
    os.makedirs(h, mode=0o700)
    with open(os.path.join(h, "config.toml"), "w") as f:
        f.write(config)
    for root, dirs, files in os.walk(h):
        for n in [*dirs, *files]:
            os.chown(os.path.join(root, n), 65534, 65534)
    os.chown(h, 65534, 65534)
    return h


@needs_root
def test_home_owned_by_another_user_is_refused(tmp_path):
    h = other_users_home(tmp_path, PROBE_CONFIG + '[ship]\nsink = "jevlin"\nendpoint = "http://127.0.0.1:9/x"\n'
                                   '[privacy]\ndisabled_rules = ["aws_access_key"]\n')
    basic_session(h)
    assert sorted(os.listdir(h)) == ["config.toml"]  # nothing written into their home, not even a log
    status = cli(h, "status")
    assert f"JEVLIN_HOME {h} is owned by uid 65534, not you (uid 0): refused" in status.stdout
    assert "sink: jevlin" not in status.stdout
    doctor = cli(h, "doctor")
    assert doctor.returncode == 1 and "is owned by uid 65534" in doctor.stdout
    assert json.loads(cli(h, "context").stdout)["trace"] == "off"
    daemon = cli(h, "daemon", "run", "--once")
    assert daemon.returncode == 1 and "is owned by uid 65534, not you" in daemon.stderr
    assert sorted(os.listdir(h)) == ["config.toml"]


@needs_root
@pytest.mark.parametrize("part", ["sessions", "spool", "state"])
def test_inner_directory_owned_by_another_user_is_refused(home, part):
    write_config(home, PROBE_CONFIG)
    os.makedirs(os.path.join(home, part), mode=0o700)
    os.chown(os.path.join(home, part), 65534, 65534)
    basic_session(home)
    assert queued(home) == []
    assert f"directory {os.path.join(home, part)} is owned by uid 65534" in cli(home, "status").stdout


@pytest.mark.parametrize("part", ["", "sessions", "spool", "state"])
def test_group_or_other_writable_is_refused(home, part):
    write_config(home, PROBE_CONFIG)
    path = os.path.join(home, part) if part else home
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o777 if part else 0o770)
    basic_session(home)
    assert queued(home) == []
    assert "is writable by group or others" in cli(home, "status").stdout


@needs_root
def test_as_another_user_our_home_is_not_theirs(tmp_path):
    """uid 65534 (setpriv) pointed at root's home: refused, nothing read or written."""
    base = tempfile.mkdtemp(prefix="jevlin-i10-")  # pytest's tmp dirs are 0700: not reachable for 65534
    try:
        _as_another_user(os.path.join(base, "jhome"))
    finally:
        shutil.rmtree(base)


def _as_another_user(home: str) -> None:
    base = os.path.dirname(home)
    os.chmod(base, 0o755)
    os.makedirs(home, mode=0o755)  # readable for the other user, so the refusal is ours, not EACCES
    # The checkout may sit in a directory the other user cannot enter (a 0700 temp dir): give it
    # a readable copy of the package to run, as an install in site-packages would be.
    pkg = os.path.join(base, "pkg")
    shutil.copytree(os.path.dirname(os.path.dirname(os.path.dirname(replay.ENTRY))) + "/jevlin_hooks",
                    os.path.join(pkg, "jevlin_hooks"), ignore=shutil.ignore_patterns("__pycache__"))
    for root, _dirs, files in os.walk(pkg):
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    entry = os.path.join(pkg, "jevlin_hooks", "capture", "entry.py")
    cli = [sys.executable, "-I", "-S", "-c",
           f"import sys; sys.path.insert(0, {pkg!r}); from jevlin_hooks.cli import main; sys.exit(main())"]
    write_config(home, PROBE_CONFIG)
    basic_session(home)
    before = sorted(os.listdir(home))
    payload = replay.scenario_events("basic")[0][1]
    env = {**os.environ, "JEVLIN_HOME": home, "HOME": base}
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        sys.executable, "-I", "-S", entry, "claude-code"],
                       input=json.dumps(payload).encode(), env=env, capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout == b"", p.stderr
    assert sorted(os.listdir(home)) == before
    p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cli, "status"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert f"JEVLIN_HOME {home} is owned by uid 0, not you (uid 65534): refused" in p.stdout


def test_pi_recorder_fails_closed_on_an_unusable_config(probe_home, tmp_path):
    """Pi's resident recorder: no call is announced as a search (Pi waits for none) and
    nothing is queued; the same scenario with the config fixed records its search."""
    from pi_replay import as_sent, captures, lay_sessions, stream

    root = tmp_path / "pi"
    sessions = lay_sessions(str(root))
    lines = as_sent(captures("basic"), sessions)
    write_config(probe_home, 'trace = "of"\n' + PROBE_CONFIG)
    p = stream(probe_home, lines)
    assert p.returncode == 0 and p.stderr == b""
    assert json.loads(p.stdout.splitlines()[0])["search"] == {}
    assert queued(probe_home) == []
    assert 'trace = "of": must be' in hook_errors(probe_home)
    write_config(probe_home, PROBE_CONFIG)
    p = stream(probe_home, lines)
    assert json.loads(p.stdout.splitlines()[0])["search"]["shell_commands"]
    assert len(queued(probe_home, "search")) == 1
