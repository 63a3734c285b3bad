Feature: Settings the history tools read from the loaded configuration
  Spec: [contract.md](../../docs/spec/contract.md) [§1.3](../../docs/spec/contract.md#13-pre-existing-settings-the-feature-reads), [§1.4](../../docs/spec/contract.md#14-loading-and-precedence-of-saved-overrides)
  The master switch, the lexical retrieval switches and the moment a saved edit takes effect, seen
  through the history tools of one host: the configuration is the one loaded when the host opened
  the current session (Pi's session_start).

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-settings","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep LastExportUtc stable.","timestamp":1767225601000}}
      """

  @id:CONFIG-035
  @clause:C1.3-1
  Scenario: The master switch off answers disabled to every history tool, though historyTools.enabled is true
    Given the global history configuration:
      """
      {"enabled": false, "historyTools": {"enabled": true}}
      """
    When the history host opens the current session
    And recall is asked for "LastExportUtc"
    Then the result is unavailable with code "disabled"
    When read is asked with:
      """
      {"sourceRef": "hist_0123456789abcdef0123456789abcdef"}
      """
    Then the result is unavailable with code "disabled"
    When the history status is asked
    Then the result is unavailable with code "disabled"

  @id:CONFIG-036
  @clause:C1.3-2
  Scenario Outline: Recall honours retrieval.exact and retrieval.fts, warns only when both are off, and ignores retrieval.semantic (<case>)
    Given the global history configuration:
      """
      {"retrieval": <retrieval>}
      """
    When the history host opens the current session
    And recall is asked for "LastExportUtc"
    Then the result is <status> with <warnings>
    And <hits>

    Examples:
      | case         | retrieval                                          | status   | warnings                              | hits                       |
      | both-off     | {"exact": false, "fts": false}                     | partial  | warnings "lexical-retrieval-disabled" | there are no hits          |
      | exact-only   | {"exact": true, "fts": false}                      | complete | no warnings                           | the hit entry ids are "m1" |
      | fts-only     | {"exact": false, "fts": true}                      | complete | no warnings                           | the hit entry ids are "m1" |
      | semantic-on  | {"exact": true, "fts": true, "semantic": true}     | complete | no warnings                           | the hit entry ids are "m1" |
      | all-off      | {"exact": false, "fts": false, "semantic": true}   | partial  | warnings "lexical-retrieval-disabled" | there are no hits          |

  @id:CONFIG-037
  @clause:C1.4-6
  Scenario: A saved edit leaves the open session's configuration alone and applies at the next session start
    When the history host opens the current session
    And recall is asked for "LastExportUtc"
    Then the hit entry ids are "m1"
    When the global history configuration is changed to:
      """
      {"historyTools": {"enabled": false}}
      """
    And recall is asked for "LastExportUtc"
    Then the hit entry ids are "m1"
    When the history host opens the current session
    And recall is asked for "LastExportUtc"
    Then the result is unavailable with code "disabled"

  @id:CONFIG-042
  @clause:C1.1-6
  Scenario Outline: historyTools.includeSummaries is the default of a request that does not say, and a request that says wins (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-summaries","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep the export marker.","timestamp":1767225601000}}
      {"type":"compaction","id":"compact","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","summary":"The user set a DigestMarker; details omitted.","firstKeptEntryId":"old","tokensBefore":5000}
      {"type":"message","id":"recent","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue with the implementation.","timestamp":1767225604000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"includeSummaries": <configured>}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`DigestMarker`"<request>}
      """
    Then <hits>

    Examples:
      | case               | configured | request                     | hits                            |
      | default-off        | false      |                             | there are no hits               |
      | configured-on      | true       |                             | the hit entry ids are "compact" |
      | request-off-wins   | true       | , "includeSummaries": false | there are no hits               |
      | request-on-wins    | false      | , "includeSummaries": true  | the hit entry ids are "compact" |
