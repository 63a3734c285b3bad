Feature: The order a recall's gates and a hit's checks run in
  Spec: [contract.md](../../docs/spec/contract.md) [§2.4](../../docs/spec/contract.md#24-gating-and-fail-open-behaviour), [§2.7](../../docs/spec/contract.md#27-processing-of-each-hit) steps 2 and 3
  A recall is gated in the contract's order: an aborted call answers aborted whatever else is
  wrong, then disabled tools answer disabled before the index is even opened. Each hit is
  verified against its JSONL record before its privacy is judged, so a hit whose record changed
  is dropped as changed, never judged on bytes nobody verified.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-leadins","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"hello","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hello, let us start.","timestamp":1767225601000}}
      {"type":"message","id":"secret","parentId":"hello","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"SecretCheck deploy with sk-FAKEfake0000000000 tonight","timestamp":1767225602000}}
      {"type":"message","id":"recent","parentId":"secret","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"Keep LastExportUtc stable.","timestamp":1767225603000}}
      """

  @id:RECALL-045
  @clause:C2.4-10 @clause:C2.4-1 @clause:C2.4-2
  Scenario: The gates answer in the contract's order: aborted before disabled, disabled before the index is opened
    Given the global history configuration:
      """
      {"historyTools": {"enabled": false}}
      """
    When the history index path lies inside a regular file
    And the history host opens the current session with that index
    And the tool call is aborted before it runs
    And recall is asked with:
      """
      {"query": "", "limit": 0}
      """
    Then the result is unavailable with code "aborted"
    When the history host is sent history.setAborted with the params {"aborted": false}
    And recall is asked with:
      """
      {"query": "", "limit": 0}
      """
    Then the result is unavailable with code "disabled"

  @id:RECALL-046
  @clause:C2.7-19 @clause:C2.7-2
  Scenario: A hit whose record changed is dropped as changed before its privacy is judged
    When the history host opens the current session with provider "openai"
    And recall is asked for "`SecretCheck`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    When the current session file is edited in place, "tonight" becoming "at dawn"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"grown","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"The file grew.","timestamp":1767225605000}}
      """
    And recall is asked for "`SecretCheck`"
    Then the result is partial with warnings "source-unavailable-or-changed"
    And there are no hits
    And no result contains "at dawn"
