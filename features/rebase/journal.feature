Feature: The rebase journal is the durable, metadata-only record of one operation
  Spec: [contract.md](../../docs/spec/contract.md) [§6.2](../../docs/spec/contract.md#62-preconditions-and-their-blocking-codes-evaluated-in-this-order) steps 11-13, [§6.5](../../docs/spec/contract.md#65-operation-identity-journal-file-and-phases), [§6.10](../../docs/spec/contract.md#610-failure-handling-the-recoverable-state), [§6.11](../../docs/spec/contract.md#611-recovery-algorithm---recover-operationid), [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) cases 2, 4; [decisions.md](../../docs/spec/decisions.md) [D1](../../docs/spec/decisions.md#d1-compatibility-target), [D2](../../docs/spec/decisions.md#d2-json-bytes)
  One compact JSON.stringify object at <source dir>/.ds4-rebase/operations/<id>.json, no trailing
  newline, at most 32,000 bytes, durably replaced at every phase. Recovery refuses a journal that
  is missing, oversized, not JSON, or that names another operation, schema or source file.
  Journals are checked against schemas/rebase/journal.schema.json.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-journal","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted, the export keeps its column."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767225602000}}
      {"type":"compaction","id":"compact","parentId":"answer","timestamp":"2026-01-01T00:00:03.000Z","summary":"The export work so far.","firstKeptEntryId":"answer","tokensBefore":100}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """

  @id:JOURNAL-001
  @clause:C0.2-4 @clause:C0.3-11 @clause:C6.5-43 @clause:C6.5-7 @clause:C6.5-8 @clause:C6.5-10 @clause:C6.5-11 @clause:C6.5-12 @clause:C6.5-13 @clause:C6.5-14 @clause:C6.5-15 @clause:C6.5-16 @clause:C6.5-17 @clause:C6.5-18 @clause:C6.5-19 @clause:C6.5-20 @clause:C6.5-27 @clause:C8.3-44 @clause:D1-1
  Scenario: After a verified rebase the journal describes the source, the target and the operation
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase journal phase is "Verified"
    And the rebase journal describes the source, the target and the operation
    And the rebase journal was created and last updated at 1767229200000 ms

  @id:JOURNAL-002
  @clause:C0.2-3 @clause:C6.5-20 @clause:D2-1
  Scenario: The journal is compact JSON with no trailing newline
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase journal is compact JSON of at most 32,000 bytes with no trailing newline

  @id:JOURNAL-003
  @clause:C0.2-2 @clause:C6.5-34 @clause:C6.8-15
  Scenario: The journal's target fingerprint is the size and SHA-256 of the installed target
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase journal holds the target fingerprint of the file on disk

  @id:JOURNAL-004
  @clause:C6.5-20 @clause:C6.5-27 @clause:C6.10-2 @clause:C6.10-3
  Scenario: A failure after the journal exists leaves a Recoverable journal that records the code
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    Then the rebase journal phase is "Recoverable"
    And the rebase journal records the error code "activation-cancelled"
    And the rebase journal is compact JSON of at most 32,000 bytes with no trailing newline

  @id:JOURNAL-005
  @clause:C0.3-6 @clause:C6.2-14 @clause:C6.17-3
  Scenario Outline: An operation id that is not rebase_ and 32 lower-case hex is invalid-operation
    When the rebase host opens the current session
    And recovery of the operation "<id>" is asked
    Then the rebase result is unavailable with code "invalid-operation"
    And no rebase operations folder exists

    Examples:
      | case       | id                                      |
      | short      | rebase_1234                             |
      | upper-case | rebase_0123456789ABCDEF0123456789ABCDEF |
      | no-prefix  | 0123456789abcdef0123456789abcdef        |
      | path       | rebase_../../0123456789abcdef0123456789 |
      | empty      |                                         |

  @id:JOURNAL-006 @planted:AUDIT-014,AUDIT-016
  @clause:C6.2-15 @clause:C6.17-3
  Scenario: Recovering an operation whose journal is missing is operation-unavailable
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal is deleted
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "operation-unavailable"

  @id:JOURNAL-007 @planted:AUDIT-012
  @clause:C6.2-15 @clause:C6.5-20 @clause:C8.3-7 @clause:C8.4-3
  Scenario: A journal over 32,000 bytes is operation-unavailable
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal is padded with spaces to 32001 bytes
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "operation-unavailable"

  @id:JOURNAL-008 @planted:AUDIT-012,AUDIT-014,AUDIT-016
  @clause:C6.2-15 @clause:C6.10-1 @clause:C6.17-9
  Scenario: A journal that is not JSON is rebase-unavailable
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal is replaced by the text "{not json"
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "rebase-unavailable"

  @id:JOURNAL-009 @planted:AUDIT-012,AUDIT-013,AUDIT-016
  @clause:C6.2-41 @clause:C6.2-16 @clause:C6.2-17 @clause:C6.2-18 @clause:C6.17-3
  Scenario Outline: A journal edited to name another operation, schema or source file is operation-integrity
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal field "<field>" is changed to <value>
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "operation-integrity"
    And the rebase source is byte-identical to before

    Examples:
      | case           | field             | value                                     |
      | id             | id                | "rebase_0123456789abcdef0123456789abcdef" |
      | schema-version | schemaVersion     | 2                                         |
      | source-alias   | sourceSessionFile | "{source}/../current.jsonl"               |

  @id:JOURNAL-010 @planted:AUDIT-013,AUDIT-016
  @clause:C6.2-41 @clause:C6.2-20
  Scenario: A journal whose target lies outside the source folder is operation-integrity
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal field "targetSessionFile" is changed to "/elsewhere/ds4-rebase_0123456789abcdef0123456789abcdef.jsonl"
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "operation-integrity"

  @id:JOURNAL-011
  @clause:C6.2-36
  Scenario: A journal whose source session id is not the source header's is operation-integrity, found under the lock
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal field "sourceSessionId" is changed to "s-someone-else"
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "operation-integrity"
    And the rebase journal phase is "Recoverable"
    And the rebase source is byte-identical to before

  @id:JOURNAL-012
  @clause:C6.2-15 @clause:C6.5-20 @clause:C8.4-3 @clause:D3-1
  Scenario: A journal of exactly 32,000 bytes is still read, and the operation recovers
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal is padded with spaces to 32000 bytes
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase journal phase is "Verified"

  @id:JOURNAL-013
  @clause:C6.2-41 @clause:C6.2-19
  Scenario: A journal whose project path is another folder is operation-integrity
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal field "projectPath" is changed to "/elsewhere/project"
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "operation-integrity"

  @id:JOURNAL-014
  @clause:C6.5-44 @clause:C6.5-28
  Scenario: A phase write sets only the phase and updatedAt: a recovered operation keeps its error code
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase journal phase is "Verified"
    And the rebase journal records the error code "activation-cancelled"

  @id:JOURNAL-015
  @clause:C6.5-18 @clause:C6.5-44 @clause:C6.5-28
  Scenario: A later phase write moves updatedAt to its own time and keeps createdAt
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the clock moves on by 3600000 ms
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase journal was created at 1767229200000 ms and last updated at 1767232800000 ms

  @id:JOURNAL-016
  @clause:C6.2-31 @clause:C6.2-34
  Scenario: A journal whose source size reaches past the end of the source is archive-changed, though its hash is the whole source's
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase journal field "sourceSize" grows by 10
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "archive-changed"
    And the rebase source is still the host's current session

  @id:JOURNAL-017
  @clause:C6.2-31 @clause:C6.2-32
  Scenario: A journal recording a source prefix of 0 bytes, hashed as no bytes, is archive-changed
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase journal field "sourceSize" is changed to 0
    And the rebase journal field "sourceHash" is changed to "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "archive-changed"
    And the rebase source is still the host's current session

  @id:JOURNAL-018 @timeout:3
  @clause:C6.5-42
  Scenario Outline: Resuming onto an installed target skips the first four phase writes and goes on at verification
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And a recovery of the rebase operation crashes at "<point>" in a child process
    Then the child process exited with code <exit code>
    And the rebase journal phase is "<phase>"
    And exactly one rebase target exists, named after the operation, beside the source
    And the rebase source is byte-identical to before

    Examples:
      | case             | point           | exit code | phase     |
      | prepared         | Prepared        | 0         | Verified  |
      | archive-verified | ArchiveVerified | 0         | Verified  |
      | checkpoint-ready | CheckpointReady | 0         | Verified  |
      | target-created   | TargetCreated   | 0         | Verified  |
      | activated        | Activated       | 91        | Activated |
