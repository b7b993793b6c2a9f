"""The ``secret`` lint check and its pre-commit hook: file and line, never the secret itself."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import PROJECT, build_tree, cli, run_console

CORPUS = PROJECT / "tests/fixtures/secrets"
POSITIVES = [line.split("\t", 1)[1] for line in (CORPUS / "positives.txt").read_text().splitlines()]
LOOKALIKES = (CORPUS / "lookalikes.txt").read_text().splitlines()
SESSION = "memory/sessions/2026-06-01-100000.md"
FOOT = "  <!-- id: {} | created: 2026-01-01 | last_used: 2026-01-01 | uses: 1 | tier: working -->"


def _findings(repo: Path) -> list[dict[str, object]]:
    doc = json.loads(cli("lint", repo, "--only", "secret", "--json").output)
    return doc["findings"]  # type: ignore[no-any-return]


def test_every_true_positive_in_a_log_is_found_by_line(tmp_path: Path) -> None:
    log = "# Session\n\n" + "".join(f"{line}\n" for line in POSITIVES)
    build_tree(tmp_path, {"memory/continuity.md": "# Continuity\n", SESSION: log})
    found = _findings(tmp_path)
    lines = {f["line"] for f in found}
    assert lines == set(range(3, 3 + len(POSITIVES)))  # 0 misses
    assert all(f["severity"] == "error" and f["check"] == "secret" for f in found)


def test_lookalikes_stay_under_one_percent(tmp_path: Path) -> None:
    log = "".join(f"{line}\n" for line in LOOKALIKES)
    build_tree(tmp_path, {"memory/continuity.md": "# Continuity\n", SESSION: log})
    flagged = {f["line"] for f in _findings(tmp_path)}
    assert len(flagged) / len(LOOKALIKES) <= 0.01


def test_findings_name_file_and_line_and_never_print_the_secret(tmp_path: Path) -> None:
    token = "ghp_" + "Zq8Lm2Vx7Kp4Rt9Wn3Bc6Hy1Jd5Fg0Ts2QaE4"
    aws = "AKIA" + "QX7Z3KD2LMNP4R8T"
    build_tree(
        tmp_path,
        {
            "memory/continuity.md": (
                f"# Continuity\n\n## Key Decisions\n- Deploy with key {aws}\n"
                f"{FOOT.format('deploy-key')}\n"
            ),
            "memory/archive/2026-Q1.md": f"# Archive\n\n## Facts\n- CI token {token}\n"
            f"{FOOT.format('ci-token')}\n",
            "memory/sessions/2026-06-01-100000.md": f"## Notes\n- used {token}\n",
        },
    )
    result = run_console("lint", tmp_path, cwd=tmp_path)
    assert result.returncode == 1
    assert token not in result.stdout + result.stderr and aws not in result.stdout
    assert "memory/continuity.md:4: error [secret] a aws-access-key at column " in result.stdout
    assert "memory/archive/2026-Q1.md:4: error [secret] a github-token" in result.stdout
    assert "memory/sessions/2026-06-01-100000.md:2: error [secret]" in result.stdout
    only = cli("lint", tmp_path, "--only", "secret")
    assert only.exit_code == 1 and all("[secret]" in line for line in only.output.splitlines()[:-1])


def test_the_pre_commit_hook_stops_a_staged_secret(repo: Path) -> None:
    """The hook's entry as pre-commit runs it (on the work tree, which pre-commit makes equal
    to what is staged)."""
    cli("enable", repo, "--vendor", "none")
    hooks = (PROJECT / ".pre-commit-hooks.yaml").read_text()
    assert "entry: agent-memory lint --only secret" in hooks and "files: ^memory/" in hooks
    assert run_console("lint", "--only", "secret", cwd=repo).returncode == 0
    log = repo / "memory/sessions/2026-06-01-100000.md"
    log.write_text("## Memory References\n- Referenced: (none)\n\npassword = 'Tr0ub4dor&3xyz'\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    blocked = run_console("lint", "--only", "secret", cwd=repo)
    assert blocked.returncode == 1 and "Tr0ub4dor" not in blocked.stdout
    assert "memory/sessions/2026-06-01-100000.md:4: error [secret]" in blocked.stdout
