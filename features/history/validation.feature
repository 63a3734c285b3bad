Feature: History tool requests are validated in the contract's order
  Spec: [contract.md](../../docs/spec/contract.md) [§2.3](../../docs/spec/contract.md#23-service-level-validation-validatehistoryquery), [§2.4](../../docs/spec/contract.md#24-gating-and-fail-open-behaviour), [§3.3](../../docs/spec/contract.md#33-read-algorithm-and-its-codes-in-order) steps 2 and 5; [decisions.md](../../docs/spec/decisions.md) [D4](../../docs/spec/decisions.md#d4-dates)
  Bad arguments give an unavailable envelope with exactly one code and no content.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-valid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep LastExportUtc stable.","timestamp":1}}
      """
    And the history host opens the current session

  @id:RECALL-011
  @clause:C2.2-1 @clause:C2.2-2 @clause:C2.2-6 @clause:C2.2-8 @clause:C2.3-1 @clause:C2.3-2 @clause:C2.3-5 @clause:C2.3-6 @clause:C2.3-7 @clause:C2.3-19 @clause:C2.3-10 @clause:C2.3-11 @clause:C2.3-13 @clause:C2.3-14 @clause:C2.4-9 @clause:C2.9-14 @clause:C2.12-1 @clause:C8.3-8 @clause:D4-1
  Scenario Outline: Each bad recall argument has its own code
    When recall is asked with:
      """
      <arguments>
      """
    Then the result is unavailable with code "<code>"

    Examples:
      | case              | arguments                                                              | code               |
      | empty-query       | {"query": "  "}                                                        | invalid-query      |
      | bad-scope         | {"query": "LastExportUtc", "scope": "world"}                           | invalid-scope      |
      | limit-zero        | {"query": "LastExportUtc", "limit": 0}                                 | invalid-budget     |
      | tokens-low        | {"query": "LastExportUtc", "maxOutputTokens": 100}                     | invalid-budget     |
      | date-no-offset    | {"query": "LastExportUtc", "before": "2026-01-01T00:00:00"}            | invalid-date       |
      | date-range        | {"query": "LastExportUtc", "after": "2026-02-01T00:00:00Z", "before": "2026-01-01T00:00:00Z"} | invalid-date-range |
      | bad-role          | {"query": "LastExportUtc", "roles": ["robot"]}                         | invalid-role       |
      | bad-filter        | {"query": "LastExportUtc", "includeSummaries": "yes"}                  | invalid-filter     |
      | first-check-wins  | {"query": "", "scope": "world", "limit": 99}                           | invalid-query      |

  @id:RECALL-012
  @clause:C2.3-13 @clause:C8.3-22
  Scenario: An empty roles list is accepted and matches nothing
    When recall is asked with:
      """
      {"query": "LastExportUtc", "roles": []}
      """
    Then the result is complete with no warnings
    And there are no hits

  @id:RECALL-013
  @clause:C1.1-2 @clause:C2.3-3
  Scenario: Project scope is never a default
    Given the global history configuration:
      """
      {"historyTools": {"defaultScope": "current-session"}}
      """
    When the history host opens the current session
    And recall is asked for "LastExportUtc"
    Then the result is complete with no warnings

  @id:RECALL-014
  @clause:C1.1-1 @clause:C1.6-1 @clause:C1.6-5 @clause:C2.4-2 @clause:C2.4-6 @clause:C2.12-1 @clause:C4-2
  Scenario: Disabled tools answer disabled and nothing else
    Given the global history configuration:
      """
      {"historyTools": {"enabled": false}}
      """
    When the history host opens the current session
    And recall is asked for "LastExportUtc"
    Then the result is unavailable with code "disabled"
    When the history status is asked
    Then the result is unavailable with code "disabled"

  @id:RECALL-015
  @clause:C2.1-5 @clause:C2.4-1 @clause:C2.12-1
  Scenario: An aborted call answers aborted
    When the tool call is aborted before it runs
    And recall is asked for "LastExportUtc"
    Then the result is unavailable with code "aborted"

  @id:RECALL-016
  @clause:C2.4-7 @clause:C2.5-2 @clause:C2.12-1 @clause:C4-3
  Scenario: A session without a file is ephemeral
    When the history host opens a session that has no file
    And recall is asked for "LastExportUtc"
    Then the result is unavailable with code "ephemeral-session"
    When the history status is asked
    Then the result is unavailable with code "ephemeral-session"

  @id:READ-001
  @clause:C3.2-6 @clause:C3.3-2 @clause:C3.3-3 @clause:C3.3-12 @clause:C3.6-1
  Scenario Outline: A read accepts only an issued reference, then checks ranges
    When read is asked with:
      """
      <arguments>
      """
    Then the result is unavailable with code "<code>"

    Examples:
      | case          | arguments                                                          | code               |
      | a-path        | {"sourceRef": "{session-file}"}                                    | invalid-reference  |
      | a-made-up-ref | {"sourceRef": "hist_0123456789abcdef0123456789abcdef"}             | reference-expired  |
      | range-after   | {"sourceRef": "hist_0123456789abcdef0123456789abcdef", "startLine": -1} | reference-expired |

  @id:RECALL-019
  @clause:C2.2-3 @clause:C2.2-4 @clause:C2.2-5 @clause:C2.2-7 @clause:C2.3-6 @clause:C2.3-7 @clause:C2.3-8 @clause:C2.3-9 @clause:C2.3-11 @clause:C2.3-12 @clause:C2.3-13 @clause:C8.4-1
  Scenario Outline: Each recall bound is accepted at its value (<case>)
    When recall is asked with:
      """
      <arguments>
      """
    Then the result is complete with no warnings

    Examples:
      | case              | arguments                                                                                   |
      | limit-one         | {"query": "LastExportUtc", "limit": 1}                                                      |
      | limit-at-cap      | {"query": "LastExportUtc", "limit": 12}                                                     |
      | tokens-at-floor   | {"query": "LastExportUtc", "maxOutputTokens": 256}                                          |
      | tokens-at-cap     | {"query": "LastExportUtc", "maxOutputTokens": 6000}                                         |
      | date-of-40-chars  | {"query": "LastExportUtc", "after": "2025-01-01T00:00:00.0000000000000000000Z"}             |
      | six-roles         | {"query": "LastExportUtc", "roles": ["user", "assistant", "toolResult", "bashExecution", "custom", "summary"]} |
      | after-1-ms-before | {"query": "LastExportUtc", "after": "2026-01-01T00:00:00.000Z", "before": "2026-01-01T00:00:00.001Z"} |

  @id:RECALL-020
  @clause:C2.2-3 @clause:C2.2-4 @clause:C2.2-5 @clause:C2.3-6 @clause:C2.3-7 @clause:C2.3-19 @clause:C2.3-8 @clause:C2.3-11 @clause:C2.3-12 @clause:C8.3-37 @clause:C8.4-1
  Scenario Outline: Each recall bound is refused one past its value (<case>)
    When recall is asked with:
      """
      <arguments>
      """
    Then the result is unavailable with code "<code>"

    Examples:
      | case                | arguments                                                                                   | code               |
      | limit-past-cap      | {"query": "LastExportUtc", "limit": 13}                                                     | invalid-budget     |
      | tokens-below-floor  | {"query": "LastExportUtc", "maxOutputTokens": 255}                                          | invalid-budget     |
      | tokens-past-cap     | {"query": "LastExportUtc", "maxOutputTokens": 6001}                                         | invalid-budget     |
      | date-of-41-chars    | {"query": "LastExportUtc", "after": "2025-01-01T00:00:00.00000000000000000000Z"}            | invalid-date       |
      | seven-roles         | {"query": "LastExportUtc", "roles": ["user", "assistant", "toolResult", "bashExecution", "custom", "summary", "user"]} | invalid-role |
      | after-equals-before | {"query": "LastExportUtc", "after": "2026-01-01T00:00:00.000Z", "before": "2026-01-01T00:00:00.000Z"} | invalid-date-range |

  @id:RECALL-021
  @clause:C2.2-1 @clause:C2.3-2 @clause:C8.3-1 @clause:C8.3-4 @clause:C8.4-1 @clause:D3-1
  Scenario Outline: The query is counted in UTF-16 units: 2000 are accepted, 2001 are invalid-query (<case>)
    When recall is asked for "<text>" padded with "<pad>" to <units> UTF-16 units
    Then the result is <outcome>

    Examples:
      | case              | text           | pad | units | outcome                                 |
      | ascii-at-bound    | LastExportUtc  | x   | 2000  | complete with no warnings               |
      | astral-at-bound   | LastExportUtc, | 😀  | 2000  | complete with no warnings               |
      | ascii-one-past    | LastExportUtc  | x   | 2001  | unavailable with code "invalid-query"   |
      | astral-one-past   | LastExportUtc  | 😀  | 2001  | unavailable with code "invalid-query"   |

  @id:RECALL-025
  @clause:C1.1-3 @clause:C2.3-20 @clause:C2.3-15 @clause:C2.8-9
  Scenario: A requested limit above the configured maxResults is cut to it
    Given the global history configuration:
      """
      {"historyTools": {"maxResults": 2}}
      """
    And the current history session gets a user message "m2" with this text:
      """
      LastExportUtc second note
      """
    And the current history session gets a user message "m3" with this text:
      """
      LastExportUtc third note
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "LastExportUtc", "limit": 12}
      """
    Then the last recall returned 2 hits

  @id:RECALL-026
  @clause:C1.1-4 @clause:C2.3-20 @clause:C2.3-16 @clause:C2.8-10 @clause:C2.8-12 @clause:C2.8-15 @clause:C2.12-14
  Scenario: A requested budget above the configured maxOutputTokens is cut to it
    Given the global history configuration:
      """
      {"historyTools": {"maxOutputTokens": 256}}
      """
    And the current history session gets a user message "m2" with this text:
      """
      LastExportUtc second note, long enough that three such hits cannot share 256 tokens of output with their envelope.
      """
    And the current history session gets a user message "m3" with this text:
      """
      LastExportUtc third note, long enough that three such hits cannot share 256 tokens of output with their envelope.
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "LastExportUtc", "maxOutputTokens": 6000}
      """
    Then the result carries the warning "output-budget"
    And the result with 96 tokens of room fits 256 chars-v1 tokens

  @id:RECALL-027
  @clause:C2.8-10 @clause:C2.8-11 @clause:C2.8-14 @clause:C2.12-14
  Scenario: A hit too big for the budget is skipped and a smaller one after it still fits
    Given the current history session gets a user message "big" with this text:
      """
      LastExportUtc {x*1500}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "LastExportUtc", "maxOutputTokens": 256}
      """
    Then the hit entry ids are "m1"
    And the result carries the warning "output-budget"
    When recall is asked with:
      """
      {"query": "LastExportUtc", "maxOutputTokens": 6000}
      """
    Then the hit entry ids are "big m1"

  @id:RECALL-032
  @clause:C2.4-11 @clause:C2.4-3 @clause:C2.4-5 @clause:C2.9-14
  Scenario: An index that cannot be opened answers runtime-unavailable, for recall and status alike
    When the history index path lies inside a regular file
    And the history host opens the current session with that index
    And recall is asked for "LastExportUtc"
    Then the result is unavailable with code "runtime-unavailable"
    When the history status is asked
    Then the result is unavailable with code "runtime-unavailable"

  @id:RECALL-044
  @clause:C2.4-10 @clause:C2.4-1 @clause:C2.4-2 @clause:C2.4-11 @clause:C2.4-5 @clause:C3.3-1 @clause:C4-2
  Scenario: The gates run in the contract's order: aborted, then disabled, then runtime access, then the request's own checks
    Given the history index path lies inside a regular file
    When the history host opens the current session with that index
    And recall is asked with:
      """
      {"query": ""}
      """
    Then the result is unavailable with code "runtime-unavailable"
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": ""}
      """
    Then the result is unavailable with code "invalid-query"
    When the global history configuration is changed to:
      """
      {"historyTools": {"enabled": false}}
      """
    And the history host opens the current session with that index
    And recall is asked with:
      """
      {"query": ""}
      """
    Then the result is unavailable with code "disabled"
    When read is asked with:
      """
      {"sourceRef": "not a reference"}
      """
    Then the result is unavailable with code "disabled"
    When the history status is asked
    Then the result is unavailable with code "disabled"
    When the tool call is aborted before it runs
    And recall is asked with:
      """
      {"query": ""}
      """
    Then the result is unavailable with code "aborted"
