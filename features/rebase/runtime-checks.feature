Feature: The runtime's checks come before the rebase service's gates
  Spec: [contract.md](../../docs/spec/contract.md) [§6.2](../../docs/spec/contract.md#62-preconditions-and-their-blocking-codes-evaluated-in-this-order) steps 1 to 4
  Before the rebase service runs, the runtime checks that it can run at all, that this session's
  own lineage verifies and that a session holding pins or memories has a memory bridge. Each of
  those refusals wins over every gate of the service, even over rebase being switched off.

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

  @id:REBASE-036
  @clause:C6.2-39 @clause:C6.2-1
  Scenario Outline: A runtime that cannot run answers runtime-unavailable before any gate of the service (<case>)
    Given the global history configuration:
      """
      <config>
      """
    When the rebase host opens the current session with these facts:
      """
      {"runtimeAvailable": false}
      """
    And a rebase is asked
    Then the rebase result is unavailable with code "runtime-unavailable"
    And no rebase operations folder exists
    And the rebase source is byte-identical to before

    Examples:
      | case          | config                                |
      | disabled      | {"enabled": false}                    |
      | rebase-off    | {"sessionRebase": {"enabled": false}} |
      | history-off   | {"historyTools": {"enabled": false}}  |

  @id:REBASE-037
  @clause:C6.2-39 @clause:C6.2-2 @clause:C6.2-3
  Scenario: A session whose own lineage does not verify is refused by the runtime even with rebase switched off
    When the rebase host opens the current session
    And a rebase is asked
    And the checkpoint data in the rebase target is edited, "Continue the implementation" becoming "Abandon the implementation"
    And the global history configuration is changed to:
      """
      {"sessionRebase": {"enabled": false}}
      """
    And the rebase host opens the rebase target
    And a rebase is asked
    Then the rebase result is unavailable with code "lineage-integrity-unavailable"

  @id:REBASE-038
  @clause:C6.2-39 @clause:C6.2-6
  Scenario: A session holding pins without a memory bridge is memory-state-required even with rebase switched off
    Given the global history configuration:
      """
      {"sessionRebase": {"enabled": false}}
      """
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-memory","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m1","operation":"add","createdAt":1767225602000,"item":{"id":"pin-session","scope":"session","content":"Keep LastExportUtc","createdAt":1767225602000}},"id":"p1","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z"}
      {"type":"message","id":"task","parentId":"p1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """
    When the rebase host opens the current session with these facts:
      """
      {"memoryBridge": false}
      """
    And a rebase is asked
    Then the rebase result is unavailable with code "memory-state-required"
    And no rebase operations folder exists

  @id:REBASE-039
  @clause:C6.2-40
  Scenario: A plain rebase asked from a rebase target rebases the target itself: only recovery takes the source from lineage
    When the rebase host opens the current session
    And a rebase is asked
    And the rebase host opens the rebase target
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the newest rebase target names the first rebase target as its parentSession
    And the rebase source is byte-identical to before
