Feature: History status is content-free and never catches up
  Spec: [contract.md](../../docs/spec/contract.md) [§4](../../docs/spec/contract.md#4-context_history_status), [§2.9](../../docs/spec/contract.md#29-result-envelope-shared-by-recall-read-and-status); [decisions.md](../../docs/spec/decisions.md) [D7](../../docs/spec/decisions.md#d7-warnings)
  context_history_status reports only schema, flags, enums, counters and codes. It reads the
  current session's index state as it is: "complete" means a checkpoint exists, not that it is
  fresh. It never runs the catch-up, never checks the abort signal, and reports the configured
  default scope as effectiveScope.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-status","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"status-ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker.","timestamp":1767225601000}}
      {"type":"model_change","id":"status-model","parentId":"status-ask","timestamp":"2026-01-01T00:00:02.000Z","provider":"openai","modelId":"gpt"}
      {"type":"message","id":"status-answer","parentId":"status-model","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted: the marker stays."}],"provider":"openai","model":"gpt","usage":{"input":1,"output":1},"stopReason":"stop","timestamp":1767225603000}}
      """

  @id:STATUS-001
  @clause:C4-5 @clause:C4-6
  Scenario: Before any recall the index is not yet synchronized, and asking again does not synchronize it
    When the history host opens the current session
    And the history status is asked
    Then the status says the index is not yet synchronized
    And the status has coverage "unknown" and effective scope "current-branch"
    And the status is content-free
    When the history status is asked
    Then the status says the index is not yet synchronized
    And every history session file is byte-identical to before

  @id:STATUS-002
  @clause:C0.3-3 @clause:C2.9-13 @clause:C4-4 @clause:C4-6 @clause:C5.1-10
  Scenario: After a recall the status is complete with the count of indexed entries
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the history status is asked
    Then the status reports 3 indexed entries and is complete
    And the status has coverage "complete" and effective scope "current-branch"
    And the status is content-free
    And every history session file is byte-identical to before

  @id:STATUS-003
  @clause:C4-4 @clause:C4-6 @clause:C8.3-26
  Scenario: Status does not run the catch-up: appended entries count only after the next recall
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"status-more","parentId":"status-answer","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"One more thing.","timestamp":1767225604000}}
      {"type":"message","id":"status-last","parentId":"status-more","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"And another.","timestamp":1767225605000}}
      """
    And the history status is asked
    Then the status reports 3 indexed entries and is complete
    When the history status is asked
    Then the status reports 3 indexed entries and is complete
    When recall is asked for "`LastExportUtc`"
    And the history status is asked
    Then the status reports 5 indexed entries and is complete

  @id:STATUS-004
  @clause:C2.9-5 @clause:C4-4 @clause:C4-5
  Scenario Outline: effectiveScope is the configured default scope, before and after a recall
    Given the global history configuration:
      """
      <configuration>
      """
    When the history host opens the current session
    And the history status is asked
    Then the status has coverage "unknown" and effective scope "<scope>"
    When recall is asked for "`LastExportUtc`"
    And the history status is asked
    Then the status has coverage "complete" and effective scope "<scope>"

    Examples:
      | case            | configuration                                        | scope           |
      | built-in        | {}                                                   | current-branch  |
      | current-session | {"historyTools": {"defaultScope": "current-session"}} | current-session |
      | current-lineage | {"historyTools": {"defaultScope": "current-lineage"}} | current-lineage |

  @id:STATUS-005
  @clause:C4-1
  Scenario: Status does not check the abort signal
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the tool call is aborted before it runs
    And the history status is asked
    Then the status reports 3 indexed entries and is complete
    When recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "aborted"

  @id:STATUS-006
  @clause:C4-4 @clause:C4-5
  Scenario: Status reports the current session's own index state
    Given the sibling history session "other" with these lines:
      """
      {"type":"session","version":3,"id":"s-status-other","timestamp":"2026-01-02T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"other-1","parentId":null,"timestamp":"2026-01-02T00:00:01.000Z","message":{"role":"user","content":"Another session.","timestamp":1767312001000}}
      """
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the history host switches to the sibling session "other"
    And the history status is asked
    Then the status says the index is not yet synchronized
    When recall is asked for "`Another`"
    And the history status is asked
    Then the status reports 1 indexed entries and is complete
    When the history host opens the current session
    And the history status is asked
    Then the status reports 3 indexed entries and is complete

  @id:STATUS-007
  @clause:C2.12-2 @clause:C4-6 @clause:C8.3-26
  Scenario: Status is complete although recall's coverage is partial: it only says a checkpoint exists
    When the current session file gets this line appended without a newline: {"torn":
    And the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the result carries the warning "source-coverage-partial"
    When the history status is asked
    Then the status reports 3 indexed entries and is complete
    And the status is content-free

  @id:STATUS-008
  @clause:C4-3
  Scenario: Status of a current session whose file is gone is ephemeral-session
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the current session file is deleted
    And the history status is asked
    Then the result is unavailable with code "ephemeral-session"

  @id:STATUS-009
  @clause:C2.12-1 @clause:C4-2
  Scenario: An index that cannot be opened is runtime-unavailable for status and recall alike, and the host answers again once it can
    When the history index path lies inside a regular file
    And the history host opens the current session with that index
    And the history status is asked
    Then the result is unavailable with code "runtime-unavailable"
    When recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "runtime-unavailable"
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "status-ask"
    When the history status is asked
    Then the status reports 3 indexed entries and is complete

  @id:STATUS-010
  @clause:C2.4-10 @clause:C2.4-11 @clause:C2.5-2 @clause:C4-2 @clause:C4-3
  Scenario: No runtime access is answered before a session without a file, by status and recall alike
    When the history index path lies inside a regular file
    And the history host opens a session that has no file with that index
    And the history status is asked
    Then the result is unavailable with code "runtime-unavailable"
    When recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "runtime-unavailable"
    When the history host opens a session that has no file
    And the history status is asked
    Then the result is unavailable with code "ephemeral-session"
    When recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "ephemeral-session"
