Feature: Compaction-aware context
  Spec: issue "Foundation" deliverable 4; [pi-session-model.md](../../docs/spec/pi-session-model.md) [§4](../../docs/spec/pi-session-model.md#4-building-the-context) (buildSessionPath, buildContextEntries, sessionEntryToContextMessages, buildSessionContext)
  The context the model receives at a leaf is built exactly as Pi 0.84.3 builds it.

  Background:
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-ctx","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"model_change","id":"e01","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}
      {"type":"thinking_level_change","id":"e02","parentId":"e01","timestamp":"2025-06-01T12:00:02.000Z","thinkingLevel":"medium"}
      {"type":"message","id":"e03","parentId":"e02","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"first","timestamp":3}}
      {"type":"message","id":"e04","parentId":"e03","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"A1"}],"api":"x","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":4}}
      {"type":"custom","customType":"state","data":{"k":1},"id":"e05","parentId":"e04","timestamp":"2025-06-01T12:00:05.000Z"}
      {"type":"custom_message","customType":"note","content":"remember","display":true,"id":"e06","parentId":"e05","timestamp":"2025-06-01T12:00:06.000Z"}
      {"type":"message","id":"e07","parentId":"e06","timestamp":"2025-06-01T12:00:07.000Z","message":{"role":"user","content":"second","timestamp":7}}
      {"type":"message","id":"e08","parentId":"e07","timestamp":"2025-06-01T12:00:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"A2"}],"api":"x","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":8}}
      {"type":"compaction","id":"e09","parentId":"e08","timestamp":"2025-06-01T12:00:09.000Z","summary":"first summary","firstKeptEntryId":"e07","tokensBefore":1000}
      {"type":"message","id":"e10","parentId":"e09","timestamp":"2025-06-01T12:00:10.000Z","message":{"role":"user","content":"third","timestamp":10}}
      {"type":"model_change","id":"e11","parentId":"e10","timestamp":"2025-06-01T12:00:11.000Z","provider":"openai","modelId":"gpt-5"}
      {"type":"message","id":"e12","parentId":"e11","timestamp":"2025-06-01T12:00:12.000Z","message":{"role":"assistant","content":[{"type":"text","text":"A3"}],"api":"x","provider":"openai","model":"gpt-5","stopReason":"stop","timestamp":12}}
      {"type":"compaction","id":"e13","parentId":"e12","timestamp":"2025-06-01T12:00:13.000Z","summary":"second summary","firstKeptEntryId":"e08","tokensBefore":2000,"retainedTail":[{"role":"user","content":"ignored"}]}
      {"type":"thinking_level_change","id":"e14","parentId":"e13","timestamp":"2025-06-01T12:00:14.000Z","thinkingLevel":"high"}
      {"type":"message","id":"e15","parentId":"e14","timestamp":"2025-06-01T12:00:15.000Z","message":{"role":"user","content":"fourth","timestamp":15}}
      {"type":"branch_summary","id":"e16","parentId":"e04","timestamp":"2025-06-01T12:00:16.000Z","fromId":"e15","summary":"left the main line"}
      {"type":"branch_summary","id":"e17","parentId":"e16","timestamp":"2025-06-01T12:00:17.000Z","fromId":"e16","summary":""}
      {"type":"label","id":"e18","parentId":"e17","timestamp":"2025-06-01T12:00:18.000Z","targetId":"e03","label":"start"}
      """

  @id:CONTEXT-001
  @clause:P1.5-15 @clause:P4.3-2 @clause:P4.4-5
  Scenario: Without a compaction the context entries are the path
    When the session is inspected at leaf "e08"
    Then the context entry ids are "e01 e02 e03 e04 e05 e06 e07 e08"
    And the context roles are "user assistant custom user assistant"

  @id:CONTEXT-002
  @clause:C8.3-29 @clause:C8.3-30 @clause:C8.3-32 @clause:D12-1 @clause:P4.3-1 @clause:P4.3-3 @clause:P4.3-6
  Scenario: A compaction puts its summary first, then the kept entries, then the later ones
    When the session is inspected at leaf "e12"
    Then the path ids are "e01 e02 e03 e04 e05 e06 e07 e08 e09 e10 e11 e12"
    And the context entry ids are "e09 e07 e08 e10 e11 e12"
    And the context roles are "compactionSummary user assistant user assistant"

  @id:CONTEXT-003
  @clause:P4.3-2 @clause:P4.3-5 @clause:P4.6-1
  Scenario: Only the latest compaction decides the cut, and an earlier one in the kept range stays
    When the session is inspected at leaf "e15"
    Then the context entry ids are "e13 e08 e09 e10 e11 e12 e14 e15"
    And the context roles are "compactionSummary assistant compactionSummary user assistant user"

  @id:CONTEXT-004
  @clause:D12-1 @clause:P4.4-4 @clause:P4.6-1
  Scenario: The compaction summary message carries summary, tokens and the entry time in ms, never retainedTail
    When the session is inspected at leaf "e15"
    Then context message 1 is exactly:
      """
      {"role":"compactionSummary","summary":"second summary","tokensBefore":2000,"timestamp":1748779213000}
      """

  @id:CONTEXT-005
  @clause:P4.3-3 @clause:P4.3-8
  Scenario: A compaction as the leaf gives its summary and the kept entries, nothing after
    When the session is inspected at leaf "e13"
    Then the context entry ids are "e13 e08 e09 e10 e11 e12"

  @id:CONTEXT-006
  @clause:P4.3-4
  Scenario: A firstKeptEntryId that is not on the path keeps nothing from before the compaction
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-off","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"f1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}
      {"type":"message","id":"f2","parentId":"f1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"b","timestamp":2}}
      {"type":"message","id":"f3","parentId":"f1","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"c","timestamp":3}}
      {"type":"compaction","id":"f4","parentId":"f3","timestamp":"2025-06-01T12:00:04.000Z","summary":"s","firstKeptEntryId":"f2","tokensBefore":5}
      {"type":"message","id":"f5","parentId":"f4","timestamp":"2025-06-01T12:00:05.000Z","message":{"role":"user","content":"d","timestamp":5}}
      """
    When the session is inspected
    Then the context entry ids are "f4 f5"

  @id:CONTEXT-007
  @clause:P4.4-3
  Scenario: A branch summary becomes a branchSummary message; an empty one adds no message
    When the session is inspected
    Then the path ids are "e01 e02 e03 e04 e16 e17 e18"
    And the context entry ids are "e01 e02 e03 e04 e16 e17 e18"
    And the context roles are "user assistant branchSummary"
    And context message 3 is exactly:
      """
      {"role":"branchSummary","summary":"left the main line","fromId":"e15","timestamp":1748779216000}
      """

  @id:CONTEXT-008
  @clause:C8.3-32 @clause:C8.3-33 @clause:P1.5-15 @clause:P4.4-2 @clause:P6-9 @clause:P6-10
  Scenario: A custom entry never reaches the context; a custom message does, without absent fields
    When the session is inspected at leaf "e07"
    Then the context entry ids are "e01 e02 e03 e04 e05 e06 e07"
    And context message 3 is exactly:
      """
      {"role":"custom","customType":"note","content":"remember","display":true,"timestamp":1748779206000}
      """

  @id:CONTEXT-009
  @clause:P4.2-2 @clause:P4.2-3 @clause:P4.2-5 @clause:P4.5-1
  Scenario: Model and thinking level come from the whole path, and the last one wins
    When the session is inspected at leaf "e15"
    Then the model is "openai/gpt-5" and the thinking level is "high"
    When the session is inspected at leaf "e04"
    Then the model is "anthropic/claude-sonnet-4-5" and the thinking level is "medium"

  @id:CONTEXT-010
  @clause:P4.2-1 @clause:P4.2-4 @clause:P4.2-5
  Scenario: An assistant message sets the model; without any setting the thinking level is off
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-model","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"q","timestamp":1}}
      {"type":"message","id":"m2","parentId":"m1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant","content":[],"provider":"ollama","model":"llama3","stopReason":"aborted","timestamp":2}}
      """
    When the session is inspected
    Then the model is "ollama/llama3" and the thinking level is "off"
    When the session is inspected at leaf "m1"
    Then there is no model and the thinking level is "off"

  @id:CONTEXT-011
  @clause:P4.4-1
  Scenario: Null or missing content of a user, assistant or tool result message becomes an empty list
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-null","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"n1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":null,"timestamp":1}}
      {"type":"message","id":"n2","parentId":"n1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant","provider":"p","model":"m","stopReason":"stop","timestamp":2}}
      {"type":"message","id":"n3","parentId":"n2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"custom","customType":"legacy","content":null,"display":false,"timestamp":3}}
      """
    When the session is inspected
    Then context message 1 is exactly:
      """
      {"role":"user","content":[],"timestamp":1}
      """
    And context message 2 is exactly:
      """
      {"role":"assistant","provider":"p","model":"m","stopReason":"stop","timestamp":2,"content":[]}
      """
    And context message 3 is exactly:
      """
      {"role":"custom","customType":"legacy","content":null,"display":false,"timestamp":3}
      """

  @id:CONTEXT-012
  @clause:P1.6-1 @clause:P4.4-1
  Scenario: Messages pass through unchanged, even excluded bash runs and aborted replies
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-pass","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"p1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"bashExecution","command":"ls","output":"a\nb","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1,"excludeFromContext":true}}
      {"type":"message","id":"p2","parentId":"p1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"}],"provider":"p","model":"m","stopReason":"error","errorMessage":"boom","timestamp":2}}
      """
    When the session is inspected
    Then context message 1 is exactly:
      """
      {"role":"bashExecution","command":"ls","output":"a\nb","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1,"excludeFromContext":true}
      """
    And the context roles are "bashExecution assistant"

  @id:CONTEXT-013
  @clause:P4.3-2 @clause:P4.4-5
  Scenario: Settings, labels and custom entries stay in the context entry list but add no message
    When the session is inspected
    Then the context entry ids are "e01 e02 e03 e04 e16 e17 e18"
    And the context has 3 messages

  @id:CONTEXT-014
  @clause:P4.4-2
  Scenario: An unparseable entry timestamp gives a null message timestamp, as NaN does in JSON
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-time","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"custom_message","customType":"t","content":[{"type":"text","text":"x"}],"display":false,"details":{"a":1},"id":"t1","parentId":null,"timestamp":"yesterday"}
      """
    When the session is inspected
    Then context message 1 is exactly:
      """
      {"role":"custom","customType":"t","content":[{"type":"text","text":"x"}],"display":false,"details":{"a":1},"timestamp":null}
      """

  @id:CONTEXT-015
  @clause:P4.4-2
  Scenario: A message timestamp is the entry time in ms, with its UTC offset subtracted and a short fraction read as a fraction
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-zone","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"custom_message","customType":"t","content":"east","display":true,"id":"z1","parentId":null,"timestamp":"2025-06-01T14:00:01.5+02:00"}
      {"type":"custom_message","customType":"t","content":"west","display":true,"id":"z2","parentId":"z1","timestamp":"2025-06-01T10:30:00.25-01:30"}
      """
    When the session is inspected
    Then context message 1 is exactly:
      """
      {"role":"custom","customType":"t","content":"east","display":true,"timestamp":1748779201500}
      """
    And context message 2 is exactly:
      """
      {"role":"custom","customType":"t","content":"west","display":true,"timestamp":1748779200250}
      """

  @id:CONTEXT-016
  @clause:P4.4-2
  Scenario: A custom message with null or missing content gets an empty content list
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-cnull","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"custom_message","customType":"t","content":null,"display":true,"id":"k1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z"}
      {"type":"custom_message","customType":"t","display":false,"id":"k2","parentId":"k1","timestamp":"2025-06-01T12:00:02.000Z"}
      """
    When the session is inspected
    Then context message 1 is exactly:
      """
      {"role":"custom","customType":"t","content":[],"display":true,"timestamp":1748779201000}
      """
    And context message 2 is exactly:
      """
      {"role":"custom","customType":"t","content":[],"display":false,"timestamp":1748779202000}
      """

  @id:CONTEXT-017
  @clause:P4.2-1 @clause:P4.5-1
  Scenario: Settings come from the whole path, also from entries the compaction cut out of the context
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-cutset","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"model_change","id":"s1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","provider":"openai","modelId":"gpt-5"}
      {"type":"thinking_level_change","id":"s2","parentId":"s1","timestamp":"2025-06-01T12:00:02.000Z","thinkingLevel":"high"}
      {"type":"message","id":"s3","parentId":"s2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"old","timestamp":3}}
      {"type":"message","id":"s4","parentId":"s3","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"user","content":"kept","timestamp":4}}
      {"type":"compaction","id":"s5","parentId":"s4","timestamp":"2025-06-01T12:00:05.000Z","summary":"sum","firstKeptEntryId":"s4","tokensBefore":10}
      {"type":"message","id":"s6","parentId":"s5","timestamp":"2025-06-01T12:00:06.000Z","message":{"role":"user","content":"new","timestamp":6}}
      """
    When the session is inspected
    Then the context entry ids are "s5 s4 s6"
    And the model is "openai/gpt-5" and the thinking level is "high"

  @id:CONTEXT-018
  @clause:P4.4-3 @clause:P4.4-4
  Scenario: A compaction always gives its summary message, even an empty one, where a branch summary would give none
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-empty-sum","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"q1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}
      {"type":"compaction","id":"q2","parentId":"q1","timestamp":"2025-06-01T12:00:02.000Z","summary":"","firstKeptEntryId":"q1","tokensBefore":0}
      {"type":"branch_summary","id":"q3","parentId":"q2","timestamp":"2025-06-01T12:00:03.000Z","fromId":"root","summary":""}
      """
    When the session is inspected
    Then the context entry ids are "q2 q1 q3"
    And the context roles are "compactionSummary user"
    And context message 1 is exactly:
      """
      {"role":"compactionSummary","summary":"","tokensBefore":0,"timestamp":1748779202000}
      """
