Feature: Tool atomicity decides whether a session can be rebased
  Spec: [contract.md](../../docs/spec/contract.md) [§6.4](../../docs/spec/contract.md#64-tool-atomicity-the-052-contract), [§6.2](../../docs/spec/contract.md#62-preconditions-and-their-blocking-codes-evaluated-in-this-order) step 23, [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) cases 8-12
  The compaction-aware context Pi would give the model at the captured leaf must hold every tool
  call with its result and every result with its call; an issue there blocks the rebase before
  any journal or target exists. Incomplete exchanges that compaction already archived stay in the
  untouched source and do not block. Diagnostics hold counts only.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms

  @id:ATOMIC-001
  @clause:C6.1-16 @clause:C6.1-17 @clause:C6.2-30 @clause:C6.4-3 @clause:C6.4-5 @clause:C6.4-7 @clause:C6.4-11 @clause:C6.17-5 @clause:C8.1-9
  Scenario: An active tool call with no result blocks with pending-or-orphan-tool-exchange and counts {1, 0}
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"List the files","timestamp":1767225601000}}
      {"type":"message","id":"call","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_pending_42","name":"bash","arguments":{"command":"ls SECRET_ARGUMENT"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225602000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "pending-or-orphan-tool-exchange"
    And the tool exchange diagnostics count 1 active and 0 historical issues
    And no rebase operations folder exists
    And no rebase target exists
    And the rebase source is still the host's current session
    And the rebase source is byte-identical to before
    And the rebase results name no path, tool id or message body

  @id:ATOMIC-002
  @clause:C6.4-1 @clause:C6.4-2 @clause:C6.4-6 @clause:C6.4-8 @clause:C6.4-11
  Scenario: An incomplete exchange archived by compaction does not block and counts as historical
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-2","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start","timestamp":1767225601000}}
      {"type":"message","id":"call","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_archived_7","name":"bash","arguments":{"command":"cat ARCHIVED_TOOL_EXCHANGE_CONTENT"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225602000}}
      {"type":"message","id":"live","parentId":"call","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"LIVE_HANDOFF_STATE","timestamp":1767225603000}}
      {"type":"compaction","id":"compact","parentId":"live","timestamp":"2026-01-01T00:00:04.000Z","summary":"Earlier work.","firstKeptEntryId":"live","tokensBefore":100}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Continue","timestamp":1767225605000}}
      """
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is a preview
    And the tool exchange diagnostics count 0 active and 1 historical issues
    And no rebase operations folder exists
    When a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the tool exchange diagnostics count 0 active and 1 historical issues
    And the handoff contains "LIVE_HANDOFF_STATE"
    And the handoff does not contain "ARCHIVED_TOOL_EXCHANGE_CONTENT"
    And the rebase source is byte-identical to before

  @id:ATOMIC-003
  @clause:C6.4-4 @clause:C6.4-6 @clause:C6.4-8
  Scenario: An archived tool result without its call does not block either
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-3","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start","timestamp":1767225601000}}
      {"type":"message","id":"result","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"call_lost_9","toolName":"bash","content":[{"type":"text","text":"ARCHIVED_TOOL_EXCHANGE_CONTENT"}],"isError":false,"timestamp":1767225602000}}
      {"type":"message","id":"live","parentId":"result","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"LIVE_HANDOFF_STATE","timestamp":1767225603000}}
      {"type":"compaction","id":"compact","parentId":"live","timestamp":"2026-01-01T00:00:04.000Z","summary":"Earlier work.","firstKeptEntryId":"live","tokensBefore":100}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the tool exchange diagnostics count 0 active and 1 historical issues
    And the handoff does not contain "ARCHIVED_TOOL_EXCHANGE_CONTENT"

  @id:ATOMIC-004
  @clause:C6.4-4 @clause:C6.4-7 @clause:C6.4-9
  Scenario: An active tool result whose call exists only in archived history blocks with counts {1, 0}
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-4","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start","timestamp":1767225601000}}
      {"type":"message","id":"call","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_split_3","name":"bash","arguments":{"command":"make"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225602000}}
      {"type":"message","id":"note","parentId":"call","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"Meanwhile, a note","timestamp":1767225603000}}
      {"type":"compaction","id":"compact","parentId":"note","timestamp":"2026-01-01T00:00:04.000Z","summary":"Earlier work.","firstKeptEntryId":"note","tokensBefore":100}
      {"type":"message","id":"result","parentId":"compact","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"toolResult","toolCallId":"call_split_3","toolName":"bash","content":[{"type":"text","text":"built"}],"isError":false,"timestamp":1767225605000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "pending-or-orphan-tool-exchange"
    And the tool exchange diagnostics count 1 active and 0 historical issues
    And no rebase operations folder exists
    And no rebase target exists

  @id:ATOMIC-005
  @clause:C6.4-10
  Scenario: A complete active exchange that reuses the id of an archived incomplete call is accepted
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-5","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start","timestamp":1767225601000}}
      {"type":"message","id":"call-old","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_reused_1","name":"bash","arguments":{"command":"ls"}}],"provider":"p","model":"m","stopReason":"aborted","timestamp":1767225602000}}
      {"type":"message","id":"live","parentId":"call-old","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"Try again","timestamp":1767225603000}}
      {"type":"compaction","id":"compact","parentId":"live","timestamp":"2026-01-01T00:00:04.000Z","summary":"Earlier work.","firstKeptEntryId":"live","tokensBefore":100}
      {"type":"message","id":"call-new","parentId":"compact","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_reused_1","name":"bash","arguments":{"command":"ls"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225605000}}
      {"type":"message","id":"result","parentId":"call-new","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"toolResult","toolCallId":"call_reused_1","toolName":"bash","content":[{"type":"text","text":"a.txt"}],"isError":false,"timestamp":1767225606000}}
      """
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is a preview
    And the tool exchange diagnostics count 0 active and 0 historical issues
    And no rebase operations folder exists

  @id:ATOMIC-006
  @clause:C6.1-17 @clause:C6.4-5 @clause:C6.4-6 @clause:C6.4-11
  Scenario: Diagnostics hold counts only, never a tool id, an argument or a body
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-6","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start","timestamp":1767225601000}}
      {"type":"message","id":"call","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_private_77","name":"bash","arguments":{"command":"cat PRIVATE_ARGUMENT"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225602000}}
      {"type":"message","id":"live","parentId":"call","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"Live state of the work","timestamp":1767225603000}}
      {"type":"compaction","id":"compact","parentId":"live","timestamp":"2026-01-01T00:00:04.000Z","summary":"Earlier work.","firstKeptEntryId":"live","tokensBefore":100}
      {"type":"message","id":"orphan","parentId":"compact","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"toolResult","toolCallId":"call_orphan_88","toolName":"bash","content":[{"type":"text","text":"ORPHAN_BODY"}],"isError":false,"timestamp":1767225605000}}
      """
    When the rebase host opens the current session
    And a rebase dry run is asked
    And a rebase is asked
    Then the rebase result is unavailable with code "pending-or-orphan-tool-exchange"
    And the tool exchange diagnostics count 1 active and 1 historical issues
    And the rebase results name no path, tool id or message body

  @id:ATOMIC-007
  @clause:C6.4-7 @clause:C6.7-1 @clause:C6.7-4
  Scenario: A dry run checks tool atomicity too: an active call with no result blocks it
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-7","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"List the files","timestamp":1767225601000}}
      {"type":"message","id":"call","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_pending_7","name":"bash","arguments":{"command":"ls"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225602000}}
      """
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "pending-or-orphan-tool-exchange"
    And the tool exchange diagnostics count 1 active and 0 historical issues
    And no rebase operations folder exists

  @id:ATOMIC-008
  @clause:C6.4-3 @clause:C6.4-4
  Scenario: Issues are de-duplicated: two unanswered calls with one id in the context are one active issue
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-atomic-8","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"List the files","timestamp":1767225601000}}
      {"type":"message","id":"call1","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_twice_5","name":"bash","arguments":{"command":"ls"}}],"provider":"p","model":"m","stopReason":"aborted","timestamp":1767225602000}}
      {"type":"message","id":"again","parentId":"call1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"Try once more","timestamp":1767225603000}}
      {"type":"message","id":"call2","parentId":"again","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_twice_5","name":"bash","arguments":{"command":"ls"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225604000}}
      """
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "pending-or-orphan-tool-exchange"
    And the tool exchange diagnostics count 1 active and 0 historical issues
