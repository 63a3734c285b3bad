Feature: The order of recall hits where scores tie, and the score's parts that decide a tie
  Spec: [contract.md](../../docs/spec/contract.md) [§2.6](../../docs/spec/contract.md#26-lexical-search-per-source-reuse-of-the-automatic-engine), [§2.6.1](../../docs/spec/contract.md#261-query-term-extraction-describetask-pre-existing), [§2.8](../../docs/spec/contract.md#28-merging-results-limit-and-output-budget) step 1; [decisions.md](../../docs/spec/decisions.md) [D5](../../docs/spec/decisions.md#d5-deterministic-order)
  Hits from all sources are sorted by score, then newer first, then by (sessionId, entryId) in
  UTF-8 byte order. Two sessions with one matching entry each give hits of the same score.

  Background:
    Given a trusted history project
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """

  @id:RECALL-022
  Scenario: Equal scores: the newer hit comes first, whatever the ids say
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep TieMarker stable.","timestamp":1767225601000}}
      """
    And the sibling history session "newer" with these lines:
      """
      {"type":"session","version":3,"id":"s-b","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Keep TieMarker stable.","timestamp":1767225605000}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`TieMarker`", "scope": "project"}
      """
    Then the hits come from the sessions "s-b s-a" in this order

  @id:RECALL-023
  Scenario: Equal scores and times: sessionId in UTF-8 byte order, so upper case comes before lower case
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep TieMarker stable.","timestamp":1767225601000}}
      """
    And the sibling history session "upper" with these lines:
      """
      {"type":"session","version":3,"id":"S-b","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep TieMarker stable.","timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`TieMarker`", "scope": "project"}
      """
    Then the hits come from the sessions "S-b s-a" in this order

  @id:RECALL-024
  Scenario: Only the first 12 error codes of a query add to the score: the 12th outranks the 13th
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-errors","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"x12","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Saw E012 in the export log while checking the nightly run.","timestamp":1767225601000}}
      {"type":"message","id":"y13","parentId":"x12","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Saw E013.","timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked for "E001 E002 E003 E004 E005 E006 E007 E008 E009 E010 E011 E012 E013"
    Then the hit entry ids are "x12 y13"
