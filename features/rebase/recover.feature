Feature: Recovery finishes or re-verifies an operation, from the source or from the target
  Spec: [contract.md](../../docs/spec/contract.md) [§6.11](../../docs/spec/contract.md#611-recovery-algorithm---recover-operationid), [§6.2](../../docs/spec/contract.md#62-preconditions-and-their-blocking-codes-evaluated-in-this-order) steps 10-13, 24-25, [§6.9](../../docs/spec/contract.md#69-activation-and-verification), [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) cases 2-5; [decisions.md](../../docs/spec/decisions.md) [D1](../../docs/spec/decisions.md#d1-compatibility-target)
  Recovery re-validates the source against the journal's leaf, size and hash (the source may
  have grown: only the prefix must match), reuses an installed target after checking its staged
  bytes, or rebuilds the same target deterministically when none was installed. It is idempotent
  and never creates a second target.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-recover","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted, the export keeps its column."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767225602000}}
      {"type":"compaction","id":"compact","parentId":"answer","timestamp":"2026-01-01T00:00:03.000Z","summary":"The export work so far.","firstKeptEntryId":"answer","tokensBefore":100}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """

  @id:RECOVER-001
  @clause:C6.5-42 @clause:C6.11-8 @clause:C6.11-13 @clause:C8.1-3
  Scenario: A Recoverable operation recovered from the source is verified with the same operation id
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase operation id is remembered
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase operation id is the remembered one
    And the rebase journal phase is "Verified"
    And exactly one rebase target exists, named after the operation, beside the source
    And the rebase source is byte-identical to before

  @id:RECOVER-002
  @clause:C6.2-13 @clause:C6.11-1
  Scenario: Recovery from the target takes the source from its verified lineage
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase operation id is remembered
    And the rebase files are remembered
    And the rebase host opens the rebase target
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase operation id is the remembered one
    And the rebase target is byte-identical to the remembered one
    And exactly one rebase target exists, named after the operation, beside the source

  @id:RECOVER-003
  @clause:C6.5-42 @clause:C6.11-8 @clause:C6.11-14
  Scenario: Recovering a verified operation again is idempotent and creates no second target
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase files are remembered
    And the rebase operation is recovered
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase target is byte-identical to the remembered one
    And exactly one rebase target exists, named after the operation, beside the source
    And the rebase journal phase is "Verified"
    And the rebase source is byte-identical to before

  @id:RECOVER-004
  @clause:C6.6-1 @clause:C6.9-2 @clause:C6.11-14
  Scenario: A target the user appended to after activation still recovers; only the staged prefix counts
    When the rebase host opens the current session
    And a rebase is asked
    And a user message is appended to the rebase target
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase target still holds the appended message unchanged
    And the rebase source is byte-identical to before

  @id:RECOVER-005
  @clause:C6.5-38 @clause:C6.9-2 @clause:C6.10-3 @clause:C6.10-6 @clause:C6.10-8 @clause:C6.11-5 @clause:C6.11-14 @clause:C6.17-8
  Scenario: A changed staged byte fails with target-integrity even though lineage still verifies
    When the rebase host opens the current session
    And a rebase is asked
    And the timestamp of the checkpoint entry in the rebase target becomes "2000-01-01T00:00:00.000Z"
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "target-integrity"
    And the rebase journal phase is "Recoverable"
    And the rebase journal records the error code "target-integrity"
    And the rebase source is still the host's current session
    And the rebase source is byte-identical to before

  @id:RECOVER-006
  @clause:C6.5-42 @clause:C6.11-4 @clause:C6.11-8
  Scenario: A journal rewritten back to CheckpointReady still verifies with the installed target
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal field "phase" is changed to "CheckpointReady"
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase journal phase is "Verified"
    And exactly one rebase target exists, named after the operation, beside the source

  @id:RECOVER-007
  @clause:C6.11-3
  Scenario: A source that grew after the operation still recovers, because only its prefix must match
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the current history session grows by one user message
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase source still starts with its bytes from before
    And the rebase journal describes the source, the target and the operation

  @id:RECOVER-008
  @clause:C6.6-1 @clause:C6.11-11 @clause:C6.11-12
  Scenario: A target that was never installed is rebuilt byte for byte from the journal
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase files are remembered
    And the rebase target is deleted
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase target is byte-identical to the remembered one
    And the rebase journal phase is "Verified"

  @id:RECOVER-009
  @clause:C6.2-31 @clause:C6.2-35 @clause:C6.10-2 @clause:C6.10-3 @clause:C6.11-3 @clause:C6.17-5
  Scenario: A source whose captured prefix changed cannot be recovered: archive-changed
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the current session file is edited in place, "old original" becoming "new original"
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "archive-changed"
    And the rebase journal phase is "Recoverable"

  @id:RECOVER-010
  @clause:C6.6-2 @clause:C6.6-3 @clause:C6.6-4 @clause:C6.11-10 @clause:C6.17-7
  Scenario: A target never installed is not rebuilt once the source moved: source-moved-before-checkpoint
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase operation id is remembered
    And the rebase target is deleted
    And the current history session grows by one user message
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "source-moved-before-checkpoint"
    And the rebase operation id is the remembered one
    And no rebase target exists
    And the rebase journal phase is "Recoverable"
    And the rebase source still starts with its bytes from before

  @id:RECOVER-011
  @clause:C6.6-19 @clause:D8-1
  Scenario: A recovery whose rebuilt checkpoint no longer fits the budget writes nothing: the journal stays as it was
    Given the current history session also holds a user message "long" of 4000 "x" characters
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase target is deleted
    And the global history configuration is changed to:
      """
      {"sessionRebase": {"checkpointTargetTokens": 512}}
      """
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "checkpoint-budget"
    And the rebase journal phase is "Recoverable"
    And the rebase journal records the error code "activation-cancelled"
    And no rebase target exists

  @id:RECOVER-012
  @clause:C6.6-23 @clause:C6.11-11 @clause:C8.3-35
  Scenario: A target rebuilt later is byte for byte the one first staged: its times are the operation's
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase files are remembered
    And the rebase target is deleted
    And the clock moves on by 3600000 ms
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase target is byte-identical to the remembered one

  @id:RECOVER-013
  @clause:C6.6-2 @clause:C6.6-3 @clause:C6.11-10
  Scenario: A source that grew is a move even when Pi's leaf is still the captured one: source-moved-before-checkpoint
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel", "leaf": "task"}
      """
    And a rebase is asked
    And the rebase operation id is remembered
    And the rebase target is deleted
    And the current history session grows by one user message
    And the rebase host facts change to:
      """
      {"activation": "switch", "leaf": "task"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "source-moved-before-checkpoint"
    And the rebase operation id is the remembered one
    And no rebase target exists

  @id:RECOVER-014
  @clause:C6.2-18 @clause:C8.3-45
  Scenario: Recovery asked from an unrelated session of the same folder is operation-integrity, and the journal stays as it was
    Given the session "unrelated" beside the current one, with these lines:
      """
      {"type":"session","version":3,"id":"s-unrelated","timestamp":"2026-01-02T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-02T00:00:01.000Z","message":{"role":"user","content":"Another piece of work","timestamp":1767312001000}}
      """
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase operation id is remembered
    And the rebase host opens the session "unrelated" beside the current one
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "operation-integrity"
    And the rebase journal phase is "Recoverable"
    And the rebase journal records the error code "activation-cancelled"
    And the rebase source is byte-identical to before

  @id:RECOVER-015
  @clause:C6.11-7
  Scenario: An installed target that verifies but holds another operation's checkpoint fails recovery with target-integrity
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase files are remembered
    And the current history session grows by one user message
    And the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase target is replaced by the remembered one, the journal's target fingerprint following
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "target-integrity"
    And the rebase journal phase is "Recoverable"
    And the rebase journal records the error code "target-integrity"
    And the rebase source is still the host's current session
