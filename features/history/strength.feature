Feature: Bounds and fields the mutation tool found unguarded (issue 14, docs/suite-strength.md)
  Spec: [contract.md](../../docs/spec/contract.md) [§2.6.1](../../docs/spec/contract.md#261-query-term-extraction-describetask-pre-existing), [§2.8](../../docs/spec/contract.md#28-merging-results-limit-and-output-budget) (hit fields), [§3.2](../../docs/spec/contract.md#32-sourceref-format-ttl-cap-and-binding), [§2.10](../../docs/spec/contract.md#210-privacy-classification-and-sanitizing), [§2.11](../../docs/spec/contract.md#211-secret-redaction-shared-redactsecrets), [§8.4](../../docs/spec/contract.md#84-minimal-golden-constants-to-pin-in-a-conformance-suite); [decisions.md](../../docs/spec/decisions.md) [D10](../../docs/spec/decisions.md#d10-refs-live-in-a-process); D14 of [docs/decisions.md](../../docs/decisions.md)
  Each scenario answers a mutant of the reference that the rest of the suite let pass: a ref lives
  600,000 ms from whatever time it was minted at, a hit's timestamp is there exactly when the entry's
  ISO timestamp parses, a query keeps at most 24 exact identifiers, the classification floor walk
  fails closed past depth 64 and past 10,000 values (each bound alone), and D14 keeps an assignment
  whole whose value is already a label or a quoted placeholder, whatever its separator.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-strength","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker.","timestamp":1767225601000}}
      {"type":"message","id":"undated","parentId":"old","timestamp":"not a date","message":{"role":"user","content":"An undated note about `UndatedMarker`.","timestamp":1767225602000}}
      {"type":"message","id":"cap24","parentId":"undated","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"The twenty-fourth identifier Cap24 is here.","timestamp":1767225603000}}
      {"type":"message","id":"cap25","parentId":"cap24","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"The twenty-fifth identifier Cap25 is here.","timestamp":1767225604000}}
      """

  @id:REF-200
  @clause:C0.2-4 @clause:C2.7-14 @clause:C3.2-3 @clause:C8.4-1
  Scenario: A ref lives 600,000 ms from the time it was minted, whatever that time is
    Given the clock is set to 600000 ms
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "minted-at-600000"
    And the clock moves on by 599999 ms
    And the reference "minted-at-600000" is read
    Then the read is whole
    And the read source entry id is "old"
    When the clock moves on by 1 ms
    And the reference "minted-at-600000" is read
    Then the result is unavailable with code "reference-expired"

  @id:RECALL-200
  @clause:C0.2-4 @clause:C2.9-15 @clause:C2.9-22
  Scenario: A hit carries the entry's ISO timestamp in epoch ms, and no timestamp key when it does not parse
    Given the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    And the first hit has timestamp "1767225601000"
    When recall is asked for "`UndatedMarker`"
    Then the hit entry ids are "undated"
    And the first hit has no "timestamp" field

  @id:RECALL-201
  @clause:C2.6.1-12
  Scenario Outline: A query keeps its first 24 exact identifiers: the 24th is searched, the 25th is not (<case>)
    Given the history host opens the current session
    When recall is asked for "<query>"
    Then <outcome>

    Examples:
      | case          | query | outcome                        |
      | 24-identifiers | `Cap02` `Cap03` `Cap04` `Cap05` `Cap06` `Cap07` `Cap08` `Cap09` `Cap10` `Cap11` `Cap12` `Cap13` `Cap14` `Cap15` `Cap16` `Cap17` `Cap18` `Cap19` `Cap20` `Cap21` `Cap22` `Cap23` `Cap24` `Cap25` | the hits, in any order, are "cap24 cap25" |
      | 25-identifiers | `Cap01` `Cap02` `Cap03` `Cap04` `Cap05` `Cap06` `Cap07` `Cap08` `Cap09` `Cap10` `Cap11` `Cap12` `Cap13` `Cap14` `Cap15` `Cap16` `Cap17` `Cap18` `Cap19` `Cap20` `Cap21` `Cap22` `Cap23` `Cap24` `Cap25` | the hits, in any order, are "cap24"             |

  @id:PRIVACY-200
  @clause:C2.10-8 @clause:C8.4-4
  Scenario Outline: The floor walk fails closed below depth 64 only (<case>)
    Given the current history session gets a user message "deep" saying "DepthCheck" whose deepest value is at depth <depth>
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`DepthCheck`"
    Then the hit entry ids are "deep"
    And the first hit has classification "<classification>"

    Examples:
      | case     | depth | classification |
      | depth-63 | 63    | normal         |
      | depth-64 | 64    | normal         |
      | depth-65 | 65    | local-only     |

  @id:PRIVACY-201
  @clause:C2.10-8 @clause:C8.4-4
  Scenario Outline: The floor walk fails closed past 10,000 values only (<case>)
    Given the current history session gets a user message "wide" saying "WidthCheck" of <values> JSON values in all
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`WidthCheck`"
    Then the hit entry ids are "wide"
    And the first hit has classification "<classification>"

    Examples:
      | case         | values | classification |
      | values-9999  | 9999   | normal         |
      | values-10000 | 10000  | normal         |
      | values-10001 | 10001  | local-only     |

  @id:PRIVACY-202
  @clause:C2.11-5
  Scenario Outline: D14 keeps an assignment whole whose value is a label or a quoted placeholder, whatever the separator (<case>)
    Given the current history session gets a user message "floor" with this text:
      """
      FloorCheck <text>
      """
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`FloorCheck`"
    Then the hit entry ids are "floor"
    And the first hit has classification "<classification>"
    And the first hit's excerpt is "FloorCheck <shown>"

    Examples:
      | case                     | text                                       | classification | shown                                      |
      | label-after-equals       | password=[DS4 REDACTED SECRET] was shown   | normal         | password=[DS4 REDACTED SECRET] was shown   |
      | label-after-colon-space  | password: [DS4 REDACTED SECRET] was shown  | normal         | password: [DS4 REDACTED SECRET] was shown  |
      | label-after-spaced-equal | api_key = [DS4 REDACTED SECRET] was shown  | normal         | api_key = [DS4 REDACTED SECRET] was shown  |
      | quoted-placeholder       | password: "<your-password-here>" is fine   | normal         | password: "<your-password-here>" is fine   |
      | single-quoted-placeholder | token='<your-token>' is fine              | normal         | token='<your-token>' is fine              |
      | quoted-value             | password: "abcd" is not                    | sensitive      | password: "[DS4 REDACTED SECRET]" is not   |

  @id:READ-200
  @clause:C3.3-27 @clause:C8.4-1
  Scenario: A read fills one-character lines up to the budget less the 96-token reserve, to the line
    Given the current history session ends with a user message "narrow" of 600 one-character lines, the first saying "NarrowListMarker"
    And the history host opens the current session
    When recall is asked for "`NarrowListMarker`"
    And the first hit is read with:
      """
      {"maxLines": 200, "maxOutputTokens": 256}
      """
    Then the read of "narrow" holds the most lines that fit 256 chars-v1 tokens
    When the first hit is read on from the next line with:
      """
      {"maxLines": 200, "maxOutputTokens": 280}
      """
    Then the read of "narrow" holds the most lines that fit 280 chars-v1 tokens

  @id:RECALL-202
  @clause:C2.6-4 @clause:C2.6.1-11
  Scenario Outline: Every plain word of four or more letters is a keyword, wherever it stands in the query (<case>)
    Given the current history session gets a user message "plain" with this text:
      """
      The quarterly deployment happened on time.
      """
    And the history host opens the current session
    When recall is asked for "<query>"
    Then the hit entry ids are "plain"

    Examples:
      | case             | query                          |
      | first-of-two     | deployment zzzz                |
      | first-of-two-long | deployment yyyyyyyy            |
      | middle-of-three  | zzzz quarterly yyyy            |
      | last-of-two      | zzzz deployment                |

  @id:READ-201
  @clause:C3.3-5 @clause:C3.5-14
  Scenario Outline: A ref names its session's file: once the session lives in another file, the read is out of scope (<case>)
    Given the sibling history session "bravo" with these lines:
      """
      {"type":"session","version":3,"id":"s-moved","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"moved","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"The `MovedMarker` lives in a sibling.","timestamp":1767225601000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    And the history host opens the current session
    When recall is asked with:
      """
      {"query": "`MovedMarker`", "scope": "project"}
      """
    Then the hit entry ids are "moved"
    When the sibling history session "bravo" is renamed to "<new_name>"
    And recall is asked with:
      """
      {"query": "`MovedMarker`", "scope": "project"}
      """
    And reference number 1 issued in this scenario is read
    Then the result is unavailable with code "reference-out-of-scope"

    Examples:
      | case          | new_name |
      | sorts-before  | alpha    |
      | sorts-after   | charlie  |

  @id:READ-202
  @clause:C3.3-26 @clause:C3.3-27
  Scenario Outline: The fill measures each candidate with its own nextLine, also where nextLine gains a digit (<case>)
    The budget is one token short of what lines 1 to 99 need with "nextLine":100; measured with a
    nextLine one digit shorter, line 99 would seem to fit. One of the four first-line widths puts
    the envelope's length where one character decides the token.
    Given the current history session ends with a user message "digits" of 150 lines saying "xyz", the first saying "<first>"
    And the history host opens the current session
    When recall is asked for "`DigitMarker`"
    And the first hit is read with one token less than lines 1 to 99 of "digits" need
    Then the read text is lines 1 to 98 of the message "digits"
    And the read stops before line 99

    Examples:
      | case    | first          |
      | width-0 | DigitMarker    |
      | width-1 | DigitMarker.   |
      | width-2 | DigitMarker..  |
      | width-3 | DigitMarker... |
