Feature: Tool exchange analysis
  Spec: issue "Foundation" deliverable 5; [contract.md](../../docs/spec/contract.md) [§6.4](../../docs/spec/contract.md#64-tool-atomicity-the-052-contract); [pi-session-model.md](../../docs/spec/pi-session-model.md) [§5](../../docs/spec/pi-session-model.md#5-pairing-tool-calls-with-tool-results)
  Assistant toolCall ids are paired with toolResult messages. Active issues are those of the
  compaction-aware context; historical ones are on the branch but not active. Only counts leave.

  @id:TOOLX-001
  @clause:C6.4-3 @clause:C6.4-11 @clause:P5-1
  Scenario: A complete exchange has no issue
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx1","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"x1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"run","timestamp":1}}
      {"type":"message","id":"x2","parentId":"x1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_a","name":"bash","arguments":{"command":"ls"}},{"type":"toolCall","id":"call_b","name":"read","arguments":{"path":"x"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}
      {"type":"message","id":"x3","parentId":"x2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"toolResult","toolCallId":"call_a","toolName":"bash","content":[{"type":"text","text":"a"}],"isError":false,"timestamp":3}}
      {"type":"message","id":"x4","parentId":"x3","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"toolResult","toolCallId":"call_b","toolName":"read","content":[{"type":"text","text":"b"}],"isError":true,"timestamp":4}}
      """
    When the session is inspected
    Then the tool exchange has 0 active and 0 historical issues
    And the tool exchange diagnostics hold counts only

  @id:TOOLX-002
  @clause:C6.4-3 @clause:C6.4-5 @clause:P5-7
  Scenario: A call without a result in the context is an active issue
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx2","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"y1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_a","name":"bash","arguments":{}},{"type":"toolCall","id":"call_b","name":"read","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1}}
      {"type":"message","id":"y2","parentId":"y1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"toolResult","toolCallId":"call_a","toolName":"bash","content":[],"isError":false,"timestamp":2}}
      {"type":"message","id":"y3","parentId":"y2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"Stop, never mind.","timestamp":3}}
      """
    When the session is inspected
    Then the tool exchange has 1 active and 0 historical issues

  @id:TOOLX-003
  @clause:C6.4-3 @clause:P5-8
  Scenario: An aborted reply with a partial tool call and no result is an active issue
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx3","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"z1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_z","name":"bash","arguments":{"comm":1}}],"provider":"p","model":"m","stopReason":"aborted","errorMessage":"aborted","timestamp":1}}
      """
    When the session is inspected
    Then the tool exchange has 1 active and 0 historical issues

  @id:TOOLX-004
  @clause:C6.4-6 @clause:C6.4-8
  Scenario: An incomplete exchange that the compaction archived is historical, not active
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx4","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"h1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_old","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1}}
      {"type":"message","id":"h2","parentId":"h1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"later","timestamp":2}}
      {"type":"compaction","id":"h3","parentId":"h2","timestamp":"2025-06-01T12:00:03.000Z","summary":"s","firstKeptEntryId":"h2","tokensBefore":9}
      {"type":"message","id":"h4","parentId":"h3","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"user","content":"now","timestamp":4}}
      """
    When the session is inspected
    Then the tool exchange has 0 active and 1 historical issues

  @id:TOOLX-005
  @clause:C6.4-4 @clause:C6.4-9
  Scenario: An active result whose call exists only in archived history is an active issue
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx5","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"k1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_k","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1}}
      {"type":"message","id":"k2","parentId":"k1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"toolResult","toolCallId":"call_k","toolName":"bash","content":[],"isError":false,"timestamp":2}}
      {"type":"compaction","id":"k3","parentId":"k2","timestamp":"2025-06-01T12:00:03.000Z","summary":"s","firstKeptEntryId":"k2","tokensBefore":9}
      """
    When the session is inspected
    Then the tool exchange has 1 active and 0 historical issues

  @id:TOOLX-006
  @clause:C6.4-10 @clause:P5-1
  Scenario: A complete active exchange that reuses the id of an archived incomplete call is accepted
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx6","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"r1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_same","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1}}
      {"type":"message","id":"r2","parentId":"r1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"interrupt","timestamp":2}}
      {"type":"compaction","id":"r3","parentId":"r2","timestamp":"2025-06-01T12:00:03.000Z","summary":"s","firstKeptEntryId":"r2","tokensBefore":9}
      {"type":"message","id":"r4","parentId":"r3","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_same","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":4}}
      {"type":"message","id":"r5","parentId":"r4","timestamp":"2025-06-01T12:00:05.000Z","message":{"role":"toolResult","toolCallId":"call_same","toolName":"bash","content":[],"isError":false,"timestamp":5}}
      """
    When the session is inspected
    Then the tool exchange has 0 active and 0 historical issues

  @id:TOOLX-007
  @clause:C6.4-1 @clause:C6.4-5
  Scenario: Issues are counted at the leaf the host gives
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx7","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"b1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"go","timestamp":1}}
      {"type":"message","id":"b2","parentId":"b1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}
      {"type":"message","id":"b3","parentId":"b1","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"fine"}],"provider":"p","model":"m","stopReason":"stop","timestamp":3}}
      """
    When the session is inspected at leaf "b2"
    Then the tool exchange has 1 active and 0 historical issues
    When the session is inspected
    Then the tool exchange has 0 active and 0 historical issues

  @id:TOOLX-008
  @clause:P5-6 @clause:P5-7 @clause:P5-8 @clause:P5-9
  Scenario: The context keeps incomplete exchanges as stored: no result is made up for an unanswered call
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tx8","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"q1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_a","name":"bash","arguments":{}},{"type":"toolCall","id":"call_b","name":"read","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1}}
      {"type":"message","id":"q2","parentId":"q1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"toolResult","toolCallId":"call_a","toolName":"bash","content":[],"isError":false,"timestamp":2}}
      {"type":"message","id":"q3","parentId":"q2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"Stop, never mind.","timestamp":3}}
      {"type":"message","id":"q4","parentId":"q3","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_z","name":"bash","arguments":{"comm":1}}],"provider":"p","model":"m","stopReason":"aborted","errorMessage":"aborted","timestamp":4}}
      """
    When the session is inspected
    Then the context roles are "assistant toolResult user assistant"
    And context message 4 is exactly:
      """
      {"role":"assistant","content":[{"type":"toolCall","id":"call_z","name":"bash","arguments":{"comm":1}}],"provider":"p","model":"m","stopReason":"aborted","errorMessage":"aborted","timestamp":4}
      """
    And the tool exchange has 2 active and 0 historical issues
