"""The pytest plugin behind ``recall-rebase conformance run``.

It supplies the fixtures every step uses (``adapter``, ``workdir``, and the typed world objects
of :mod:`conformance.world`), loads every step module, maps ``@id:AREA-NNN`` tags to a
``scenario_id`` marker, and writes the NDJSON conformance report: a header line, one line per
scenario, a summary line.

An in-process implementation is reached only through the ``recall_rebase.adapters`` entry point
group (``--rr-adapter NAME``, ``reference`` by default) or, for a port under development, as
``--rr-adapter module:attr``; any other implementation through ``--rr-stdio``.
"""

from __future__ import annotations

import importlib
import platform
import shlex
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conformance import __version__, failure_details, interruption, locations, platforms, reports, row_status
from conformance import suite as suite_data
from conformance.capabilities import DeclaredOperations
from conformance.clauses import CLAUSE_TAG
from conformance.expectations import Manifest, ManifestError, load_manifest
from conformance.faults import PORT_START_FAILED, PortStartFailed
from conformance.implementations import ADAPTER_ENTRY_POINTS, DEFAULT_ADAPTER, AdapterNotFound
from conformance.judging import ExpectationsPlugin
from conformance.message_checks import MessageChecks
from conformance.protocol import PROTOCOL_VERSION, Adapter
from conformance.row_clauses import CitedClause, ClauseTexts
from conformance.selection import Selection, scenario_of, tags_by_scenario
from conformance.shards import MachineShard, ShardSyntaxError
from conformance.stdio import DEFAULT_REQUEST_TIMEOUT, DEFAULT_START_TIMEOUT
from conformance.supervisor import PortSupervisor, supervisor_of

STEP_MODULES_PACKAGE = "conformance.steps"
WORLD_MODULE = "conformance.world"
ID_TAG_PREFIX = "id:"
TIMEOUT_TAG_PREFIX = "timeout:"
PLANTED_TAG_PREFIX = "planted:"
VALUE_TAGS = {
    platforms.PLATFORM_TAG: "platform",
    platforms.NEEDS_TAG: "needs",
    PLANTED_TAG_PREFIX: "planted",
    CLAUSE_TAG: "clauses",
}
PORT_KEY = pytest.StashKey[PortSupervisor]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("recall-rebase")
    group.addoption(
        "--rr-adapter",
        default=DEFAULT_ADAPTER,
        help=f"in-process adapter: the name of an entry point of the {ADAPTER_ENTRY_POINTS!r} group "
        f"(default {DEFAULT_ADAPTER!r}), or module:attr naming an adapter class of a port under development",
    )
    group.addoption("--rr-stdio", default=None, help="command serving the adapter protocol on stdio")
    group.addoption("--rr-report", default=None, help="path of the NDJSON conformance report")
    group.addoption("--rr-only", default=None, help="comma-separated scenario id patterns (fnmatch), e.g. TREE-*")
    group.addoption("--rr-area", default=None, help="comma-separated areas, e.g. READER,TREE")
    group.addoption("--rr-tag", default=None, help="comma-separated Gherkin tags (without @, globs allowed)")
    group.addoption("--rr-machine-shard", default=None,
                    help="K/N: only the rows whose scenario id hashes to shard K of N (conformance run --shard)")
    group.addoption("--rr-expectations", default=None, help="the implementation's expectations manifest (TOML)")
    group.addoption("--rr-timeout", type=float, default=DEFAULT_REQUEST_TIMEOUT,
                    help="seconds a --rr-stdio port may take per request (0: no timeout); @timeout:N scales it")
    group.addoption("--rr-start-timeout", type=float, default=DEFAULT_START_TIMEOUT,
                    help="seconds a --rr-stdio port may take to start and complete its handshake")
    group.addoption("--rr-validate-messages", action="store_true", default=False,
                    help="check every request and response against schemas/adapter/v1 (Bowtie's -V)")
    group.addoption("--rr-audit", action="store_true", default=False,
                    help="after each scenario's steps, audit its history project through the declared mapping")


