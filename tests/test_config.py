from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jevlin_hooks.base import config


def test_example_config_is_the_defaults():
    with open(os.path.join(os.path.dirname(__file__), "..", "jevlin_hooks", "config.example.toml"), "rb") as f:
        assert config.parse_toml(f.read()) == config.defaults()


@pytest.mark.parametrize("text,msg", [
    ("trace = 3", "trace = 3: must be a string"), ('trace = "maybe"', 'trace = "maybe": must be "on" or "off"'), ("bogus = 1", "unknown key"),
    ("[search]\nshell_commands = [1]", "list of strings"), ("[ship]\nsink = \"s3\"", "ship.sink"),
    ("not toml [", "not valid TOML"),
])
def test_bad_config_is_explained(text, msg):
    with pytest.raises(config.ConfigError, match=msg):
        config.parse_toml(text.encode())


def test_cache_follows_edits(home):
    path = os.path.join(home, "config.toml")
    with open(path, "w") as f:
        f.write('trace = "off"\n')
    assert config.load(home)["trace"] == "off"
    assert config.load(home)["trace"] == "off"  # from the cache
    with open(path, "w") as f:
        f.write('trace = "on"\n[miner]\nturn_end = true\n')
    cfg = config.load(home)
    assert cfg["trace"] == "on" and cfg["miner"]["turn_end"] is True


def test_save_round_trip(home):
    cfg = config.defaults()
    cfg["miner"]["turn_end"] = True
    config.save(cfg, home)
    assert config.load(home, use_cache=False) == cfg


def test_status_reports_bad_config_in_one_line(home):
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write("trace = ")
    p = subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", "status"], env=dict(os.environ, JEVLIN_HOME=home),
                       capture_output=True, text=True)
    assert p.returncode == 0 and "config unusable: " + os.path.join(home, "config.toml") in p.stdout
