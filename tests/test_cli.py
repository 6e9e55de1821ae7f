"""The command line as a user meets it in the first hour: help, version, pipes, clear answers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_trajectory import build_home, cli

from jevlin_hooks import __version__


def test_version(home):
    p = cli(home, "--version")
    assert p.returncode == 0 and p.stdout.strip() == f"jevlin-hooks {__version__}"


def test_every_subcommand_help_has_a_description(home):
    top = cli(home, "--help")
    assert top.returncode == 0
    # the subcommand list: "    name    help" lines under "COMMAND"
    names = [line.split()[0] for line in top.stdout.splitlines()
             if line.startswith("    ") and not line.startswith("     ") and line.split()]
    assert "status" in names and "threads" in names and len(names) >= 12
    for name in names:
        p = cli(home, name, "--help")
        assert p.returncode == 0, name
        body = p.stdout.split("\n\n")
        assert len(body) >= 2 and body[1].strip() and not body[1].startswith("positional"), name


def test_piped_into_head_is_not_an_error(home):
    """`jevlin-hooks scrub --list-rules | head -1`: no BrokenPipe traceback, exit 0."""
    p = subprocess.run(f"{sys.executable} -m jevlin_hooks.cli scrub --list-rules | head -1", shell=True,
                       env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.count("\n") == 1
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr


def test_scrub_explain_gives_line_and_column(home):
    text = "first line\n  token ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A" + " tail\n"
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "scrub", "--explain"], input=text,
                       env={**os.environ, "JEVLIN_HOME": home}, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    assert "line 2, column 9" in p.stdout
    assert "ghp_" not in p.stdout


@pytest.fixture
def small_store(probe_home, tmp_path):
    build_home(probe_home, tmp_path, claude=("basic",), codex=())
    return probe_home


def test_threads_filter_that_matches_nothing(small_store):
    p = cli(small_store, "threads", "--harness", "cursor")
    assert p.returncode == 0
    assert p.stdout.startswith("no thread matches --harness cursor (1 thread(s) in the local store)")
    assert "store yet" not in p.stdout


def test_thread_html_to_a_bad_path_fails_before_printing(small_store):
    th = cli(small_store, "threads", "--json")
    import json

    tid = json.loads(th.stdout)[0]["thread"]
    p = cli(small_store, "thread", tid[:10], "--html", "/nonexistent/dir/page.html")
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.startswith("jevlin-hooks: cannot write /nonexistent/dir/page.html") and p.stderr.count("\n") == 1


def test_thread_names_the_key_and_file_that_turn_prompts_on(home, tmp_path):
    import json

    with open(os.path.join(home, "config.toml"), "w") as f:  # the captures' jevlin search counts; turn ends off
        f.write('[search]\nshell_commands = ["jevlin search"]\n[daemon]\nautostart = false\n')
    build_home(home, tmp_path, claude=("basic",), codex=())
    tid = json.loads(cli(home, "threads", "--json").stdout)[0]["thread"]
    p = cli(home, "thread", tid[:10])
    cfg = os.path.join(home, "config.toml")
    hint = [line for line in p.stdout.splitlines() if "turn_end" in line]
    assert hint == [f"(turn ends are off, so prompts and conclusions are not shown: set [miner] turn_end = true in {cfg})"]


def test_config_path_show_example(home):
    p = cli(home, "config", "path")
    assert p.returncode == 0 and p.stdout.strip() == os.path.join(home, "config.toml")
    ex = cli(home, "config", "example")
    assert ex.returncode == 0 and "[miner]" in ex.stdout and "turn_end = false" in ex.stdout
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('[daemon]\nautostart = false\n[ship]\napi_key = "sk-live-shouldnotprint"\n')
    env = {**os.environ, "JEVLIN_HOME": home, "JEVLIN_TRACE": "off"}
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "config", "show"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert 'trace = "off"  # environment (JEVLIN_TRACE)' in lines
    assert "daemon.autostart = false  # file" in lines
    assert "miner.turn_end = false  # default" in lines
    assert "ship.api_key = (set, not shown)  # file" in lines
    assert "shouldnotprint" not in p.stdout


def test_config_show_names_what_is_wrong(home):
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('trace = "of"\n')
    p = cli(home, "config", "show")
    assert p.returncode == 1 and p.stderr.count("\n") == 1
    assert "config.toml" in p.stderr and 'trace = "of"' in p.stderr


def test_the_example_is_a_valid_config_and_ships_in_the_package(home):
    from jevlin_hooks import config_cmd
    from jevlin_hooks.base import config

    text = config_cmd.example_text()
    assert config.parse_toml(text.encode()) == config.defaults()


def test_config_show_names_the_otel_variables_it_uses(home):
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write('[ship]\nsink = "otlp"\n[daemon]\nautostart = false\n')
    env = {**os.environ, "JEVLIN_HOME": home, "OTEL_EXPORTER_OTLP_ENDPOINT": "http://u:pw@127.0.0.1:4318",
           "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=abc", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "config", "show"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert 'ship.endpoint = "http://u:***@127.0.0.1:4318"  # environment (OTEL_EXPORTER_OTLP_ENDPOINT)' in lines
    assert "ship.headers = (set, not shown)  # environment (OTEL_EXPORTER_OTLP_HEADERS)" in lines
    assert 'ship.otlp_protocol = "http/json"  # environment (OTEL_EXPORTER_OTLP_PROTOCOL)' in lines
    assert "pw" not in p.stdout and "abc" not in p.stdout