def _step_modules() -> list[str]:
    package = importlib.import_module(STEP_MODULES_PACKAGE)
    folder = Path(package.__file__ or "").parent
    return sorted(f"{STEP_MODULES_PACKAGE}.{p.stem}" for p in folder.glob("*_steps.py"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "scenario_id(id): the stable @id of a conformance scenario")
    config.addinivalue_line("markers", "timeout_factor(n): @timeout:N, the per-request timeout times N")
    config.addinivalue_line("markers", "planted(*checks): @planted:AUDIT-NNN,..., what the steps plant for --audit")
    config.addinivalue_line("markers", "platform(*names): @platform:posix,..., the platforms the scenario runs on")
    config.addinivalue_line("markers", "clauses(*ids): @clause:C6.12-3, the spec clauses the scenario checks")
    config.addinivalue_line("markers", "needs(*primitives): @needs:permission-bits,..., the primitives it needs")
    config.stash[PORT_KEY] = _supervisor(config)
    for name in [WORLD_MODULE, *_step_modules()]:
        if not config.pluginmanager.has_plugin(name):
            config.pluginmanager.import_plugin(name)
    clause_texts = ClauseTexts.of_spec(suite_data.docs_dir() / "spec")  # the spec, read once per run
    config.pluginmanager.register(_Reporter(config, clause_texts), "recall-rebase-reporter")
    config.pluginmanager.register(failure_details.FailureDetails(), "recall-rebase-failure-details")
    if config.getoption("--rr-audit"):
        from conformance.scenario_audit import ScenarioAudit

        config.pluginmanager.register(ScenarioAudit(config.stash[PORT_KEY]), "recall-rebase-audit")
    expectations = ExpectationsPlugin(config, _manifest(config), scenario_id_of)
    config.pluginmanager.register(expectations, "recall-rebase-expectations")


def _manifest(config: pytest.Config) -> Manifest:
    """The run's manifest (the runner has validated it already), or none: everything must pass."""
    path = config.getoption("--rr-expectations")
    try:
        return load_manifest(Path(path)) if path else Manifest(implementation="")
    except ManifestError as error:
        raise pytest.UsageError(f"{error.code}: {error.message}") from None


@pytest.hookimpl(tryfirst=True)
def pytest_bdd_apply_tag(tag: str, function: Any) -> bool | None:
    """``@id:X`` becomes ``scenario_id("X")`` (colons cannot be marker names), ``@timeout:N``
    ``timeout_factor("N")``, ``@planted:A,B`` ``planted("A", "B")``, and so do ``@platform:``,
    ``@needs:`` and ``@clause:`` (``platform``, ``needs``, ``clauses``)."""
    if tag.startswith(ID_TAG_PREFIX):
        pytest.mark.scenario_id(tag[len(ID_TAG_PREFIX) :])(function)
        return True
    for prefix, marker in VALUE_TAGS.items():
        if tag.startswith(prefix):
            getattr(pytest.mark, marker)(*tag[len(prefix) :].split(","))(function)
            return True
    if tag.startswith(TIMEOUT_TAG_PREFIX):
        pytest.mark.timeout_factor(tag[len(TIMEOUT_TAG_PREFIX) :])(function)
        return True
    return None


def timeout_factor_of(item: pytest.Item) -> float:
    """The scenario's ``@timeout:N`` (N a positive number), 1 without one."""
    marker = item.get_closest_marker("timeout_factor")
    if not marker or not marker.args:
        return 1.0
    try:
        factor = float(marker.args[0])
    except ValueError:
        factor = 0.0
    if not factor > 0:
        raise pytest.UsageError(f"@timeout:{marker.args[0]} is not a positive number")
    return factor


def _selection(config: pytest.Config) -> Selection:
    return Selection.parse([config.getoption("--rr-only")], config.getoption("--rr-area"), config.getoption("--rr-tag"))


def machine_shard_of(config: pytest.Config) -> MachineShard | None:
    """The run's ``--rr-machine-shard`` (``conformance run --shard``), None when not given."""
    text = config.getoption("--rr-machine-shard")
    try:
        return MachineShard.parse(str(text)) if text else None
    except ShardSyntaxError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--rr-only``/``--rr-area``/``--rr-tag``: keep the rows :mod:`conformance.selection` selects;
    ``--rr-machine-shard``: of them, the machine's shard's (:class:`conformance.shards.MachineShard`)."""
    selection, shard = _selection(config), machine_shard_of(config)
    if not selection and shard is None:
        return
    tags = tags_by_scenario() if selection.tags else {}
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        row = scenario_id_of(item) or ""
        held = selection.matches(row, tags.get(scenario_of(row), ())) and (shard is None or shard.holds(row))
        (keep if held else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _supervisor(config: pytest.Config) -> PortSupervisor:
    """The run's supervisor: a ``--rr-stdio`` port with timeouts, or the in-process adapter (none)."""
    stdio = config.getoption("--rr-stdio")
    try:
        return supervisor_of(shlex.split(stdio) if stdio else None, str(config.getoption("--rr-adapter")),
                             request_timeout=float(config.getoption("--rr-timeout")) or None,
                             start_timeout=float(config.getoption("--rr-start-timeout")) or None,
                             checks=MessageChecks() if config.getoption("--rr-validate-messages") else None)
    except AdapterNotFound as error:
        raise pytest.UsageError(str(error)) from None


def port_of(config: pytest.Config) -> PortSupervisor:
    """The supervisor of this run's implementation."""
    return config.stash[PORT_KEY]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A live port (restarted after a fault) and this scenario's timeout, before its fixtures."""
    try:
        port_of(item.config).begin_scenario(timeout_factor_of(item))
    except PortStartFailed as exc:
        item.session.shouldstop = f"recall-rebase: {exc.code}: {exc.message}"
        raise


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop the port before the last teardowns; an interrupted run kills its group without asking.
    From here on a signal cannot cost the report."""
    interruption.disarm()
    port = port_of(session.config)
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        port.kill()
    else:
        port.stop()


@pytest.fixture(scope="session")
def adapter(pytestconfig: pytest.Config) -> Adapter:
    """The implementation under test behind its supervisor (started before the first scenario),
    letting through only the operations its handshake declared (the others: UNSUPPORTED)."""
    port = port_of(pytestconfig)
    info = port.start()
    expectations = pytestconfig.pluginmanager.get_plugin("recall-rebase-expectations")
    if expectations is not None:
        expectations.greet(info)
    return DeclaredOperations(port, declared=info.capabilities)


@pytest.fixture(autouse=True)
def platform_gate(request: pytest.FixtureRequest) -> None:
    """A scenario tagged ``@platform:`` for platforms other than the port's is UNSUPPORTED, with the
    primitive it needs named, before its first step (:mod:`conformance.platforms`)."""
    names = tuple(name for marker in request.node.iter_markers("platform") for name in marker.args)
    if not names:
        return
    requirement = platforms.Requirement(names, tuple(n for m in request.node.iter_markers("needs") for n in m.args))
    request.getfixturevalue("adapter")  # the handshake says which platform the port runs on
    platform, declared = run_platform(request.config)
    if requirement.missing_on(platform):
        raise platforms.PrimitiveMissing(platform, declared, requirement)


def run_platform(config: pytest.Config) -> tuple[platforms.Platform, bool]:
    """The platform the port's hello declares (True), else the runner's own (False)."""
    info = port_of(config).info
    return platforms.judged_platform(info.platform if info is not None else None)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A fresh real folder per scenario, where steps write sessions and Pi homes."""
    return tmp_path


def clauses_of(item: pytest.Item, texts: ClauseTexts) -> tuple[CitedClause, ...]:
    """The clauses the scenario's ``@clause:`` tags cite, with the spec's text (a tag that is no
    clause id stops the run, as a malformed ``@timeout:`` does)."""
    try:
        return texts.cite(clause_id for marker in item.iter_markers("clauses") for clause_id in marker.args)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def scenario_id_of(item: pytest.Item) -> str | None:
    """``AREA-NNN``, or ``AREA-NNN[case]`` for a row of a Scenario Outline with a case column."""
    marker = item.get_closest_marker("scenario_id")
    if not marker or not marker.args:
        return None
    scenario = str(marker.args[0])
    callspec = getattr(item, "callspec", None)
    example = callspec.params.get("_pytest_bdd_example") if callspec is not None else None
    if isinstance(example, dict) and example.get("case"):
        scenario += f"[{example['case']}]"
    return scenario


class _Reporter:
    """Collects one outcome per scenario id and writes the NDJSON report."""

    def __init__(self, config: pytest.Config, clause_texts: ClauseTexts) -> None:
        self.config = config
        self.clause_texts = clause_texts
        self.results: dict[str, dict[str, Any]] = {}
        self.implementation: dict[str, str] = {}
        self.started = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        self.running: str | None = None

    def _row(self, item: pytest.Item, scenario: str) -> dict[str, Any]:
        if scenario not in self.results:
            module = getattr(getattr(item, "module", None), "__name__", "")
            doc = getattr(getattr(item, "obj", None), "__doc__", None) or ""
            _, separator, title = doc.partition(": ")  # pytest-bdd sets "<feature>: <scenario>"
            feature, line = locations.row_location(item) or (module, None)
            callspec = getattr(item, "callspec", None)
            example = callspec.params.get(locations.EXAMPLE_PARAM) if callspec is not None else None
            title = row_status.filled_title(title, example) if separator else item.name
            self.results[scenario] = row_status.new_row(scenario, feature, title, line,
                                                        clauses_of(item, self.clause_texts))
        return self.results[scenario]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Every selected scenario has a row from the start: one never reached stays NOTRUN."""
        for item in session.items:
            if (scenario := scenario_id_of(item)) is not None:
                self._row(item, scenario)
        interruption.arm()  # a worker's deferred signal interrupts now, with every row NOTRUN

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
        if call.excinfo is not None:
            row_status.drop_harness_frames(call.excinfo)
        made = yield
        report: pytest.TestReport = made.get_result()  # type: ignore[attr-defined]
        scenario = scenario_id_of(item)
        if scenario is None:
            return
        self.running = None if report.when == "teardown" else scenario
        error = call.excinfo.value if call.excinfo is not None else None
        row_status.after_phase(self._row(item, scenario), report, error, port_of(self.config).fault)
        failure_details.add_details(self._row(item, scenario), item, port_of(self.config))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        path = self.config.getoption("--rr-report")
        if not path:
            return
        stopped = self._interruption(session, exitstatus)
        if stopped is not None and self.running in self.results:
            row_status.interrupted_while_running(self.results[self.running], stopped["reason"])
        info = port_of(self.config).info
        if info is not None:
            self.implementation = {"name": info.name, "version": info.version, "language": info.language}
        header: dict[str, Any] = {
            "type": "header",
            "suite_version": __version__,
            "contract_version": reports.CONTRACT_VERSION,
            "protocol_version": PROTOCOL_VERSION,
            "implementation": self.implementation or dict(reports.UNKNOWN_IMPLEMENTATION),
            "run_info": {
                "os": platform.system(),
                "python": platform.python_version(),
                "adapter": self.config.getoption("--rr-stdio") or self.config.getoption("--rr-adapter"),
                **_platform_info(self.config),
            },
            "started": self.started,
        }
        if (shard := machine_shard_of(self.config)) is not None:
            header["shard"] = {"index": shard.index, "count": shard.count, "selection": _selection_text(self.config)}
        expectations = self.config.pluginmanager.get_plugin("recall-rebase-expectations")
        if self.config.getoption("--rr-expectations") and expectations is not None:
            manifest = expectations.manifest  # the one the run judged by, read once at configure
            header["expectations"] = {"implementation": manifest.implementation, "entries": len(manifest.expectations)}
        results = [self.results[key] for key in sorted(self.results)]
        reports.write_report(Path(path), reports.Report(header, results, reports.summary_line(header, results, stopped)))

    def _interruption(self, session: pytest.Session, exitstatus: int) -> dict[str, str] | None:
        """Why the run stopped early: a signal, or a port that could not be (re)started."""
        if (failure := port_of(self.config).start_failure) is not None:
            return {"reason": PORT_START_FAILED, "message": f"{failure.code}: {failure.message}"}
        if exitstatus != pytest.ExitCode.INTERRUPTED:
            return None
        reason = interruption.received() or "SIGINT"  # a bare KeyboardInterrupt is Ctrl-C
        return {"reason": reason, "message": f"the run was interrupted by {reason}"}


def _selection_text(config: pytest.Config) -> str:
    """The run's selection as ``conformance merge`` compares it: ``--id``, ``--area``, ``--tag``, ``-k``."""
    keyword = config.getoption("keyword")
    return " ".join(part for part in (_selection(config).describe(), f"-k {keyword}" if keyword else "") if part)


def _platform_info(config: pytest.Config) -> dict[str, str]:
    """The header's ``platform`` the tags were judged against and where it came from."""
    platform, declared = run_platform(config)
    return {"platform": platform.value, "platform_from": "hello" if declared else "runner"}
