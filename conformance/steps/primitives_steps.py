"""Steps for PRIM scenarios: JSON bytes, UTF-16 lengths, tokens, paths."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from conformance.protocol import Adapter
from conformance.world import LinkedFolder, Response


@when(parsers.parse("the JSON text {text} is parsed and serialized again"))
def when_canonicalize(adapter: Adapter, response: Response, text: str) -> None:
    response.call(adapter, "json.canonicalize", {"text": text})


@then(parsers.parse("the serialized text is {text}"))
def then_serialized(response: Response, text: str) -> None:
    assert response.value()["text"] == text, response.value()


@when(parsers.parse("the value of the JSON string {literal} is parsed as JSON text and serialized again"))
def when_canonicalize_escaped(adapter: Adapter, response: Response, literal: str) -> None:
    """The text is the value of a JSON string literal: controls, NBSP and lone surrogates can be written."""
    response.call(adapter, "json.canonicalize", {"text": json.loads(literal)})


@then(parsers.parse("the result is the quoted characters of {literal}, none escaped"))
def then_serialized_raw(response: Response, literal: str) -> None:
    """The characters the JSON string literal stands for, written unescaped between quotes."""
    assert response.value()["text"] == '"' + json.loads(literal) + '"', response.value()


@then("the cut text is empty")
def then_sliced_empty(response: Response) -> None:
    assert response.value()["text"] == ""


@when(parsers.parse("the text written as the JSON string {literal} is measured"))
def when_measure_escaped(adapter: Adapter, response: Response, literal: str) -> None:
    response.call(adapter, "text.measure", {"text": json.loads(literal)})


@when(parsers.parse('the text "{text}" is measured'))
def when_measure(adapter: Adapter, response: Response, text: str) -> None:
    response.call(adapter, "text.measure", {"text": text})


@when("the empty text is measured")
def when_measure_empty(adapter: Adapter, response: Response) -> None:
    response.call(adapter, "text.measure", {"text": ""})


@then(parsers.parse("it is {units:d} UTF-16 units, {size:d} UTF-8 bytes and {tokens:d} chars-v1 tokens"))
def then_measured(response: Response, units: int, size: int, tokens: int) -> None:
    assert response.value() == {"utf16Length": units, "utf8Length": size, "tokens": tokens}


@when(parsers.parse('the text "{text}" is cut to {units:d} UTF-16 units'))
def when_slice(adapter: Adapter, response: Response, text: str, units: int) -> None:
    response.call(adapter, "text.slice", {"text": text, "maxUnits": units})


@then(parsers.parse('the cut text is "{text}"'))
def then_sliced(response: Response, text: str) -> None:
    assert response.value()["text"] == text


@when(parsers.parse("Pi's session folder name of the cwd \"{cwd}\" is computed"))
def when_dir_name(adapter: Adapter, response: Response, cwd: str) -> None:
    response.call(adapter, "path.sessionDirName", {"cwd": cwd})


@then(parsers.parse('the folder name is "{name}"'))
def then_dir_name(response: Response, name: str) -> None:
    assert response.value()["name"] == name


@given("a project folder reached through a symbolic link")
def given_symlink(workdir: Path, linked_folder: LinkedFolder) -> None:
    real = workdir / "real-project"
    (real / "sub").mkdir(parents=True)
    link = workdir / "link"
    try:
        link.symlink_to(real, target_is_directory=True)
    except OSError as exc:  # Windows without the symlink privilege
        pytest.fail(f"this platform cannot create the symbolic link this scenario needs: {exc}")
    linked_folder.real = real
    linked_folder.link = link


@when(parsers.parse('the canonical path of the link with a trailing "{suffix}" is computed'))
def when_canonical_link(adapter: Adapter, response: Response, linked_folder: LinkedFolder, suffix: str) -> None:
    response.call(adapter, "path.canonical", {"path": str(linked_folder.link) + suffix})


@then("it is the real path of the project folder")
def then_real(response: Response, linked_folder: LinkedFolder) -> None:
    expected = os.path.realpath(str(linked_folder.real))
    if sys.platform == "win32":
        expected = expected.lower()
    assert response.value()["path"] == expected


@when(parsers.parse('the canonical path of "{relative}" under the scenario folder is computed'))
def when_canonical_missing(adapter: Adapter, workdir: Path, response: Response, relative: str) -> None:
    response.call(adapter, "path.canonical", {"path": str(workdir / relative)})


@then(parsers.parse('it is the scenario folder joined with "{name}"'))
def then_joined(workdir: Path, response: Response, name: str) -> None:
    expected = os.path.join(os.path.realpath(workdir), name)
    if sys.platform == "win32":
        expected = expected.lower()
    assert response.value()["path"] == expected
