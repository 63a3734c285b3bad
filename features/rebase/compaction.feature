Feature: Compaction and a running rebase exclude each other
  Spec: [contract.md](../../docs/spec/contract.md) [§6.16](../../docs/spec/contract.md#616-compaction-and-rebase-exclude-each-other), [§6.12](../../docs/spec/contract.md#612-inter-process-lock) (in-process guard), [§6.2](../../docs/spec/contract.md#62-preconditions-and-their-blocking-codes-evaluated-in-this-order) step 7; [decisions.md](../../docs/spec/decisions.md) [D9](../../docs/spec/decisions.md#d9-the-host)
  While a rebase is active in the host process, Pi's session_before_compact is answered with
  {cancel: true}; so it is when the compaction's abort signal has already fired. Otherwise the
  hook does not cancel, and once a rebase has ended, whatever its outcome, compaction is allowed
  again. Pi asks the hook with rebase.beforeCompact; to ask it while a rebase runs, rebase.run
  with compactDuringActivation asks it while Pi's switchSession awaits (the rebase holds its lock
  and is active there) and returns the answers as compactionAnswers.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-compact","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"task","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """

  @id:COMPACT-001
  @clause:C6.12-14 @clause:C6.16-2
  Scenario: While a rebase runs, the before-compaction hook cancels the compaction
    When the rebase host opens the current session
    And a rebase is asked while Pi asks the before-compaction hook during the session switch
    Then the before-compaction hook was asked once during the rebase and answered cancel
    And the rebase result is verified and the session was replaced

  @id:COMPACT-002
  @clause:C6.16-2
  Scenario: Once the compaction's abort signal has fired, the hook cancels, with or without a rebase
    When the rebase host opens the current session
    And Pi asks the before-compaction hook with its abort signal fired
    Then the before-compaction hook answered cancel
    When a rebase is asked while Pi asks the before-compaction hook during the session switch
    Then the before-compaction hook was asked once during the rebase and answered cancel
    When Pi asks the before-compaction hook with its abort signal fired
    Then the before-compaction hook answered cancel

  @id:COMPACT-003
  @clause:C6.16-2
  Scenario: With no rebase running and a live abort signal, the hook does not cancel
    When the rebase host opens the current session
    And Pi asks the before-compaction hook
    Then the before-compaction hook did not cancel
    When Pi asks the before-compaction hook with its abort signal live
    Then the before-compaction hook did not cancel

  @id:COMPACT-004
  @clause:C6.10-8 @clause:C6.16-2
  Scenario: After a rebase that succeeded, the hook does not cancel
    When the rebase host opens the current session
    And a rebase is asked while Pi asks the before-compaction hook during the session switch
    Then the rebase result is verified and the session was replaced
    When Pi asks the before-compaction hook
    Then the before-compaction hook did not cancel

  @id:COMPACT-005
  @clause:C6.9-10 @clause:C6.10-8 @clause:C6.12-14 @clause:C6.16-2
  Scenario: After a rebase whose activation failed, the hook does not cancel
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked while Pi asks the before-compaction hook during the session switch
    Then the before-compaction hook was asked once during the rebase and answered cancel
    And the rebase result is recoverable with code "activation-cancelled"
    When Pi asks the before-compaction hook
    Then the before-compaction hook did not cancel

  @id:COMPACT-006
  @clause:C6.2-21 @clause:C6.10-8
  Scenario: After a rebase refused before its checkpoint, the hook does not cancel
    When another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And a rebase is asked while Pi asks the before-compaction hook during the session switch
    Then the rebase result is unavailable with code "rebase-busy"
    And the before-compaction hook was not asked during the rebase
    When Pi asks the before-compaction hook
    Then the before-compaction hook did not cancel

  @id:COMPACT-007
  @clause:C6.10-8 @clause:C6.16-2
  Scenario: After a dry run and after a recovery, the hook does not cancel
    When the rebase host opens the current session
    And a rebase dry run is asked
    And Pi asks the before-compaction hook
    Then the before-compaction hook did not cancel
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase host facts change to:
      """
      {"activation": "switch"}
      """
    And the rebase operation is recovered while Pi asks the before-compaction hook during the session switch
    Then the before-compaction hook was asked once during the rebase and answered cancel
    And the rebase result is verified and the session was replaced
    When Pi asks the before-compaction hook
    Then the before-compaction hook did not cancel
