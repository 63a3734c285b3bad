Feature: A read returns verified searchable text by logical lines, within a budget
  Spec: [contract.md](../../docs/spec/contract.md) [§3.1](../../docs/spec/contract.md#31-tool-surface-and-input-schema), [§3.3](../../docs/spec/contract.md#33-read-algorithm-and-its-codes-in-order), [§3.4](../../docs/spec/contract.md#34-what-searchable-text-is-rendering-an-entry-into-lines), [§3.5](../../docs/spec/contract.md#35-canonical-source-verification-all-on-one-file-descriptor), [§3.6](../../docs/spec/contract.md#36-read-codes), [§7.1](../../docs/spec/contract.md#71-testsintegrationhistory-recalltestts-ebb04f2d-real-pi-sessionmanager-offline) cases 2, 4, 5, 6; [decisions.md](../../docs/spec/decisions.md) [D3](../../docs/spec/decisions.md#d3-lengths-and-tokens)
  context_history_read takes only an issued sourceRef, checks ranges after the reference,
  verifies the JSONL record on one descriptor against the hash fixed at recall time, and returns
  the entry's searchable text (never raw JSONL, never a path) split on \r?\n, filled line by line
  while chars-v1 of the envelope plus 96 stays within the budget.

  Background:
    Given a trusted history project

  @id:READ-002
  @clause:C3.3-20 @clause:C3.3-25 @clause:C3.3-32 @clause:C3.4-20 @clause:C3.4-21
  Scenario: Blank lines are logical lines and are kept
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-blank","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"blank","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"\nLastExportUtc\n","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the first hit is read with:
      """
      {"maxLines": 1}
      """
    Then the read text is empty
    And the read stops before line 2
    When the first hit is read with:
      """
      {"startLine": 2}
      """
    Then the read text is "LastExportUtc\n"
    And the read is whole
    When the first hit is read with:
      """
      {"startLine": 3}
      """
    Then the read text is empty
    And the read is whole
    When the first hit is read with:
      """
      {"startLine": 4}
      """
    Then the result is unavailable with code "range-out-of-bounds"

  @id:READ-003
  @clause:C3.3-24 @clause:C3.3-27 @clause:C3.3-31 @clause:C3.6-2 @clause:C8.4-1
  Scenario: 201 lines read 5 at a time within 256 tokens stop before line 6 with room to spare
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-lines","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Here comes a long list.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "long" of 201 lines, the first saying "LongListMarker"
    And the history host opens the current session
    When recall is asked for "`LongListMarker`"
    And the first hit is read with:
      """
      {"maxLines": 5, "maxOutputTokens": 256}
      """
    Then the read stops before line 6
    And the read text is lines 1 to 5 of the message "long"
    And the result with 64 tokens of room fits 256 chars-v1 tokens

  @id:READ-004
  @clause:C3.1-4 @clause:C3.3-24 @clause:C3.3-30 @clause:C3.3-31 @clause:C3.3-32 @clause:C8.4-1
  Scenario: maxLines defaults to 120, and following nextLine reads the rest
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-lines","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Here comes a long list.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "long" of 201 lines, the first saying "LongListMarker"
    And the history host opens the current session
    When recall is asked for "`LongListMarker`"
    And the first hit is read
    Then the read stops before line 121
    And the read text is lines 1 to 120 of the message "long"
    When the first hit is read on from the next line with:
      """
      {}
      """
    Then the read is whole
    And the read text is lines 121 to 201 of the message "long"
    When the first hit is read with:
      """
      {"startLine": 2, "maxLines": 200}
      """
    Then the read is whole
    And the read text is lines 2 to 201 of the message "long"

  @id:READ-005
  @clause:C3.3-26 @clause:C3.3-27 @clause:C3.3-30 @clause:C3.3-31
  Scenario: The budget stops the filling at the last line that fits, and reading on continues there
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-lines","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Here comes a long list.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "long" of 201 lines, the first saying "LongListMarker"
    And the history host opens the current session
    When recall is asked for "`LongListMarker`"
    And the first hit is read with:
      """
      {"maxLines": 200, "maxOutputTokens": 256}
      """
    Then the read of "long" holds the most lines that fit 256 chars-v1 tokens
    When the first hit is read on from the next line with:
      """
      {"maxLines": 200, "maxOutputTokens": 256}
      """
    Then the read of "long" holds the most lines that fit 256 chars-v1 tokens

  @id:READ-006
  @clause:C1.1-4 @clause:C3.1-5 @clause:C3.3-11
  Scenario: A requested budget above the configured one is cut to the configured one
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-wide","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Here comes a wide list.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "wide" of 200 lines of 80 characters, the first saying "WideListMarker"
    And the history host opens the current session
    When recall is asked for "`WideListMarker`"
    And the first hit is read with:
      """
      {"maxLines": 200, "maxOutputTokens": 6000}
      """
    Then the read of "wide" holds the most lines that fit 3000 chars-v1 tokens

  @id:READ-007
  @clause:C3.3-27 @clause:C3.3-28 @clause:C3.6-1
  Scenario: A single line longer than the budget is refused, the lines around it are not
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-wide","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Here comes one wide line.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "wide" whose first line is "WideLineMarker" and 1200 more characters, then "a short tail"
    And the history host opens the current session
    When recall is asked for "`WideLineMarker`"
    And the first hit is read with:
      """
      {"maxOutputTokens": 256}
      """
    Then the result is unavailable with code "line-exceeds-output-budget"
    When the first hit is read with:
      """
      {"startLine": 2, "maxOutputTokens": 256}
      """
    Then the read text is "a short tail"
    And the read is whole
    When the first hit is read
    Then the read text contains "WideLineMarker www"
    And the read is whole

  @id:READ-008
  @clause:C3.1-3 @clause:C3.1-4 @clause:C3.1-5 @clause:C3.3-8 @clause:C3.3-9 @clause:C3.3-10 @clause:C3.3-11 @clause:C3.3-20 @clause:C8.3-37 @clause:C8.4-1
  Scenario Outline: Bad ranges after a live, in-scope ref are invalid-range; a start past the text is out of bounds
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-range","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` stable.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the first hit is read with:
      """
      <range>
      """
    Then the result is unavailable with code "<code>"

    Examples:
      | case             | range                         | code                |
      | start-zero       | {"startLine": 0}              | invalid-range       |
      | start-negative   | {"startLine": -1}             | invalid-range       |
      | start-too-big    | {"startLine": 1000001}        | invalid-range       |
      | start-fraction   | {"startLine": 1.5}            | invalid-range       |
      | start-text       | {"startLine": "1"}            | invalid-range       |
      | start-boolean    | {"startLine": true}           | invalid-range       |
      | lines-zero       | {"maxLines": 0}               | invalid-range       |
      | lines-too-many   | {"maxLines": 201}             | invalid-range       |
      | lines-text       | {"maxLines": "5"}             | invalid-range       |
      | tokens-too-few   | {"maxOutputTokens": 255}      | invalid-range       |
      | tokens-too-many  | {"maxOutputTokens": 6001}     | invalid-range       |
      | start-last-valid | {"startLine": 1000000}        | range-out-of-bounds |
      | start-past-text  | {"startLine": 2}              | range-out-of-bounds |

  @id:READ-009
  @clause:C3.3-5 @clause:C3.3-12 @clause:C3.3-13 @clause:C3.5-12 @clause:C8.3-37
  Scenario: The checks run in the contract's order: reference, scope, range, source, lines
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-order","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` stable. Original wording.","timestamp":1767225601000}}
      {"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"Nothing else.","timestamp":1767225602000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the active leaf moves to "null"
    And the first hit is read with:
      """
      {"startLine": 0}
      """
    Then the result is unavailable with code "reference-out-of-scope"
    When the active leaf moves to "m2"
    And the current session file is edited in place, "Original" becoming "Modified"
    And the first hit is read with:
      """
      {"startLine": 0}
      """
    Then the result is unavailable with code "invalid-range"
    When the first hit is read with:
      """
      {"startLine": 99}
      """
    Then the result is unavailable with code "source-changed"

  @id:READ-010
  @clause:C3.4-1 @clause:C3.5-9 @clause:C3.5-12
  Scenario: One byte edited in place after recall makes the read source-changed, with no content
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-tamper","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker. Original constraint: never rename it.","timestamp":1767225601000}}
      {"type":"message","id":"recent","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue with the implementation.","timestamp":1767225604000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the current session file is edited in place, "rename" becoming "renamE"
    And the first hit is read
    Then the result is unavailable with code "source-changed"
    And no result holds a raw session line
    And no result names a session file path

  @id:READ-011
  @clause:C3.4-1 @clause:C3.5-1
  Scenario: A session file truncated into the recalled entry gives a code and no content
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-tamper","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Let us begin.","timestamp":1767225601000}}
      {"type":"message","id":"last","parentId":"intro","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker. Original constraint: never rename it.","timestamp":1767225604000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the current session file loses the last 20 bytes of its last entry
    And the first hit is read
    Then the result is unavailable with one of the codes "reference-out-of-scope source-unavailable source-changed"
    And no result holds a raw session line
    And no result names a session file path

  @id:READ-012
  @clause:C2.5-2 @clause:C3.5-13 @clause:C3.6-1 @clause:C8.3-38
  Scenario: The current session file deleted after recall: the scope recompute fails first with ephemeral-session
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-tamper","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker. Original constraint: never rename it.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the current session file is deleted
    And the first hit is read
    Then the result is unavailable with code "ephemeral-session"
    And no result names a session file path

  @platform:posix @needs:symlink
  @id:READ-013
  @clause:C3.5-7
  Scenario: The session file swapped for a symbolic link after recall gives a code and no content
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-tamper","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker. Original constraint: never rename it.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the current session file is swapped for a symbolic link to a copy of itself
    And the first hit is read
    Then the result is unavailable with one code and no content
    And no result holds a raw session line
    And no result names a session file path

  @id:READ-014
  @clause:C3.3-22 @clause:C3.4-1 @clause:C3.4-3 @clause:C3.5-1 @clause:C3.5-10
  Scenario: A read carries the hit's source fields and searchable text, never raw JSONL or a path
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-source","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Where is `LastExportUtc` written?","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"private reasoning"},{"type":"text","text":"SourceFieldsMarker: it is written by the exporter."},{"type":"toolCall","id":"call-1","name":"read","arguments":{"path":"src/export.ts"}}],"provider":"openai","model":"gpt","usage":{"input":1,"output":1},"stopReason":"toolUse","timestamp":1767225602000}}
      """
    And the history host opens the current session
    When recall is asked for "`SourceFieldsMarker`"
    And the first hit is read
    Then the read source matches the first hit
    And the read text is "SourceFieldsMarker: it is written by the exporter.\nread\n{"path":"src/export.ts"}"
    And the read is whole
    And no result holds a raw session line
    And no result names a session file path
    And every history session file is byte-identical to before

  @id:READ-015
  @clause:C2.9-21 @clause:C3.4-2 @clause:C3.4-3 @clause:C3.4-4 @clause:C3.4-5 @clause:C3.4-6 @clause:C3.4-7 @clause:C3.4-8 @clause:C3.5-10
  Scenario Outline: Each kind of entry reads back as its searchable text
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-render","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"start","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start.","timestamp":1767225601000}}
      <entry>
      """
    And the history host opens the current session
    When recall is asked with:
      """
      {"query": "`RenderMarker`", "includeSummaries": true}
      """
    And the first hit is read
    Then the read text is "<text>"
    And the read source has kind "<kind>" and role "<role>"
    And the read is whole

    Examples:
      | case            | entry | text | kind | role |
      | user-blocks     | {"type":"message","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":"RenderMarker first"},{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"text","text":"second"}],"timestamp":1767225602000}} | RenderMarker first\nsecond | message | user |
      | assistant       | {"type":"message","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hidden thought"},{"type":"text","text":"RenderMarker answer"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"provider":"openai","model":"gpt","usage":{"input":1,"output":1},"stopReason":"toolUse","timestamp":1767225602000}} | RenderMarker answer\nbash\n{"command":"ls"} | message | assistant |
      | tool-result     | {"type":"message","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"RenderMarker output"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"isError":false,"timestamp":1767225602000}} | bash\nRenderMarker output | message | toolResult |
      | bash-execution  | {"type":"message","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"bashExecution","command":"echo RenderMarker","output":"RenderMarker printed","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1767225602000}} | Command: echo RenderMarker\nRenderMarker printed | message | bashExecution |
      | custom-message  | {"type":"custom_message","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","customType":"note","content":[{"type":"text","text":"RenderMarker custom"}],"display":true} | RenderMarker custom | custom_message | custom |
      | compaction      | {"type":"compaction","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","summary":"RenderMarker summary\\n\\nsecond paragraph","firstKeptEntryId":"start","tokensBefore":100} | RenderMarker summary\n\nsecond paragraph | compaction | summary |
      | branch-summary  | {"type":"branch_summary","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","fromId":"start","summary":"RenderMarker branch"} | start\nRenderMarker branch | branch_summary | summary |

  @id:READ-016
  @clause:C2.9-8 @clause:C2.9-9 @clause:C2.9-10 @clause:C2.9-11 @clause:C2.9-12 @clause:C3.3-21 @clause:C3.3-23 @clause:C3.3-26 @clause:C3.3-31 @clause:C3.3-32 @clause:D2-1
  Scenario: The read envelope's keys come in the TypeScript implementation's byte order
    The TypeScript implementation builds the envelope with truncated and adds nextLine after
    it, so its JSON ends "startLine":1,"truncated":true,"nextLine":3 (decisions D1, D2).
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-order","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"order","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"KeyOrderMarker\nsecond\nthird","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`KeyOrderMarker`"
    And the first hit is read with:
      """
      {"maxLines": 2}
      """
    Then the read envelope's keys are "schema quotedData status coverage warnings source text startLine truncated nextLine"
    And the read envelope's JSON ends with:
      """
      "text":"KeyOrderMarker\nsecond","startLine":1,"truncated":true,"nextLine":3}
      """
    When the first hit is read with:
      """
      {"startLine": 3}
      """
    Then the read envelope's keys are "schema quotedData status coverage warnings source text startLine truncated"
    And the read envelope's JSON ends with:
      """
      "text":"third","startLine":3,"truncated":false}
      """

  @id:READ-017
  @clause:C3.5-8 @clause:C8.3-7 @clause:C8.4-1
  Scenario Outline: The header line is looked for in the first 1 MiB, not only in a first read of 64 KiB (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-head","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `HeaderScanMarker` stable.","timestamp":1767225601000}}
      """
    And the current history session's header line is padded to <size> bytes
    And the history host opens the current session
    When recall is asked for "`HeaderScanMarker`"
    Then the hit entry ids are "m1"
    When the first hit is read
    Then the read text is "Keep `HeaderScanMarker` stable."

    Examples:
      | case                      | size    |
      | lf-ends-the-first-64-kib  | 65535   |
      | lf-one-past-64-kib        | 65536   |
      | lf-ends-the-first-1-mib   | 1048575 |

  @id:READ-018
  @clause:C2.9-14 @clause:C3.1-1 @clause:C3.6-1
  Scenario: An aborted read answers aborted before its reference or range is looked at; the ref reads again once the abort is lifted
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-abort","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` stable.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the tool call is aborted before it runs
    And the first hit is read
    Then the result is unavailable with code "aborted"
    When read is asked with:
      """
      {"sourceRef": "not a reference", "startLine": 0}
      """
    Then the result is unavailable with code "aborted"
    When the history host is sent history.setAborted with the params {"aborted": false}
    And the first hit is read
    Then the read is whole
    And the read text is "Keep `LastExportUtc` stable."

  @id:READ-019
  @clause:C3.3-1 @clause:C3.6-1
  Scenario Outline: A read while the history tools or the master switch are off answers disabled, whatever its reference (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-off","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` stable.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    And the global history configuration is changed to:
      """
      <configuration>
      """
    And the history host opens the current session
    And the first hit is read
    Then the result is unavailable with code "disabled"
    When read is asked with:
      """
      {"sourceRef": "not a reference", "startLine": 0}
      """
    Then the result is unavailable with code "disabled"
    When the global history configuration is changed to:
      """
      {}
      """
    And the history host opens the current session
    And the first hit is read
    Then the read is whole

    Examples:
      | case           | configuration                         |
      | tools-off      | {"historyTools": {"enabled": false}}  |
      | master-off     | {"enabled": false}                    |

  @id:READ-020
  @clause:C3.4-2 @clause:C3.4-3 @clause:C3.4-8 @clause:C3.4-14
  Scenario Outline: Empty parts are dropped before the parts are joined (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-empty","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"start","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start.","timestamp":1767225601000}}
      <entry>
      """
    And the history host opens the current session
    When recall is asked with:
      """
      {"query": "`EmptyPartMarker`", "includeSummaries": true}
      """
    And the first hit is read
    Then the read text is "<text>"
    And the read is whole

    Examples:
      | case            | entry | text |
      | user-blocks     | {"type":"message","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"EmptyPartMarker first"},{"type":"text","text":""},{"type":"text","text":"last"}],"timestamp":1767225602000}} | EmptyPartMarker first\nlast |
      | assistant-parts | {"type":"message","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":""},{"type":"text","text":"EmptyPartMarker answer"},{"type":"text","text":""},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"provider":"openai","model":"gpt","usage":{"input":1,"output":1},"stopReason":"toolUse","timestamp":1767225602000}} | EmptyPartMarker answer\nbash\n{"command":"ls"} |
      | branch-summary  | {"type":"branch_summary","id":"e","parentId":"start","timestamp":"2026-01-01T00:00:02.000Z","fromId":"","summary":"EmptyPartMarker branch"} | EmptyPartMarker branch |

  @id:READ-021
  @clause:C3.3-4 @clause:C3.6-1
  Scenario: A read re-runs its scope's checks: a project-scoped ref answers project-scope-disabled, then project-untrusted, and reads again when allowed
    Given the sibling history session "other" with these lines:
      """
      {"type":"session","version":3,"id":"s-other","timestamp":"2026-01-02T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"o1","parentId":null,"timestamp":"2026-01-02T00:00:01.000Z","message":{"role":"user","content":"Another session keeps `ProjectRefMarker`.","timestamp":1767312001000}}
      """
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-current","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Nothing to see here.","timestamp":1767225601000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    And the history host opens the current session
    When recall is asked with:
      """
      {"query": "`ProjectRefMarker`", "scope": "project"}
      """
    Then the hit entry ids are "o1"
    When the global history configuration is changed to:
      """
      {}
      """
    And the history host opens the current session
    And the first hit is read
    Then the result is unavailable with code "project-scope-disabled"
    When the global history configuration is changed to:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    And the history project becomes untrusted
    And the history host opens the current session
    And the first hit is read
    Then the result is unavailable with code "project-untrusted"
    When the history project becomes trusted
    And the history host opens the current session
    And the first hit is read
    Then the read is whole
    And the read source has relation "other-branch"

  @id:READ-022
  @clause:C3.3-1 @clause:C3.3-2 @clause:C3.3-3 @clause:C3.3-12
  Scenario Outline: Runtime access is checked before the reference: with an index that cannot be opened, a read answers runtime-unavailable whatever its reference (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-gate","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` stable.","timestamp":1767225601000}}
      """
    And the history index path lies inside a regular file
    When the history host opens the current session with that index
    And read is asked with:
      """
      <arguments>
      """
    Then the result is unavailable with code "runtime-unavailable"
    When the history host opens the current session
    And read is asked with:
      """
      <arguments>
      """
    Then the result is unavailable with code "<code>"

    Examples:
      | case                 | arguments                                                          | code              |
      | not-a-reference      | {"sourceRef": "not a reference"}                                   | invalid-reference |
      | no-reference         | {"startLine": 0}                                                   | invalid-reference |
      | never-issued         | {"sourceRef": "hist_0123456789abcdef0123456789abcdef"}             | reference-expired |
      | never-issued-range-0 | {"sourceRef": "hist_0123456789abcdef0123456789abcdef", "startLine": 0} | reference-expired |

  @id:READ-023
  @clause:C3.3-13 @clause:C3.3-18 @clause:C3.3-20
  Scenario: Source verification comes before privacy, and privacy before the line bounds
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-steps","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` stable. [ds4:local-only]Original note[/ds4:local-only]","timestamp":1767225601000}}
      {"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"Nothing else.","timestamp":1767225602000}}
      """
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "m1"
    When the model provider becomes "openai"
    And the first hit is read with:
      """
      {"startLine": 99}
      """
    Then the result is unavailable with code "privacy-omitted"
    When the current session file is edited in place, "Original" becoming "Modified"
    And the first hit is read
    Then the result is unavailable with code "source-changed"
    When the model provider becomes "ollama"
    And the first hit is read with:
      """
      {"startLine": 99}
      """
    Then the result is unavailable with code "source-changed"
