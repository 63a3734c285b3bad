Feature: A rebase process that dies at any crash point loses nothing and recovers
  Spec: [contract.md](../../docs/spec/contract.md) [§6.5](../../docs/spec/contract.md#65-operation-identity-journal-file-and-phases) (durable write, phases), [§6.11](../../docs/spec/contract.md#611-recovery-algorithm---recover-operationid), [§6.12](../../docs/spec/contract.md#612-inter-process-lock), [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) case 6; [decisions.md](../../docs/spec/decisions.md) [D11](../../docs/spec/decisions.md#d11-crash-points)
  A crash is a real process exit without cleanup (exit code 91), armed through rebase.crash in a
  child process at one of the six journal phases or at the two points inside the target's
  durable write. The lock dies with the process. Recovery from the source then reaches Verified
  with exactly one target, and the source is never written.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-crash","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted, the export keeps its column."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767225602000}}
      {"type":"compaction","id":"compact","parentId":"answer","timestamp":"2026-01-01T00:00:03.000Z","summary":"The export work so far.","firstKeptEntryId":"answer","tokensBefore":100}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """

  @id:CRASH-001 @timeout:3
  @clause:C6.11-4 @clause:C6.11-8 @clause:C6.11-12 @clause:C6.11-13 @clause:C6.11-14 @clause:C6.12-10 @clause:C8.1-1 @clause:C8.1-3 @clause:D11-1
  Scenario Outline: A crash at a named point is recovered from the source to Verified, with one target
    When the rebase host opens the current session
    And a rebase crashes at "<point>" in a child process
    Then the child process exited with code 91
    And the rebase journal phase is "<journal phase>"
    And the rebase source is byte-identical to before
    When the history index file is deleted
    And the rebase host opens the current session
    And the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And the rebase operation id is the one derived from the source session id, leaf and SHA-256
    And exactly one rebase target exists, named after the operation, beside the source
    And no temporary file is left beside the rebase target
    And the rebase target entries validate against the rebase schemas
    And the rebase journal holds the target fingerprint of the file on disk
    And the rebase source is byte-identical to before
    When the rebase operation is recovered
    Then the rebase result is verified and the session was replaced
    And exactly one rebase target exists, named after the operation, beside the source

    Examples:
      | case             | point           | journal phase   |
      | prepared         | Prepared        | Prepared        |
      | archive-verified | ArchiveVerified | ArchiveVerified |
      | checkpoint-ready | CheckpointReady | CheckpointReady |
      | target-staged    | TargetStaged    | CheckpointReady |
      | target-installed | TargetInstalled | CheckpointReady |
      | target-created   | TargetCreated   | TargetCreated   |
      | activated        | Activated       | Activated       |
      | verified         | Verified        | Verified        |

  @id:CRASH-002 @timeout:3
  @clause:C6.12-10 @clause:D11-1
  Scenario: A crash leaves no lock behind: the kernel released it with the process
    When the rebase host opens the current session
    And a rebase crashes at "TargetCreated" in a child process
    Then the child process exited with code 91
    And the rebase lock of the current session is free

  @id:CRASH-003 @timeout:3
  @clause:C6.2-37 @clause:C6.5-5 @clause:C6.17-6
  Scenario: After a crash the same operation cannot be started again, only recovered
    When the rebase host opens the current session
    And a rebase crashes at "CheckpointReady" in a child process
    And a rebase is asked
    Then the rebase result is unavailable with code "operation-exists-use-recover"
    And the rebase journal phase is "CheckpointReady"

  @id:CRASH-004 @timeout:3
  @clause:C6.5-9 @clause:C6.5-24 @clause:C6.5-27 @clause:C6.5-29 @clause:C6.5-32 @clause:C6.5-33 @clause:C6.5-34 @clause:C6.5-35 @clause:C6.5-36 @clause:C6.5-37 @clause:C6.5-39 @clause:C6.5-41 @clause:C6.8-16 @clause:C6.8-17 @clause:C6.8-18 @clause:C6.9-6 @clause:D11-1
  Scenario Outline: What a crash leaves on disk shows each durable step in the contract's order
    When the rebase host opens the current session
    And a rebase crashes at "<point>" in a child process
    Then the child process exited with code 91
    And on disk the rebase journal phase is "<phase>", the fingerprint is <fingerprint>, the target is <target> and its temporary is <temporary>
    And the rebase source is byte-identical to before

    Examples:
      | case             | point           | phase           | fingerprint | target    | temporary |
      | prepared         | Prepared        | Prepared        | absent      | absent    | absent    |
      | archive-verified | ArchiveVerified | ArchiveVerified | absent      | absent    | absent    |
      | checkpoint-ready | CheckpointReady | CheckpointReady | recorded    | absent    | absent    |
      | target-staged    | TargetStaged    | CheckpointReady | recorded    | absent    | staged    |
      | target-installed | TargetInstalled | CheckpointReady | recorded    | installed | linked    |
      | target-created   | TargetCreated   | TargetCreated   | recorded    | installed | absent    |
      | activated        | Activated       | Activated       | recorded    | installed | absent    |
      | verified         | Verified        | Verified        | recorded    | installed | absent    |
