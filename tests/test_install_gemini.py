"""`jevlin-hooks install|uninstall --harness gemini-cli` on real Gemini CLI settings files (JSON
with comments), `doctor`'s Gemini lines, and the tool matcher under JavaScript's own RegExp."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from jevlin_hooks import installkit
from jevlin_hooks.base import config
from jevlin_hooks.harnesses.gemini_cli import doctor as gdoctor
from jevlin_hooks.harnesses.gemini_cli import install as ginstall

# A settings file as a user keeps it: comments, their own hook, an MCP server, Gemini's 2-space layout.
USER_SETTINGS = """{
  // Gemini CLI, edited by hand
  "general": {
    "vimMode": true,
    "disableAutoUpdate": true
  },
  "ui": { "theme": "GitHub" }, /* dark themes hurt */
  "security": {
    "auth": { "selectedType": "gemini-api-key" }
  },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [
          { "type": "command", "name": "guard", "command": "$GEMINI_PROJECT_DIR/.gemini/guard.sh", "timeout": 10000 }
        ]
      }
    ]
  },
  "mcpServers": {
    "jevlin": { "command": "jevlin", "args": ["mcp"] } // our search, as a tool
  }
}
"""


def cli(home, *args: str, cwd: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GEMINI_")}
    full.update(HOME=str(home), JEVLIN_HOME=str(home / ".jevlin"), PATH="/usr/bin:/bin", **env)
    return subprocess.run([sys.executable, "-m", "jevlin_hooks.cli", *args], env=full, capture_output=True, text=True,
                          cwd=cwd or str(home))


@pytest.fixture
def user(tmp_path):
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_text(USER_SETTINGS)
    return tmp_path


def ours(data: dict) -> dict[str, list[dict]]:
    return {e: [h for _, _, h in v] for e, v in installkit.ours_in_grouped(data).items()}


def outside_hooks(text: str) -> str:
    """The file without its "hooks" member: what install must leave byte for byte."""
    bare = installkit.strip_json_comments(text)
    _, _, members = installkit._members(bare)
    (_, kstart, _, vend), = [m for m in members if m[0] == "hooks"]
    return text[:kstart] + text[vend:]


def test_round_trip_keeps_comments_and_restores_every_byte(user):
    path = user / ".gemini" / "settings.json"
    p = cli(user, "install", "--harness", "gemini-cli")
    assert p.returncode == 0, p.stderr
    assert "trust" in p.stdout and "never trusts a folder" in p.stdout
    after = path.read_text()
    assert outside_hooks(after) == outside_hooks(USER_SETTINGS), "only the hooks member changed"
    data = installkit.read_jsonc(str(path))[1]
    assert data["hooks"]["BeforeTool"][0]["hooks"][0]["name"] == "guard"
    found = ours(data)
    assert set(found) == set(ginstall.EVENTS) and all(len(v) == 1 for v in found.values())
    for event, (h,) in found.items():
        assert h["name"] == "jevlin-hooks" and h["timeout"] == 5000 and h["command"].endswith(" gemini-cli")
        group = next(g for g in data["hooks"][event] if h in g["hooks"])
        assert group.get("matcher") == (ginstall.matcher(config.defaults()["search"]["tools"])
                                        if event in ginstall.TOOL_EVENTS else None)
    for name in ("BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress"):
        assert name not in data["hooks"], "never the events that carry the whole conversation or fire per call"
    p = cli(user, "install", "--harness", "gemini-cli")
    assert "already up to date" in p.stdout and path.read_text() == after
    assert not (user / ".gemini" / "trustedFolders.json").exists(), "install never trusts a folder"
    assert cli(user, "uninstall", "--harness", "gemini-cli").returncode == 0
    assert path.read_text() == USER_SETTINGS


def test_uninstall_after_the_user_edited_keeps_their_edit_and_comments(user):
    path = user / ".gemini" / "settings.json"
    cli(user, "install", "--harness", "gemini-cli")
    path.write_text(path.read_text().replace('"vimMode": true', '"vimMode": false'))
    assert cli(user, "uninstall", "--harness", "gemini-cli").returncode == 0
    text = path.read_text()
    assert "jevlin_hooks" not in text and '"vimMode": false' in text and "// our search, as a tool" in text
    assert installkit.read_jsonc(str(path))[1]["hooks"]["BeforeTool"][0]["hooks"][0]["name"] == "guard"


def test_a_comment_inside_hooks_is_refused_in_one_line(user):
    path = user / ".gemini" / "settings.json"
    text = USER_SETTINGS.replace('"matcher": "write_file|replace",', '"matcher": "write_file|replace", // guard edits')
    path.write_text(text)
    p = cli(user, "install", "--harness", "gemini-cli")
    assert p.returncode == 1 and "a comment inside \"hooks\"" in p.stderr and p.stderr.count("\n") == 1
    assert path.read_text() == text


@pytest.mark.parametrize("text", ["{ not json", '{"hooks": [],}', '["a list"]', '{"hooks": "x"}'])
def test_what_cannot_be_read_is_left_untouched(user, text):
    path = user / ".gemini" / "settings.json"
    path.write_text(text)
    p = cli(user, "install", "--harness", "gemini-cli")
    assert p.returncode == 1 and "left untouched" in p.stderr and p.stderr.count("\n") == 1
    assert path.read_text() == text


def test_no_settings_file_yet_and_gone_again(tmp_path):
    assert cli(tmp_path, "install", "--harness", "gemini-cli").returncode == 0
    path = tmp_path / ".gemini" / "settings.json"
    assert set(ours(json.loads(path.read_text()))) == set(ginstall.EVENTS)
    assert cli(tmp_path, "uninstall", "--harness", "gemini-cli").returncode == 0
    assert not path.exists() and not (tmp_path / ".gemini").exists()


def test_dry_run_writes_nothing(user):
    p = cli(user, "install", "--harness", "gemini-cli", "--dry-run")
    assert p.returncode == 0 and "+" in p.stdout and "entry.py" in p.stdout and "gemini-cli" in p.stdout
    assert (user / ".gemini" / "settings.json").read_text() == USER_SETTINGS


def test_project_settings_and_gemini_cli_home(user, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    assert cli(user, "install", "--harness", "gemini-cli", "--project", str(proj)).returncode == 0
    assert set(ours(json.loads((proj / ".gemini" / "settings.json").read_text()))) == set(ginstall.EVENTS)
    assert (user / ".gemini" / "settings.json").read_text() == USER_SETTINGS
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert cli(user, "install", "--harness", "gemini-cli", GEMINI_CLI_HOME=str(other)).returncode == 0
    assert (other / ".gemini" / "settings.json").exists() and (user / ".gemini" / "settings.json").read_text() == USER_SETTINGS


def test_the_matcher_follows_search_tools(user):
    (user / ".jevlin").mkdir(mode=0o700)
    (user / ".jevlin" / "config.toml").write_text('[search]\ntools = ["mcp_docs_*"]\n')
    assert cli(user, "install", "--harness", "gemini-cli").returncode == 0
    data = installkit.read_jsonc(str(user / ".gemini" / "settings.json"))[1]
    group = next(g for g in data["hooks"]["AfterTool"] if any(installkit.is_ours(h) for h in g["hooks"]))
    assert group["matcher"] == "^(?:run_shell_command|invoke_agent|mcp_docs_.*)$"


@pytest.mark.skipif(shutil.which("node") is None, reason="node (Gemini CLI's runtime) not installed")
def test_the_matcher_under_javascript_regexp():
    """Gemini tests a tool matcher with `new RegExp(matcher).test(toolName)`: unanchored, so ours is."""
    m = ginstall.matcher(config.defaults()["search"]["tools"])
    names = ["run_shell_command", "invoke_agent", "google_web_search", "mcp_jevlin_search", "read_file",
             "my_run_shell_command_x", "web_search", "mcp_other_search", "WebSearch"]
    code = f"const r = new RegExp({json.dumps(m)}); console.log(JSON.stringify({json.dumps(names)}.map(n => r.test(n))))"
    p = subprocess.run(["node", "-e", code], capture_output=True, text=True, check=True)
    assert dict(zip(names, json.loads(p.stdout), strict=True)) == {
        "run_shell_command": True, "invoke_agent": True, "google_web_search": True, "mcp_jevlin_search": True,
        "read_file": False, "my_run_shell_command_x": False, "web_search": True, "mcp_other_search": False,
        "WebSearch": True}


# --- doctor --------------------------------------------------------------------------------------

def doctor_lines(home, cwd: str | None = None, **env: str) -> list[str]:
    p = cli(home, "doctor", cwd=cwd, **env)
    return [line for line in p.stdout.splitlines() if "gemini-cli" in line]


def test_doctor_says_what_is_missing_and_what_trust_means(user, tmp_path):
    lines = doctor_lines(user)
    assert "!!  gemini-cli: found, hooks not installed; run `jevlin-hooks install --harness gemini-cli`" in lines
    assert cli(user, "install", "--harness", "gemini-cli").returncode == 0
    proj = tmp_path / "proj"
    proj.mkdir()
    lines = doctor_lines(user, cwd=str(proj))
    assert any(line.startswith("ok  gemini-cli: hooks installed for all 6 events") for line in lines)
    trust = next(line for line in lines if "trust" in line)
    assert trust.startswith("ok  ") and "only in folders you trust" in trust and "not trusted yet" in trust
    assert "install never does" in trust
    (user / ".gemini" / "trustedFolders.json").write_text('{\n  // mine\n  "%s": "TRUST_PARENT"\n}' % (proj / "x"))
    assert f"{proj} is trusted" in "\n".join(doctor_lines(user, cwd=str(proj)))
    (user / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(proj): "DO_NOT_TRUST"}))
    assert f"{proj} is NOT trusted" in "\n".join(doctor_lines(user, cwd=str(proj)))
    assert "is trusted (GEMINI_CLI_TRUST_WORKSPACE=true)" in "\n".join(
        doctor_lines(user, cwd=str(proj), GEMINI_CLI_TRUST_WORKSPACE="true"))


def test_doctor_flags_hooks_switched_off(user):
    path = user / ".gemini" / "settings.json"
    cli(user, "install", "--harness", "gemini-cli")
    text = path.read_text()
    path.write_text(text.replace('"general": {', '"hooksConfig": {"enabled": false, "disabled": ["jevlin-hooks"]},\n'
                                                 '  "general": {', 1))
    lines = doctor_lines(user)
    assert any(line.startswith("!!  gemini-cli: \"hooksConfig\": {\"enabled\": false}") for line in lines)
    assert any(line.startswith("!!  gemini-cli: our hook is in \"hooksConfig.disabled\"") for line in lines)


def test_doctor_flags_a_matcher_older_than_the_search_tools(user):
    cli(user, "install", "--harness", "gemini-cli")
    (user / ".jevlin" / "config.toml").write_text('[search]\ntools = ["mcp_docs_*"]\n')
    assert any("predates your [search] tools" in line for line in doctor_lines(user))


def test_folder_trust_rules(tmp_path, monkeypatch):
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    (tmp_path / ".gemini").mkdir()
    rules = tmp_path / ".gemini" / "trustedFolders.json"
    (tmp_path / "a" / "b").mkdir(parents=True)
    rules.write_text(json.dumps({str(tmp_path / "a"): "TRUST_FOLDER", str(tmp_path / "a" / "b"): "DO_NOT_TRUST"}))
    assert gdoctor.folder_trust(str(tmp_path / "a"), {})[0] is True
    assert gdoctor.folder_trust(str(tmp_path / "a" / "b"), {})[0] is False, "the longest rule wins"
    assert gdoctor.folder_trust(str(tmp_path), {})[0] is None
    assert gdoctor.folder_trust(str(tmp_path), {"security": {"folderTrust": {"enabled": False}}})[0] is True
    monkeypatch.setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
    assert gdoctor.folder_trust(str(tmp_path / "a"), {})[0] is False
