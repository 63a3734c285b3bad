Feature: Canonical reader
  Spec: issue "Foundation" deliverable 2; [pi-session-model.md](../../docs/spec/pi-session-model.md) [§1.2](../../docs/spec/pi-session-model.md#12-bytes-on-disk), [§1.7](../../docs/spec/pi-session-model.md#17-loading-rules-loadentriesfromfile-used-by-open), [§2](../../docs/spec/pi-session-model.md#2-versions-1-and-2-and-migration); [contract.md](../../docs/spec/contract.md) [§3.5](../../docs/spec/contract.md#35-canonical-source-verification-all-on-one-file-descriptor), [§8.4](../../docs/spec/contract.md#84-minimal-golden-constants-to-pin-in-a-conformance-suite)
  A session file is read record by record, read-only, with a byte locator and a raw SHA-256
  for every physical line, and with bounded diagnostics for what Pi would skip or refuse.

  Background:
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-reader","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/home/user/projects/demo"}
      {"type":"message","id":"a1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"héllo 😀","timestamp":1748779201000}}
      {"type":"message","id":"a2","parentId":"a1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1748779202000}}
      """

  @id:READER-001
  @clause:P1.7-1
  Scenario: Every record has a byte locator whose end includes the LF
    When the session records are listed
    Then there are 3 records
    And every record is located by its byte span, with the LF inside the span
    And record 1 is of kind "header"
    And record 2 is of kind "entry"

  @id:READER-002
  @clause:C0.2-2 @clause:C3.5-9
  Scenario: Every record carries the SHA-256 of its line without the LF
    When the session records are listed
    Then every record carries the SHA-256 of its line bytes without the LF

  @id:READER-003
  @clause:C3.5-9 @clause:P1.7-1
  Scenario: A CR before the LF is kept in the hashed bytes of a CRLF file
    Given a session file with CRLF line endings and these lines:
      """
      {"type":"session","version":3,"id":"s-crlf","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"c1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      """
    When the session records are listed
    Then every record carries the SHA-256 of its line bytes without the LF
    And records 1, 2 end with CR before the LF
    When the session is inspected
    Then the diagnostics count 2 CRLF lines
    And the path ids are "c1"

  @id:READER-004
  @clause:P1.7-1 @clause:P1.7-2 @clause:P3.1-1
  Scenario: An unterminated last line ends at the file size and is reported as a torn tail
    Given a session file whose last line has no newline, with these lines:
      """
      {"type":"session","version":3,"id":"s-torn","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"t1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"t2","parentId":"t1","timestamp":"2025-06-01T12:00:02.000Z","mess
      """
    When the session records are listed
    Then the last record ends at the end of the file without an LF
    And every record is located by its byte span, with the LF inside the span
    And record 3 is of kind "malformed"
    When the session is inspected
    Then the diagnostics report an unterminated tail
    And the diagnostics count 1 malformed lines at lines 3
    And the leaf is "t1"
    And the session file is byte-identical to before

  @id:READER-005
  @clause:P1.3-3 @clause:P1.7-3
  Scenario: A valid version 3 header is read with its id, version and cwd
    When the session is inspected
    Then the session id is "s-reader" and its cwd is "/home/user/projects/demo"
    And the header version is 3
    And the file is not flagged as legacy
    And the diagnostics report no unterminated tail

  @id:READER-006
  @clause:C5.1-25 @clause:D12-1 @clause:P1.3-3 @clause:P2-1 @clause:P2-5
  Scenario: A version 1 file is flagged as legacy, never read as version 3, and left byte-identical
    Given a session file with these lines:
      """
      {"type":"session","id":"legacy-1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}
      {"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"old","timestamp":1}}
      {"type":"compaction","timestamp":"2025-01-01T00:00:02.000Z","summary":"s","firstKeptEntryIndex":1,"tokensBefore":10}
      """
    When the session is inspected
    Then the file is flagged as legacy version 1
    And no tree or context is built from it
    And the session file is byte-identical to before
    And the session folder holds only the session file

  @id:READER-007
  @clause:C5.1-25 @clause:D12-1 @clause:P2-2 @clause:P2-5
  Scenario: A version 2 file is flagged as legacy and left byte-identical
    Given a session file with these lines:
      """
      {"type":"session","version":2,"id":"legacy-2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"h1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"hookMessage","content":"x","timestamp":1}}
      """
    When the session is inspected
    Then the file is flagged as legacy version 2
    And no tree or context is built from it
    And the session file is byte-identical to before

  @id:READER-008
  @clause:D12-1 @clause:P2-5
  Scenario: A legacy file cannot be read at a leaf
    Given a session file with these lines:
      """
      {"type":"session","version":2,"id":"legacy-2","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"h1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      """
    When the session is inspected at leaf "h1"
    Then the request fails with code "unsupported-source-version"
    And the session file is byte-identical to before

  @id:READER-009
  @clause:P1.7-2
  Scenario: Blank and whitespace-only lines are counted and skipped
    Given a session file with these lines, where line 2 is also followed by 3 blank lines:
      """
      {"type":"session","version":3,"id":"s-blank","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"b1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"b2","parentId":"b1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      """
    When the session is inspected
    Then the diagnostics count 3 blank lines at lines 3, 4, 5
    And the path ids are "b1 b2"

  @id:READER-010
  @clause:P1.7-2
  Scenario: Malformed lines are counted, skipped, and the rest is still read
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-bad","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message", "id": oops}
      {"type":"message","id":"m2","parentId":"m1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":NaN,"timestamp":2}}
      {"type":"message","id":"m3","parentId":"m1","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"z","timestamp":3}}
      """
    When the session is inspected
    Then the diagnostics count 2 malformed lines at lines 3, 4
    And the path ids are "m1 m3"
    And the entry count is 2
    And the session file is byte-identical to before

  @id:READER-011
  @clause:C3.5-6 @clause:C8.4-1
  Scenario: A record over 4 MiB is reported and not decoded, and the rest is read
    Given a session file with these lines, where line 3 carries a message of 5 MiB:
      """
      {"type":"session","version":3,"id":"s-big","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"g1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"g2","parentId":"g1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"","timestamp":2}}
      {"type":"message","id":"g3","parentId":"g1","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"z","timestamp":3}}
      """
    When the session is inspected
    Then the diagnostics count 1 oversize records at lines 3
    And the path ids are "g1 g3"
    When the session records are listed
    Then record 3 is of kind "oversize"
    And every record carries the SHA-256 of its line bytes without the LF

  @id:READER-012
  @clause:C8.4-1 @clause:P1.7-3 @clause:P1.7-7
  Scenario: The header must lie within the first 1 MiB
    Given a session file that starts with at least 1100000 bytes of malformed lines and then has these lines:
      """
      {"type":"session","version":3,"id":"s-late","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      """
    When the session is inspected
    Then the request fails with code "session-header-scan-limit"

  @id:READER-013
  @clause:C3.5-7
  Scenario: A missing session file is refused with one line
    Given a session path where no file exists
    When the session is inspected
    Then the request fails with code "session-file-missing"

  @id:READER-014
  @clause:C3.5-7
  Scenario: A folder is not a session file
    Given a folder where the session file should be
    When the session is inspected
    Then the request fails with code "session-not-a-file"

  @id:READER-015
  @clause:C3.5-7
  Scenario: An empty file is refused and stays empty
    Given an empty session file
    When the session is inspected
    Then the request fails with code "session-empty"
    And the session file is byte-identical to before

  @id:READER-016
  @clause:P1.7-3 @clause:P1.7-4
  Scenario: Binary garbage has no session header
    Given a session file of 4096 bytes of random binary data
    When the session is inspected
    Then the request fails with code "session-no-header"
    And the session file is byte-identical to before

  @id:READER-017
  @clause:P1.3-2 @clause:P1.7-3
  Scenario: Entries without a header before them are refused
    Given a session file with these lines:
      """
      {"type":"message","id":"n1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"session","version":3,"id":"s-late","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      """
    When the session is inspected
    Then the request fails with code "session-no-header"

  @id:READER-018
  @clause:P1.7-3
  Scenario: A byte order mark makes the header unreadable, as it does for Pi
    Given a session file with a UTF-8 byte order mark before these lines:
      """
      {"type":"session","version":3,"id":"s-bom","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      """
    When the session is inspected
    Then the request fails with code "session-no-header"

  @id:READER-019
  @clause:P1.7-2
  Scenario: Non-object JSON values are kept as entries and falsy ones are skipped, as Pi does
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-odd","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"o1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      null
      0
      [1,2]
      {"type":"message","id":"o2","parentId":"o1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      """
    When the session is inspected
    Then the diagnostics count 2 skipped falsy lines at lines 3, 4
    And the diagnostics count 1 non-entry lines at lines 5
    And the entry count is 3
    And the leaf is "o2"

  @id:READER-020
  @clause:P1.3-2 @clause:P1.7-5
  Scenario: A later session header line is ignored, as Pi ignores it
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-first","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/first"}
      {"type":"message","id":"x1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"session","version":3,"id":"s-second","timestamp":"2025-06-01T12:00:02.000Z","cwd":"/second"}
      """
    When the session is inspected
    Then the session id is "s-first" and its cwd is "/first"
    And the diagnostics count 1 later header lines at lines 3
    And the leaf is "x1"

  @id:READER-026
  @clause:P1.7-2
  Scenario Outline: A line nested deeper than a recursive parser goes, or with a huge integer, is an entry, as in Pi
    Given a session file with these lines, where "@VALUE" becomes <value>:
      """
      {"type":"session","version":3,"id":"s-deep","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"h1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"custom","customType":"x","id":"h2","parentId":"h1","timestamp":"2025-06-01T12:00:02.000Z","data":"@VALUE"}
      {"type":"message","id":"h3","parentId":"h2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"y","timestamp":3}}
      """
    When the session is inspected
    Then the diagnostics count 0 malformed lines
    And the entry count is 3
    And the leaf is "h3"
    And the session file is byte-identical to before

    Examples:
      | case               | value                                 |
      | array-990          | an array nested 990 levels deep       |
      | object-990         | an object nested 990 levels deep      |
      | array-100000       | an array nested 100000 levels deep    |
      | integer-5000       | an integer of 5000 digits             |
      | negative-integer   | a negative integer of 4301 digits     |

  @id:READER-027
  @clause:C3.5-8 @clause:C8.4-1 @clause:P1.7-7
  Scenario Outline: The header line must end, its LF included, within the first 1 MiB
    Given a session file whose first line is padded to end with its LF at byte <end>, with these lines:
      """
      {"type":"session","version":3,"id":"s-pad","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w","pad":"@PAD"}
      {"type":"message","id":"p1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      """
    When the session is inspected
    Then the session inspection answers "<answer>"

    Examples:
      | case        | end     | answer                    |
      | one-before  | 1048575 | ok                        |
      | at-bound    | 1048576 | ok                        |
      | one-past    | 1048577 | session-header-scan-limit |

  @id:READER-028
  @clause:P1.7-2
  Scenario: A blank line is blank by JavaScript's trim, not by another language's whitespace
    Given a session file with these lines, where each "[U+XXXX]" is that raw character:
      """
      {"type":"session","version":3,"id":"s-ws","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"w1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      [U+00A0][U+3000]
      [U+2028][U+2029]
      [U+FEFF][U+000B][U+000C]
      [U+0085]
      [U+001F]
      {"type":"message","id":"w2","parentId":"w1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      """
    When the session is inspected
    Then the diagnostics count 3 blank lines at lines 3, 4, 5
    And the diagnostics count 2 malformed lines at lines 6, 7
    And the path ids are "w1 w2"

  @id:READER-029
  @clause:P1.7-1 @clause:P1.7-2 @clause:P3.1-1
  Scenario: A whole entry on an unterminated last line is read, and is the leaf
    Given a session file whose last line has no newline, with these lines:
      """
      {"type":"session","version":3,"id":"s-tail","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"t1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"t2","parentId":"t1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      """
    When the session is inspected
    Then the diagnostics report an unterminated tail
    And the diagnostics count 0 malformed lines
    And the entry count is 2
    And the leaf is "t2"
    And the path ids are "t1 t2"
    When the session records are listed
    Then record 3 is of kind "entry"
    And the last record ends at the end of the file without an LF

  @id:READER-030
  @clause:P1.3-4 @clause:P1.7-3
  Scenario Outline: The header's id must be a string, an empty one included
    Given a session file with these lines, where "@ID" is the JSON text <id>:
      """
      {"type":"session","version":3,"id":"@ID","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"i1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      """
    When the session is inspected
    Then the session inspection answers "<answer>"

    Examples:
      | case   | id    | answer            |
      | string | "s-1" | ok                |
      | empty  | ""    | ok                |
      | number | 7     | session-no-header |
      | null   | null  | session-no-header |
      | array  | ["s"] | session-no-header |

  @id:READER-031
  @clause:P2-5
  Scenario Outline: The header version decides migration as Pi's header.version ?? 1 and its two comparisons do
    Given a session file with these lines, where "@VERSION" is the JSON text <version>:
      """
      {"type":"session","version":"@VERSION","id":"s-ver","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"v1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      """
    When the session is inspected
    Then the file's legacy version is <legacy>
    And the session file is byte-identical to before

    Examples:
      | case         | version | legacy |
      | null         | null    | 1      |
      | zero         | 0       | 1      |
      | one          | 1       | 1      |
      | one-and-half | 1.5     | 1      |
      | two          | 2       | 2      |
      | two-and-half | 2.5     | 2      |
      | three        | 3       | none   |
      | three-float  | 3.0     | none   |
      | four         | 4       | none   |
      | string-three | "3"     | none   |

  @id:READER-032
  @clause:C3.5-6 @clause:C8.4-1 @clause:D3-1
  Scenario Outline: A record is at most 4 MiB, 4194304 bytes with its LF
    Given a session file with these lines, where line 3 is padded to <size> bytes with its LF:
      """
      {"type":"session","version":3,"id":"s-limit","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"g1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"custom","customType":"pad","id":"g2","parentId":"g1","timestamp":"2025-06-01T12:00:02.000Z","data":"@PAD"}
      {"type":"message","id":"g3","parentId":"g1","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"z","timestamp":3}}
      """
    When the session is inspected
    Then the diagnostics count <oversize> oversize records
    And the entry count is <entries>
    And the path ids are "g1 g3"
    When the session records are listed
    Then record 3 is of kind "<kind>"
    And every record carries the SHA-256 of its line bytes without the LF

    Examples:
      | case       | size    | kind     | oversize | entries |
      | one-before | 4194303 | entry    | 0        | 3       |
      | at-bound   | 4194304 | entry    | 0        | 3       |
      | one-past   | 4194305 | oversize | 1        | 2       |

  @id:READER-033
  @clause:P1.7-1
  Scenario: Bytes that are not UTF-8 are read as U+FFFD, as Pi's decoder reads them, and the line stays an entry
    Given a session file with these lines, where each "[xHH]" is that raw byte:
      """
      {"type":"session","version":3,"id":"s-utf8","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"u1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"a[xFF]b[xC3]","timestamp":1}}
      """
    When the session is inspected
    Then the diagnostics count 0 malformed lines
    And the leaf is "u1"
    And context message 1 is exactly:
      """
      {"role":"user","content":"a\ufffdb\ufffd","timestamp":1}
      """
    And the session file is byte-identical to before

  @id:READER-034
  @clause:P1.7-2 @clause:P1.7-4
  Scenario: A file of blank lines only is not empty: it has no session header, and it stays as it was
    Given a session file with these lines, where each "[U+XXXX]" is that raw character:
      """
      [U+0020][U+0020][U+0009]
      [U+3000]
      """
    When the session is inspected
    Then the request fails with code "session-no-header"
    And the session file is byte-identical to before

  @id:READER-035
  @clause:P1.7-2 @clause:P1.7-3
  Scenario: Lines JSON.parse rejects before the header are skipped, and the header after them is read
    Given a session file with these lines:
      """
      {not json before the header
      {"type":"session","version":3,"id":"s-junk","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"j1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      """
    When the session is inspected
    Then the session id is "s-junk" and its cwd is "/w"
    And the diagnostics count 1 malformed lines at lines 1
    And the path ids are "j1"
    And the session file is byte-identical to before

  @id:READER-036
  @clause:P1.7-3
  Scenario: The header's version, cwd and timestamp are not validated: a header without them is still read
    Given a session file with these lines:
      """
      {"type":"session","id":"s-bare","cwd":7}
      {"type":"message","id":"k1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      """
    When the session is inspected
    Then the session inspection answers "ok"
    And the header fields "cwd timestamp" are reported as not strings
