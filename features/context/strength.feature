Feature: The context when the compaction is not at an even position (issue 14, docs/suite-strength.md)
  Spec: [pi-session-model.md](../../docs/spec/pi-session-model.md) [§4](../../docs/spec/pi-session-model.md#4-building-the-context) (buildContextEntries)
  A mutant of the reference that the rest of the suite let pass computed the entries after the
  compaction from a position that is right only when the compaction's position on the path is
  even; every other context scenario has it at an even position.

  @id:CONTEXT-200
  @clause:P4.3-3
  Scenario: A compaction second on the path: its summary, the kept entries, then each later entry once
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-odd","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"o1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}
      {"type":"compaction","id":"o2","parentId":"o1","timestamp":"2025-06-01T12:00:02.000Z","summary":"early summary","firstKeptEntryId":"o1","tokensBefore":10}
      {"type":"message","id":"o3","parentId":"o2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"second","timestamp":3}}
      {"type":"message","id":"o4","parentId":"o3","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"A2"}],"api":"x","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":4}}
      """
    When the session is inspected at leaf "o4"
    Then the path ids are "o1 o2 o3 o4"
    And the context entry ids are "o2 o1 o3 o4"
    And the context roles are "compactionSummary user user assistant"
