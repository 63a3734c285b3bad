Feature: Lineage through a checkpoint that carries pins and memories (issue 14, docs/suite-strength.md)
  Spec: [contract.md](../../docs/spec/contract.md) [§6.13](../../docs/spec/contract.md#613-lineage-verification-loadrebasestate) step 2, [§6.14](../../docs/spec/contract.md#614-carrying-pins-and-session-memory-into-the-continuation)
  A mutant of the reference that the rest of the suite let pass: lineage verification checks every
  carried pin and memory against its own origin mutation in the source, and a checkpoint the
  reference wrote itself, carrying a branch pin, a session pin and a session memory, passes that
  check: the target's current-lineage recall reaches the source with no warning.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms

  @id:LINEAGE-200
  @clause:C6.13-32 @clause:C6.13-33 @clause:C6.13-34 @clause:C6.13-35 @clause:C6.13-36 @clause:C6.13-37 @clause:C6.14-1 @clause:C6.14-2 @clause:C6.14-3 @clause:C6.14-4 @clause:C6.14-5
  Scenario: A checkpoint carrying a branch pin, a session pin and a session memory verifies: lineage with no warning
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-pins","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"side","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"A branch not taken","timestamp":1767225602000}}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m1","operation":"add","createdAt":1767225603000,"item":{"id":"pin-branch","scope":"branch","content":"Keep LastExportUtc nullable","branchLeafId":"task","sourceEntryId":"old","createdAt":1767225603000}},"id":"p1","parentId":"old","timestamp":"2026-01-01T00:00:03.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m2","operation":"add","createdAt":1767225604000,"item":{"id":"pin-project","scope":"project","content":"Project rule","projectPath":"{cwd}","createdAt":1767225604000}},"id":"p2","parentId":"p1","timestamp":"2026-01-01T00:00:04.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m3","operation":"add","createdAt":1767225605000,"item":{"id":"pin-side","scope":"branch","content":"Only on the side branch","branchLeafId":"side","createdAt":1767225605000}},"id":"p3","parentId":"p2","timestamp":"2026-01-01T00:00:05.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m4","operation":"add","createdAt":1767225606000,"item":{"id":"pin-session","scope":"session","content":"Session-wide rule","createdAt":1767225606000}},"id":"p4","parentId":"p3","timestamp":"2026-01-01T00:00:06.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"n1","operation":"add","createdAt":1767225607000,"item":{"id":"mem-session","scope":"session","claim":"LastExportUtc stays nullable","createdAt":1767225607000,"sourceEntryIds":["old"]}},"id":"n1","parentId":"p4","timestamp":"2026-01-01T00:00:07.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"n2","operation":"add","createdAt":1767225608000,"item":{"id":"mem-project","scope":"project","claim":"The project uses tabs","projectPath":"{cwd}","createdAt":1767225608000,"sourceEntryIds":[]}},"id":"n2","parentId":"n1","timestamp":"2026-01-01T00:00:08.000Z"}
      {"type":"message","id":"task","parentId":"n2","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225609000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result preserves 2 pins and 1 memories
    When the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result is complete with no warnings
    And the effective scope is "current-lineage"
    And the hit "old" has relation "lineage-ancestor"

  @id:LINEAGE-017
  @clause:C6.13-28 @clause:C6.14-8 @clause:C6.14-11 @clause:C6.14-12 @clause:C6.14-13 @clause:C6.14-14 @clause:C6.14-15 @clause:C6.14-17 @clause:C6.14-18 @clause:C8.3-41
  Scenario: The continuation's own unpin, supersede and invalidate overlay what it inherited: its next rebases carry only what is still active, from the nearest checkpoint
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-overlay","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m1","operation":"add","createdAt":1767225602000,"item":{"id":"pin-keep","scope":"session","content":"Keep LastExportUtc nullable","createdAt":1767225602000}},"id":"p1","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m2","operation":"add","createdAt":1767225603000,"item":{"id":"pin-drop","scope":"session","content":"Export as CSV only","createdAt":1767225603000}},"id":"p2","parentId":"p1","timestamp":"2026-01-01T00:00:03.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"n1","operation":"add","createdAt":1767225604000,"item":{"id":"mem-old","scope":"session","claim":"The export runs nightly","createdAt":1767225604000,"sourceEntryIds":["old"]}},"id":"n1","parentId":"p2","timestamp":"2026-01-01T00:00:04.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"n2","operation":"add","createdAt":1767225605000,"item":{"id":"mem-bad","scope":"session","claim":"The export has no tests","createdAt":1767225605000,"sourceEntryIds":["old"]}},"id":"n2","parentId":"n1","timestamp":"2026-01-01T00:00:05.000Z"}
      {"type":"message","id":"task","parentId":"n2","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225606000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result preserves 2 pins and 2 memories
    When the rebase target gets these lines appended:
      """
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"t1","operation":"status","createdAt":1767312001000,"pinId":"pin-drop","status":"deleted","reason":"no longer true"},"id":"t1","parentId":"{last}","timestamp":"2026-01-02T00:00:01.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"t2","operation":"supersede","createdAt":1767312002000,"previousId":"mem-old","item":{"id":"mem-new","scope":"session","claim":"The export runs hourly","createdAt":1767312002000,"sourceEntryIds":[]}},"id":"t2","parentId":"t1","timestamp":"2026-01-02T00:00:02.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"t3","operation":"status","createdAt":1767312003000,"memoryId":"mem-bad","status":"invalid","reason":"tests were added"},"id":"t3","parentId":"t2","timestamp":"2026-01-02T00:00:03.000Z"}
      {"type":"message","id":"t4","parentId":"t3","timestamp":"2026-01-02T00:00:04.000Z","message":{"role":"user","content":"Next step in the continuation","timestamp":1767312004000}}
      """
    And the history index file is deleted
    And the rebase host opens the rebase target with these facts:
      """
      {"targetSessionIds": ["7a2e0c1d-0000-4000-8000-000000000002"]}
      """
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the rebase result preserves 1 pins and 1 memories
    And the checkpoint carries the active pins "pin-keep" and the active memories "mem-new", inherited or its own, in any order
    And the rebase source is byte-identical to before
    When the global history configuration is changed to:
      """
      {"sessionRebase": {"checkpointTargetTokens": 24000}}
      """
    And the rebase host opens the rebase target with these facts:
      """
      {"targetSessionIds": ["7a2e0c1d-0000-4000-8000-000000000003"]}
      """
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the checkpoint carries the active pins "pin-keep" and the active memories "mem-new", inherited or its own, in any order
