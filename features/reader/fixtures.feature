Feature: Packaged fixtures read as Pi reads them
  Spec: issue "Foundation" deliverables 2, 3, 9 and 11; [pi-session-model.md](../../docs/spec/pi-session-model.md) [§1.7](../../docs/spec/pi-session-model.md#17-loading-rules-loadentriesfromfile-used-by-open), [§2](../../docs/spec/pi-session-model.md#2-versions-1-and-2-and-migration); fixtures/MANIFEST.json facts
  Each packaged fixture is inspected read-only; what the implementation reports agrees with the
  facts the manifest records (checked against the real Pi 0.84.3 when the fixtures were made).

  @id:READER-021
  @clause:D12-1 @clause:P1.7-2 @clause:P3.1-1
  Scenario Outline: A loadable fixture has the session id, entry count and default leaf of its manifest facts
    Given the fixture session "<fixture>"
    When the session is inspected
    Then the session id, entry count and default leaf are those of the fixture's manifest facts
    And the session file is byte-identical to before

    Examples:
      | case             | fixture          |
      | linear           | linear           |
      | tree-compactions | tree-compactions |
      | siblings-150     | siblings-150     |
      | tool-exchanges   | tool-exchanges   |
      | non-ascii        | non-ascii        |
      | secrets          | secrets          |
      | crlf             | crlf             |
      | header-only      | header-only      |
      | torn-tail        | torn-tail        |
      | malformed-lines  | malformed-lines  |
      | duplicate-ids    | duplicate-ids    |
      | missing-parent   | missing-parent   |
      | parent-cycle     | parent-cycle     |

  @id:READER-022
  @clause:C5.1-25 @clause:P2-1 @clause:P2-5
  Scenario: A legacy version 1 fixture is reported with a clear diagnostic and its bytes stay the same
    Given the fixture session "legacy-v1"
    When the session is inspected
    Then the file is flagged as legacy version 1
    And no tree or context is built from it
    And the session file is byte-identical to before

  @id:READER-023
  @clause:P1.7-2
  Scenario: A torn-tail fixture reports the unterminated last line and stays the same
    Given the fixture session "torn-tail"
    When the session is inspected
    Then the diagnostics report an unterminated tail
    And the diagnostics count 1 malformed lines
    And the session file is byte-identical to before

  @id:READER-024
  @clause:P1.7-2
  Scenario: A fixture with malformed and blank lines reports both counts and stays the same
    Given the fixture session "malformed-lines"
    When the session is inspected
    Then the diagnostics count 3 malformed lines
    And the diagnostics count 2 blank lines
    And the session file is byte-identical to before

  @id:READER-025
  @clause:P1.7-3
  Scenario Outline: Fixtures that are not Pi sessions are refused with their code
    Given the fixture session "<fixture>"
    When the session is inspected
    Then the request fails with code "<code>"
    And the session file is byte-identical to before

    Examples:
      | case       | fixture    | code              |
      | empty      | empty      | session-empty     |
      | no-header  | no-header  | session-no-header |
      | binary     | binary     | session-no-header |
      | bom-header | bom-header | session-no-header |

  @id:TREE-012
  @clause:P1.4-4
  Scenario: A parent with 150 children lists every one of them
    Given the fixture session "siblings-150"
    When the fixture's notable entry "sibling_parent" is described
    Then it has 150 children
