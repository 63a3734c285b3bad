Feature: One inter-process lock per canonical source keeps two rebases of it apart
  Spec: [contract.md](../../docs/spec/contract.md) [§6.12](../../docs/spec/contract.md#612-inter-process-lock), [§6.2](../../docs/spec/contract.md#62-preconditions-and-their-blocking-codes-evaluated-in-this-order) step 14, [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) cases 16, 18; [decisions.md](../../docs/spec/decisions.md) [D1](../../docs/spec/decisions.md#d1-compatibility-target)
  The lock is an SQLite writer transaction (BEGIN IMMEDIATE) on
  <source dir>/.ds4-rebase/locks/<sha256(canonical source path)>.sqlite, the TypeScript
  implementation's scheme, so the two implementations exclude each other. Here a step holds it
  with Python's sqlite3 to stand for another process.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-lock","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"task","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """

  @id:LOCK-001
  @clause:C0.3-12 @clause:C6.2-21 @clause:C6.10-7 @clause:C6.12-2 @clause:C6.12-4 @clause:C6.12-7 @clause:C6.12-11 @clause:C6.17-4 @clause:D1-1
  Scenario: A lock held by another process makes a rebase rebase-busy, and nothing is written
    When another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "rebase-busy"
    And no rebase operations folder exists
    And no rebase target exists
    And the rebase source is byte-identical to before

  @id:LOCK-002
  @clause:C6.7-1 @clause:C6.12-7 @clause:C6.12-9
  Scenario: A dry run takes the lock too
    When another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "rebase-busy"

  @id:LOCK-003
  @clause:C6.12-7
  Scenario: Once the other process lets go, the rebase runs
    When another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And a rebase is asked
    And the other process releases the rebase lock
    And a rebase is asked
    Then the rebase result is verified and the session was replaced

  @id:LOCK-004
  @clause:C6.2-37 @clause:C6.10-8 @clause:C6.12-8
  Scenario: The lock is released after a run, whatever its outcome
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase lock of the current session is free
    When a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the rebase lock of the current session is free
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "operation-exists-use-recover"
    And the rebase lock of the current session is free

  @id:LOCK-005
  @clause:C6.11-2 @clause:C6.12-7 @clause:C6.17-4
  Scenario: A held lock also stops a recovery, which succeeds once the lock is free
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "rebase-busy"
    And the rebase journal phase is "Recoverable"
    When the other process releases the rebase lock
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced

  @platform:posix @needs:symlink
  @id:LOCK-006
  @clause:C6.5-4 @clause:C6.12-1 @clause:C6.12-13
  Scenario: A symbolic link alias of the source shares its lock and its operation id
    When the rebase host opens the current session
    And a rebase dry run is asked
    And the rebase operation id is remembered
    And another process holds the rebase lock of the current session
    And the rebase host opens the current session through the symbolic link "aliases/alias.jsonl"
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "rebase-busy"
    When the other process releases the rebase lock
    And a rebase dry run is asked
    Then the rebase result is a preview
    And the rebase operation id is the remembered one

  @id:LOCK-007
  @clause:C6.2-21 @clause:C6.2-22 @clause:C6.12-9
  Scenario: The lock is taken before the source is read: a held lock on a version 2 source is rebase-busy
    Given the current history session with these lines:
      """
      {"type":"session","version":2,"id":"s-lock-legacy","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Legacy work","timestamp":1767225601000}}
      """
    When another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "rebase-busy"
    And the rebase source is byte-identical to before

  @id:LOCK-008
  @clause:C6.2-13 @clause:C6.11-1 @clause:C6.11-2
  Scenario: A recovery started from the target takes the lock of the source it found in lineage
    When the rebase host opens the current session
    And a rebase is asked
    And another process holds the rebase lock of the current session
    And the rebase host opens the rebase target
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "rebase-busy"
    When the other process releases the rebase lock
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced

  @id:LOCK-009
  @clause:C0.2-5 @clause:C6.12-3
  Scenario: The lock key keeps the case of the canonical path (it is lower-cased on Windows only)
    When the current history session is renamed "Current-Session.jsonl"
    And another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "rebase-busy"

  @id:LOCK-010
  @clause:C6.2-15 @clause:C6.11-2 @clause:C6.12-9
  Scenario: A recovery checks its journal before it takes the lock: a missing journal is operation-unavailable even under a held lock
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase journal is deleted
    And another process holds the rebase lock of the current session
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is unavailable with code "operation-unavailable"

  @id:LOCK-011
  @clause:C6.12-6 @clause:C6.12-12
  Scenario: The lock file holds one empty lock_state table and nothing else, after a dry run and after a run
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase lock file of the current session holds one empty table, lock_state (id INTEGER PRIMARY KEY)
    When a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the rebase lock file of the current session holds one empty table, lock_state (id INTEGER PRIMARY KEY)
