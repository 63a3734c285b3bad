"""``tools/action_command.py``: the action's JSON inputs spliced into argv word for word, or one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from action_command import BadInput, command_line, input_name, main

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "action_command.py"


def test_each_placeholder_becomes_the_words_of_its_array_and_nothing_else_changes() -> None:
    environ = {"CONFORMANCE_PORT": '["node", "a dir/$HOME *.mjs", ""]', "CONFORMANCE_RUN_ARGUMENTS": "[]"}
    got = command_line(["rr", "run", "{CONFORMANCE_RUN_ARGUMENTS}", "--", "{CONFORMANCE_PORT}", "{lower}", "x{A}"],
                       environ)
    assert got == ["rr", "run", "--", "node", "a dir/$HOME *.mjs", "", "{lower}", "x{A}"]


def test_an_unset_or_blank_variable_is_no_words() -> None:
    assert command_line(["a", "{CONFORMANCE_RUN_ARGUMENTS}", "{UNSET}"], {"CONFORMANCE_RUN_ARGUMENTS": "  "}) == ["a"]


@pytest.mark.parametrize(("text", "says"), [
    ("node port.mjs", "it is not JSON"),
    ('"node"', "JSON of another shape"),
    ('["node", 1]', "JSON of another shape"),
    ('["no\\u0000de"]', "NUL"),
])
def test_what_is_not_a_json_array_of_strings_is_refused_naming_the_input(text: str, says: str) -> None:
    with pytest.raises(BadInput, match="the input run-arguments \\(CONFORMANCE_RUN_ARGUMENTS\\) must be") as caught:
        command_line(["a", "{CONFORMANCE_RUN_ARGUMENTS}"], {"CONFORMANCE_RUN_ARGUMENTS": text})
    assert says in str(caught.value)


def test_the_input_name_is_the_variables_without_its_prefix() -> None:
    assert input_name("CONFORMANCE_RUN_ARGUMENTS") == "run-arguments" and input_name("CONFORMANCE_PORT") == "port"


def test_the_script_exits_as_its_command_does_and_refuses_in_one_line(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "CONFORMANCE_PORT": '["-c", "import sys; sys.exit(7)"]'}
    done = subprocess.run([sys.executable, str(SCRIPT), sys.executable, "{CONFORMANCE_PORT}"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 7 and done.stderr == ""
    env["CONFORMANCE_PORT"] = "python -c pass"
    done = subprocess.run([sys.executable, str(SCRIPT), sys.executable, "{CONFORMANCE_PORT}"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("recall-rebase action: usage: the input port (CONFORMANCE_PORT) must be")


def test_no_command_and_a_command_that_cannot_start_are_one_line(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    assert main([]) == 2
    assert capsys.readouterr().err.startswith("recall-rebase action: usage: no command given")
    assert main([str(tmp_path / "absent")]) == 2
    assert capsys.readouterr().err.startswith(f"recall-rebase action: usage: cannot run {tmp_path / 'absent'}: ")
