Feature: Session rebase moves a long session onto a verified target and never touches the source
  Spec: [contract.md](../../docs/spec/contract.md) [§6.1](../../docs/spec/contract.md#61-entry-points), [§6.2](../../docs/spec/contract.md#62-preconditions-and-their-blocking-codes-evaluated-in-this-order), [§6.3](../../docs/spec/contract.md#63-what-complete-canonical-source-means), [§6.5](../../docs/spec/contract.md#65-operation-identity-journal-file-and-phases), [§6.7](../../docs/spec/contract.md#67-dry-run), [§6.8](../../docs/spec/contract.md#68-target-staging-and-no-overwrite-installation), [§6.9](../../docs/spec/contract.md#69-activation-and-verification), [§6.10](../../docs/spec/contract.md#610-failure-handling-the-recoverable-state), [§6.17](../../docs/spec/contract.md#617-complete-list-of-rebase-codes), [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) cases 1, 8, 13, 15, 16; [decisions.md](../../docs/spec/decisions.md) [D1](../../docs/spec/decisions.md#d1-compatibility-target), [D8](../../docs/spec/decisions.md#d8-failed-checkpoint-building-writes-no-journal), [D9](../../docs/spec/decisions.md#d9-the-host)
  A rebase is a command. It checks the gates and the source archive in the contract's order,
  builds a deterministic checkpoint, writes a new target session beside the source and switches
  to it. A dry run does every check and writes nothing. The source JSONL is never written, and
  a result never holds a path, a tool id or a message body. Results are checked against
  schemas/rebase/rebase-result.schema.json.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-rebase","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted, the export keeps its column."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767225602000}}
      {"type":"compaction","id":"compact","parentId":"answer","timestamp":"2026-01-01T00:00:03.000Z","summary":"The export work so far.","firstKeptEntryId":"answer","tokensBefore":100}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """

  @id:REBASE-001
  @clause:C6.1-9 @clause:C6.1-11 @clause:C6.1-12 @clause:C6.4-11 @clause:C6.7-2 @clause:C6.7-3 @clause:C6.8-19 @clause:C8.3-48
  Scenario: A dry run returns a preview with the counts and writes nothing
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is a preview
    And the rebase result counts the source's entries and bytes
    And the rebase result preserves 0 pins and 0 memories
    And the rebase result carries the three limitations as its warnings
    And the tool exchange diagnostics count 0 active and 0 historical issues
    And no rebase operations folder exists
    And no rebase target exists
    And the rebase source is still the host's current session
    And the rebase source is byte-identical to before

  @id:REBASE-002
  @clause:C0.3-6 @clause:C6.1-9 @clause:C6.1-11 @clause:C6.1-12 @clause:C6.1-15 @clause:C6.5-41 @clause:C6.6-33 @clause:C6.8-19 @clause:C6.9-8 @clause:C6.9-10 @clause:C8.1-3
  Scenario: A rebase is verified, replaces the session and leaves the source bytes unchanged
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the rebase result counts the source's entries and bytes
    And the rebase result carries the three limitations as its warnings
    And the rebase journal phase is "Verified"
    And the rebase source is byte-identical to before

  @id:REBASE-003
  @clause:C6.1-17 @clause:C8.3-44
  Scenario: No rebase result names the source path, a tool id or a message body
    When the rebase host opens the current session
    And a rebase dry run is asked
    And a rebase is asked
    And the rebase service is asked directly for a rebase
    Then the rebase results name no path, tool id or message body

  @id:REBASE-004
  @clause:C0.3-8 @clause:C0.3-13 @clause:C6.5-16 @clause:C6.5-17 @clause:C6.8-8 @clause:C6.8-9 @clause:C6.8-10 @clause:C6.8-12 @clause:C6.8-14 @clause:C6.9-4 @clause:C8.3-34 @clause:D1-1 @clause:P1.2-1
  Scenario: The target is ds4-rebase_<32 hex>.jsonl beside the source, a version 3 session whose parentSession is the source
    When the rebase host opens the current session
    And a rebase is asked
    Then exactly one rebase target exists, named after the operation, beside the source
    And the rebase target header is version 3, names the canonical source as parentSession and the project as cwd
    And the rebase target ends with a newline and holds one checkpoint, one link and one handoff entry
    And the rebase target is the host's current session

  @id:REBASE-005
  @clause:C1.2-1 @clause:C1.3-1 @clause:C6.2-39 @clause:C6.2-1 @clause:C6.2-7 @clause:C6.2-8 @clause:C6.2-10 @clause:C6.2-11 @clause:C6.16-1 @clause:C6.17-1 @clause:C6.17-2 @clause:C8.1-9
  Scenario Outline: The first failing gate decides the code, in the contract's order
    Given the global history configuration:
      """
      <config>
      """
    When the rebase host opens the current session with these facts:
      """
      <facts>
      """
    And a rebase is asked
    Then the rebase result is unavailable with code "<code>"
    And no rebase operations folder exists
    And no rebase target exists
    And the rebase source is byte-identical to before

    Examples:
      | case                    | config                                                 | facts                                                 | code                      |
      | runtime                 | {}                                                     | {"runtimeAvailable": false, "compactionActive": true} | runtime-unavailable       |
      | disabled                | {"enabled": false}                                     | {"compactionActive": true}                            | disabled                  |
      | rebase-disabled         | {"sessionRebase": {"enabled": false}}                  | {"compactionActive": true}                            | disabled                  |
      | history-tools           | {"historyTools": {"enabled": false}}                   | {"compactionActive": true}                            | history-tools-required    |
      | compaction              | {}                                                     | {"compactionActive": true, "idle": false}             | compaction-or-rebase-busy |
      | not-idle                | {}                                                     | {"idle": false}                                       | session-busy              |
      | pending                 | {}                                                     | {"pendingMessages": true}                             | session-busy              |
      | disabled-before-history | {"enabled": false, "historyTools": {"enabled": false}} | {}                                                    | disabled                  |

  @id:REBASE-006
  @clause:C6.2-9 @clause:C6.17-2 @clause:C8.1-9
  Scenario: An untrusted project is refused before the busy checks
    Given an untrusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-untrusted","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"only","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Untrusted work","timestamp":1767225601000}}
      """
    When the rebase host opens the current session with these facts:
      """
      {"compactionActive": true}
      """
    And a rebase is asked
    Then the rebase result is unavailable with code "project-untrusted"
    And no rebase operations folder exists

  @id:REBASE-007
  @clause:C1.3-10 @clause:C6.2-39 @clause:C6.2-6 @clause:C6.17-1 @clause:D9-1
  Scenario: Without a usable memory bridge a session holding pins is refused with memory-state-required
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-memory","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m1","operation":"add","createdAt":1767225602000,"item":{"id":"pin-session","scope":"session","content":"Keep LastExportUtc","createdAt":1767225602000}},"id":"p1","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z"}
      {"type":"message","id":"task","parentId":"p1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """
    When the rebase host opens the current session with these facts:
      """
      {"memoryBridge": false, "compactionActive": true}
      """
    And a rebase is asked
    Then the rebase result is unavailable with code "memory-state-required"
    And no rebase operations folder exists

  @id:REBASE-008
  @clause:C6.2-6
  Scenario: Without a memory bridge a session with no pin or memory entries still rebases
    When the rebase host opens the current session with these facts:
      """
      {"memoryBridge": false}
      """
    And a rebase dry run is asked
    Then the rebase result is a preview

  @id:REBASE-009
  @clause:C6.2-5 @clause:C6.2-12 @clause:C6.13-42 @clause:C6.17-2 @clause:C8.3-49
  Scenario: A session with no file is a lineage failure through the runtime and ephemeral-session in the service
    When the rebase host opens a session that has no file
    And a rebase is asked
    Then the rebase result is unavailable with code "lineage-integrity-unavailable"
    When the rebase service is asked directly for a rebase
    Then the rebase result is unavailable with code "ephemeral-session"

  @id:REBASE-010
  @clause:C6.2-22 @clause:C6.3-1 @clause:C6.17-5 @clause:D12-1
  Scenario: A version 2 source is refused before anything could migrate it, and its bytes stay as they were
    Given the current history session with these lines:
      """
      {"type":"session","version":2,"id":"s-legacy","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Legacy work","timestamp":1767225601000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "unsupported-source-version"
    And the rebase source is byte-identical to before
    And no rebase operations folder exists

  @id:REBASE-011
  @clause:C6.2-23
  Scenario: A source whose header cwd is another folder is refused with source-scope-mismatch
    Given the history project has a subfolder "elsewhere"
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-scope","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}/elsewhere"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Work in a subfolder","timestamp":1767225601000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "source-scope-mismatch"

  @id:REBASE-012
  @clause:C6.2-24 @clause:C6.3-1 @clause:C6.17-5 @clause:C8.1-9
  Scenario: A malformed line anywhere in the source is archive-incomplete
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-malformed","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Before the damage","timestamp":1767225601000}}
      {"type":"message","id":"torn","parentId":"old",
      {"type":"message","id":"task","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"After the damage","timestamp":1767225604000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "archive-incomplete"
    And the rebase source is byte-identical to before

  @id:REBASE-013
  @clause:C6.2-24 @clause:C6.3-1 @clause:C6.7-1
  Scenario: An unterminated last line is archive-incomplete in a dry run and in a real run
    When the current session file gets this line appended without a newline: {"partial":
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "archive-incomplete"
    When a rebase is asked
    Then the rebase result is unavailable with code "archive-incomplete"
    And no rebase operations folder exists
    And the rebase source is byte-identical to before

  @id:REBASE-014
  @clause:C6.2-25 @clause:C6.3-1 @clause:C6.17-5
  Scenario Outline: Entries that are not valid Pi entries with unique ids are archive-invalid-ids
    When the current session file gets these lines appended:
      """
      <line>
      """
    And the rebase host opens the current session at leaf "task"
    And a rebase is asked
    Then the rebase result is unavailable with code "archive-invalid-ids"
    And no rebase operations folder exists

    Examples:
      | case              | line                                                                                                                                                                 |
      | duplicate-id      | {"type":"message","id":"old","parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Same id again","timestamp":1767225605000}} |
      | missing-timestamp | {"type":"message","id":"late","parentId":"task","message":{"role":"user","content":"No timestamp","timestamp":1767225605000}}                                        |
      | numeric-parent    | {"type":"message","id":"late","parentId":7,"timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Odd parent","timestamp":1767225605000}}        |
      | missing-type      | {"id":"late","parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"No type","timestamp":1767225605000}}                       |
      | numeric-type      | {"type":7,"id":"late","parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Odd type","timestamp":1767225605000}}            |

  @id:REBASE-015
  @clause:C6.2-26 @clause:C6.17-5
  Scenario: A session with a header and no entry has no leaf: source-empty
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-empty","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      """
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "source-empty"

  @id:REBASE-016
  @clause:C6.2-27 @clause:C6.3-1 @clause:C6.17-5
  Scenario Outline: A leaf whose ancestry does not reach a root is archive-branch-invalid
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-branch","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":<root parent>,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Root message","timestamp":1767225601000}}
      {"type":"message","id":"task","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "archive-branch-invalid"
    And no rebase operations folder exists

    Examples:
      | case           | root parent |
      | missing-parent | "ghost"     |
      | self-cycle     | "old"       |

  @id:REBASE-017
  @clause:C6.2-37 @clause:C6.5-5 @clause:C6.7-1 @clause:C6.17-6
  Scenario: A second plain rebase of the unchanged source, dry run included, must use recovery
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "operation-exists-use-recover"
    When a rebase is asked
    Then the rebase result is unavailable with code "operation-exists-use-recover"
    And exactly one rebase target exists, named after the operation, beside the source
    And the rebase journal phase is "Verified"

  @id:REBASE-018
  @clause:C6.2-26 @clause:C6.2-28 @clause:C6.5-1 @clause:C6.6-21 @clause:D9-1
  Scenario: The host's active leaf is captured, not the last line of the file
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"sibling","parentId":"compact","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"WRONG_SIBLING_PAYLOAD","timestamp":1767225605000}}
      """
    And the rebase host opens the current session at leaf "task"
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the rebase operation id is the one derived from the source session id, leaf and SHA-256
    And the checkpoint captures the source at leaf "task" with 1 compaction
    And the handoff contains "Continue the implementation"
    And the handoff does not contain "WRONG_SIBLING_PAYLOAD"

  @id:REBASE-019
  @clause:C6.2-38 @clause:C6.6-19 @clause:C6.7-1 @clause:C6.7-4 @clause:C6.17-7 @clause:C8.3-27 @clause:D8-1
  Scenario: A handoff over the token budget writes nothing, so a bigger budget can rebase later
    Given the current history session also holds a user message "long" of 4000 "x" characters
    And the global history configuration:
      """
      {"sessionRebase": {"checkpointTargetTokens": 512}}
      """
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "checkpoint-budget"
    When a rebase is asked
    Then the rebase result is unavailable with code "checkpoint-budget"
    And no rebase operations folder exists
    And no rebase target exists
    When the global history configuration is changed to:
      """
      {"sessionRebase": {"checkpointTargetTokens": 8000}}
      """
    And the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced

  @id:REBASE-020
  @clause:C6.1-9 @clause:C6.9-10 @clause:C6.10-2 @clause:C6.10-3 @clause:C6.10-6 @clause:C6.10-8 @clause:C6.17-8 @clause:C8.1-9 @clause:C8.3-36 @clause:D9-1
  Scenario: A cancelled session switch leaves a Recoverable journal and the source active
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    Then the rebase result is recoverable with code "activation-cancelled"
    And the rebase result reports session replaced false
    And the rebase journal phase is "Recoverable"
    And the rebase journal records the error code "activation-cancelled"
    And the rebase source is still the host's current session
    And exactly one rebase target exists, named after the operation, beside the source
    And the rebase source is byte-identical to before

  @id:REBASE-021
  @clause:C6.2-38 @clause:C6.9-5 @clause:C6.9-6 @clause:C6.10-6 @clause:C6.17-8 @clause:C8.3-36 @clause:D9-1
  Scenario: A switch that opens a session with another id is target-identity, Recoverable
    When the rebase host opens the current session with these facts:
      """
      {"activation": "foreign-session"}
      """
    And a rebase is asked
    Then the rebase result is recoverable with code "target-identity"
    And the rebase result reports session replaced false
    And the rebase journal phase is "Recoverable"
    And the rebase journal records the error code "target-identity"
    And the rebase source is byte-identical to before

  @id:REBASE-024
  @clause:C6.1-6 @clause:C6.1-7 @clause:C6.9-8
  Scenario: A replaced session shows an info notification naming the operation; a dry run shows none
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the host showed no notification
    When a rebase is asked
    Then the host showed one info notification naming the operation

  @id:REBASE-025
  @clause:C6.1-6 @clause:C6.1-8 @clause:C6.9-9
  Scenario: A failure inside the fresh session context shows a warning notification naming the operation
    When the rebase host opens the current session with these facts:
      """
      {"activation": "foreign-session"}
      """
    And a rebase is asked
    Then the rebase result is recoverable with code "target-identity"
    And the host showed one warning notification naming the operation

  @id:REBASE-022 @planted:AUDIT-013
  @clause:C6.2-2 @clause:C6.2-3 @clause:C6.3-1 @clause:C6.13-41 @clause:C6.17-1
  Scenario: A current session whose own lineage does not verify is refused by the runtime
    When the rebase host opens the current session
    And a rebase is asked
    And the checkpoint data in the rebase target is edited, "Continue the implementation" becoming "Abandon the implementation"
    And the rebase host opens the rebase target
    And a rebase is asked
    Then the rebase result is unavailable with code "lineage-integrity-unavailable"

  @platform:posix @needs:symlink
  @id:REBASE-023
  @clause:C6.5-3 @clause:C6.5-4 @clause:C6.5-17
  Scenario: A symbolic link alias of the source is the same operation, with its target beside the real file
    When the rebase host opens the current session through the symbolic link "aliases/alias.jsonl"
    And a rebase dry run is asked
    And the rebase operation id is remembered
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase operation id is the remembered one
    When the rebase host opens the current session through the symbolic link "aliases/alias.jsonl"
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And exactly one rebase target exists, named after the operation, beside the source
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "operation-exists-use-recover"
    And the rebase source is byte-identical to before

  @id:REBASE-026
  @clause:C6.2-3 @clause:C6.2-6
  Scenario: A session whose lineage fails and that holds pins without a memory bridge is a lineage failure first
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-two-faults","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"custom","customType":"ds4-rebase-link-v1","data":{"schemaVersion":1,"checkpointId":"checkpoint_00000000000000000000000000000000"},"id":"forged","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m1","operation":"add","createdAt":1767225603000,"item":{"id":"pin-session","scope":"session","content":"Keep LastExportUtc","createdAt":1767225603000}},"id":"p1","parentId":"forged","timestamp":"2026-01-01T00:00:03.000Z"}
      {"type":"message","id":"task","parentId":"p1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """
    When the rebase host opens the current session with these facts:
      """
      {"memoryBridge": false}
      """
    And a rebase is asked
    Then the rebase result is unavailable with code "lineage-integrity-unavailable"
    And no rebase operations folder exists

  @id:REBASE-027
  @clause:C6.2-42 @clause:C6.2-22 @clause:C6.2-23
  Scenario: A version 2 source whose header cwd is another folder is unsupported-source-version, checked first
    Given the current history session with these lines:
      """
      {"type":"session","version":2,"id":"s-legacy-elsewhere","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/elsewhere/project"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Legacy work","timestamp":1767225601000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "unsupported-source-version"
    And the rebase source is byte-identical to before

  @id:REBASE-028
  @clause:C6.2-42 @clause:C6.2-24 @clause:C6.2-25
  Scenario: A source with a duplicate id and a malformed line is archive-incomplete, checked before the ids
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-two-damages","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Before the damage","timestamp":1767225601000}}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"The same id again","timestamp":1767225602000}}
      {"type":"message","id":"torn","parentId":"old",
      {"type":"message","id":"task","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"After the damage","timestamp":1767225604000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "archive-incomplete"
    And the rebase source is byte-identical to before

  @id:REBASE-029
  @clause:C6.2-29
  Scenario: Called directly, the service refuses a source that is a rebase target whose own lineage does not verify
    When the rebase host opens the current session
    And a rebase is asked
    And the checkpoint data in the rebase target is edited, "Continue the implementation" becoming "Abandon the implementation"
    And the rebase host opens the rebase target
    And the rebase service is asked directly for a rebase
    Then the rebase result is unavailable with code "lineage-integrity-unavailable"
    And exactly one rebase target exists, named after the operation, beside the source

  @id:REBASE-030
  @clause:C6.8-13 @clause:C6.8-14
  Scenario: Every line of the target is the compact JSON of one record, and the file ends with a newline
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And every line of the rebase target is compact JSON

  @id:REBASE-031
  @clause:C6.9-11 @clause:C6.9-3
  Scenario: Recovery onto a target whose staged bytes are intact but whose leaf holds no checkpoint is target-integrity
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase target gets these lines appended:
      """
      {"type":"message","id":"c0ffee02","parentId":null,"timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"user","content":"A new root in the target","timestamp":1767312000000}}
      """
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "target-integrity"
    And the rebase journal phase is "Recoverable"
    And the rebase source is still the host's current session

  @id:REBASE-032
  @clause:C6.1-7 @clause:C6.1-8
  Scenario: The info notification says the source is preserved and verification unknown; the warning one warns against deleting the source
    When the rebase host opens the current session
    And a rebase is asked
    Then the host showed one info notification naming the operation
    And the info notification also mentions "source preserved verification unknown"
    When the rebase host opens the current session with these facts:
      """
      {"activation": "foreign-session"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "target-identity"
    And the host showed one warning notification naming the operation
    And the warning notification also mentions "delete source"

  @id:REBASE-033
  @clause:C6.2-25
  Scenario: A second session record inside the source is skipped, not taken for an entry
    When the current session file gets these lines appended:
      """
      {"type":"session","version":3,"id":"s-rebase-again","timestamp":"2026-01-01T00:00:05.000Z","cwd":"{cwd}"}
      """
    And the rebase host opens the current session at leaf "task"
    And a rebase dry run is asked
    Then the rebase result is a preview
    And the rebase result counts the source's entries and bytes

  @id:REBASE-034
  @clause:C6.2-23
  Scenario: A source whose header cwd is not a string is refused with source-scope-mismatch
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-cwd-number","timestamp":"2026-01-01T00:00:00.000Z","cwd":7}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Work with an odd header","timestamp":1767225601000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "source-scope-mismatch"
    And no rebase operations folder exists
    And the rebase source is byte-identical to before

  @id:REBASE-035
  @clause:C6.2-25
  Scenario Outline: An entry whose id is missing or not a string is archive-invalid-ids
    When the current session file gets these lines appended:
      """
      <line>
      """
    And the rebase host opens the current session at leaf "task"
    And a rebase is asked
    Then the rebase result is unavailable with code "archive-invalid-ids"
    And no rebase operations folder exists

    Examples:
      | case       | line                                                                                                                                                    |
      | missing-id | {"type":"message","parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"No id","timestamp":1767225605000}}          |
      | numeric-id | {"type":"message","id":5,"parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Odd id","timestamp":1767225605000}} |
