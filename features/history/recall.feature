Feature: Explicit history recall
  Spec: [contract.md](../../docs/spec/contract.md) [§2](../../docs/spec/contract.md#2-context_history_recall) (context_history_recall), [§7.1](../../docs/spec/contract.md#71-testsintegrationhistory-recalltestts-ebb04f2d-real-pi-sessionmanager-offline); [decisions.md](../../docs/spec/decisions.md) [D4](../../docs/spec/decisions.md#d4-dates), [D5](../../docs/spec/decisions.md#d5-deterministic-order), [D7](../../docs/spec/decisions.md#d7-warnings)
  Recall searches the canonical history of the current session through the index, with every
  scope filter inside SQL before the LIMIT, and returns quoted, bounded, verified excerpts.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-recall","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker. Original constraint: never rename it.","timestamp":1767225601000}}
      {"type":"compaction","id":"compact","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","summary":"The user set an export marker; details omitted.","firstKeptEntryId":"old","tokensBefore":5000}
      {"type":"message","id":"recent","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue with the implementation.","timestamp":1767225604000}}
      """
    And the current history session has 150 sibling replies under "old" that say "LastExportUtc sibling branch wrong contract"
    And the history host opens the current session

  @id:RECALL-001
  @clause:C2.5-7 @clause:C2.5-9 @clause:C2.6-2 @clause:C2.6-8 @clause:C2.6-9 @clause:C2.6-13 @clause:C2.6-14 @clause:C2.6-39 @clause:C2.6.1-17 @clause:C2.8-4 @clause:C2.9-1 @clause:C2.9-2 @clause:C2.9-3 @clause:C2.9-4 @clause:C2.9-6 @clause:C2.9-7 @clause:C2.9-16 @clause:C2.9-24 @clause:C2.9-26
  Scenario: An ancestor is found although 150 newer siblings match the same term (scope before LIMIT)
    When recall is asked with:
      """
      {"query": "`LastExportUtc`", "limit": 6}
      """
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    And every hit has relation "ancestor"
    And the first hit has matchReasons "['exact-identifier']"

  @id:RECALL-002
  @clause:C0.3-3 @clause:C0.3-5 @clause:C2.6-3
  Scenario: A message from before the compaction is found and read back verbatim
    When recall is asked for "`LastExportUtc`"
    And the first hit is read
    Then the read text contains "Original constraint: never rename it."
    And the read source entry id is "old"
    And the read is whole
    And no result names a session file path
    And every history session file is byte-identical to before

  @id:RECALL-003
  @clause:C2.5-8 @clause:C2.5-29
  Scenario: current-session scope also searches the other branches and labels them
    When recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-session"}
      """
    Then some hit has relation "other-branch"

  @id:RECALL-004
  @clause:C2.3-20 @clause:C2.3-17 @clause:C2.6-5 @clause:C2.6-10 @clause:C2.9-20 @clause:C2.9-21 @clause:C2.9-29
  Scenario: Summaries are found only when asked for, and keep their derived type
    When recall is asked for "omitted"
    Then there are no hits
    When recall is asked with:
      """
      {"query": "omitted", "includeSummaries": true}
      """
    Then the first hit has kind "compaction"
    And the first hit has role "summary"

  @id:RECALL-005
  @clause:C2.5-4
  Scenario: Recalling twice gives the same hits and does not grow the index
    When recall is asked for "`LastExportUtc`"
    And the history status is asked
    Then the status reports 153 indexed entries
    When recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    When the history status is asked
    Then the status reports 153 indexed entries

  @id:RECALL-006
  @clause:C2.5-4 @clause:C8.1-1
  Scenario: Deleting the index loses nothing: the next recall rebuilds it from the JSONL
    When recall is asked for "`LastExportUtc`"
    And the history index file is deleted
    And the history host restarts
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    And every history session file is byte-identical to before

  @id:RECALL-007
  @clause:C2.6-16 @clause:C2.6.1-16 @clause:C2.8-7 @clause:C8.3-23 @clause:C8.3-24 @clause:D7-1
  Scenario: A query with no search terms is complete, empty and says so
    When recall is asked for "the and of"
    Then the result is complete with warnings "no-query-terms"
    And there are no hits

  @id:RECALL-008
  @clause:C2.8-10 @clause:C2.8-11 @clause:C2.8-12 @clause:C2.8-13 @clause:D7-1
  Scenario: The output budget bounds the result and says so
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"long","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"LongMarker one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty LongMarker one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty LongMarker one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty LongMarker one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty LongMarker one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty LongMarker one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty","timestamp":1767225605000}}
      """
    When recall is asked with:
      """
      {"query": "`LongMarker`", "maxOutputTokens": 256}
      """
    Then the result is partial with warnings "output-budget"
    And there are no hits
    And the result with 0 tokens of room fits 256 chars-v1 tokens

  @id:RECALL-009
  @clause:C2.3-20 @clause:C2.3-18 @clause:C2.6-5 @clause:C2.6-11 @clause:C2.6-12 @clause:C8.3-8 @clause:D4-1
  Scenario: Roles and dates filter inside the search
    When recall is asked with:
      """
      {"query": "`LastExportUtc`", "roles": ["assistant"]}
      """
    Then there are no hits
    When recall is asked with:
      """
      {"query": "`LastExportUtc`", "after": "2026-01-01T00:00:01Z"}
      """
    Then there are no hits
    When recall is asked with:
      """
      {"query": "`LastExportUtc`", "before": "2026-01-01T00:00:02+00:00"}
      """
    Then the hit entry ids are "old"

  @id:RECALL-010
  @clause:C2.5-5 @clause:C8.1-3
  Scenario: Recall never writes a session file, even with a torn tail appended
    When the current session file gets this line appended without a newline: {"incomplete":
    And the history session files are remembered
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    And the result carries the warning "source-coverage-partial"
    And every history session file is byte-identical to before

  @id:RECALL-017
  @clause:C2.6.1-3 @clause:C2.6.1-4 @clause:C2.6.1-18 @clause:C2.6.1-9 @clause:C2.6.1-11 @clause:C2.6.1-12 @clause:C2.6.1-13 @clause:C2.7-10
  Scenario Outline: Each query term cap keeps the term at the cap and drops the one past it (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-terms","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Nothing to see here.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "spread" that says "<past>", "<bound>" and "<anchor>", 2400 characters apart
    And the history host opens the current session
    When recall is asked for the query <query>
    Then the hit entry ids are "spread"
    And the first hit's excerpt contains "<bound>"
    And the first hit's excerpt does not contain "<past>"

    Examples:
      | case                  | query                                                                                                                                           | past   | bound  | anchor |
      | 8-phrases             | "p1 q1" "p2 q2" "p3 q3" "p4 q4" "p5 q5" "p6 q6" "p7 q7" "p8 q8" "p9 q9"                                                                        | p9 q9  | p8 q8  | p1 q1  |
      | 16-files              | 101.md 102.md 103.md 104.md 105.md 106.md 107.md 108.md 109.md 110.md 111.md 112.md 113.md 114.md 115.md 116.md 117.md                          | 117.md | 116.md | 101.md |
      | 20-symbols            | q_a q_b q_c q_d q_e q_f q_g q_h q_i q_j q_k q_l q_m q_n q_o q_p q_q q_r q_s q_t q_u                                                             | q_u    | q_t    | q_a    |
      | 20-keywords           | kwaa kwab kwac kwad kwae kwaf kwag kwah kwai kwaj kwak kwal kwam kwan kwao kwap kwaq kwar kwas kwat kwau                                       | kwau   | kwat   | kwaa   |
      | 24-exact-identifiers  | `b01` `b02` `b03` `b04` `b05` `b06` `b07` `b08` `b09` `b10` `b11` `b12` `b13` `b14` `b15` `b16` `b17` `b18` `b19` `b20` `b21` `b22` `b23` `b24` `b25` | b25    | b24    | b01    |
      | 24-terms              | `b01` `b02` `b03` `b04` `b05` `b06` `b07` `b08` `b09` `b10` `b11` `b12` `b13` `b14` `b15` `b16` `b17` `b18` `b19` `b20` kwone kwtwo kwthr kwfou kwfiv | kwfiv  | kwfou  | b01    |

  @id:RECALL-018
  @clause:C2.6.1-3 @clause:C2.6.1-16 @clause:D7-1
  Scenario Outline: A quoted phrase needs 4 chars: 3 give no query term (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-phrase","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Say x y and x yz here.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for the query <query>
    Then the result is complete with <warnings>

    Examples:
      | case     | query    | warnings                   |
      | 3-chars  | "x y"    | warnings "no-query-terms"  |
      | 4-chars  | "x yz"   | no warnings                |

  @id:RECALL-028
  @clause:C2.7-9 @clause:C2.7-13 @clause:C2.9-25 @clause:C2.9-28 @clause:C8.3-3 @clause:C8.4-1 @clause:D3-1
  Scenario Outline: An excerpt holds up to 1800 UTF-16 units whole; a longer text is cut (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-excerpt","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Nothing to see here.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "edge" of exactly <units> UTF-16 units starting "ExcerptEdge"
    And the history host opens the current session
    When recall is asked for "`ExcerptEdge`"
    Then the hit entry ids are "edge"
    And the first hit has truncated "<truncated>"

    Examples:
      | case        | units | truncated |
      | one-before  | 1799  | False     |
      | at-bound    | 1800  | False     |
      | one-past    | 1801  | True      |

  @id:RECALL-029
  @clause:C2.6-36
  Scenario: Entries whose text is the same after trimming, collapsing whitespace and lower-casing give one hit
    The 150 siblings say the same text; one more says it in other case and spacing and is found only
    through its FTS term. Only the first in engine order is kept, so one sibling remains ("old" lies
    past the newest 72 candidates of this scope).
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"spaced","parentId":"old","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":"  lastexportutc   SIBLING branch\n\t wrong   contract ","timestamp":1767225606000}}
      """
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-session", "limit": 12}
      """
    Then the result is complete with no warnings
    And the recall found 1 hits
    And every hit has relation "other-branch"

  @id:RECALL-030
  @clause:C2.6-38 @clause:C2.6-39 @clause:C2.6-40 @clause:C2.6-41 @clause:C2.9-26
  Scenario Outline: A hit carries one match reason: an identifier over a phrase over a lexical term (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-reason","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep ReasonMarker as the export marker of the nightly run.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for the query <query>
    Then the hit entry ids are "m1"
    And the first hit has matchReasons "['<reason>']"

    Examples:
      | case                  | query                              | reason           |
      | identifier-and-phrase | `ReasonMarker` "the export marker" | exact-identifier |
      | phrase-and-keyword    | "the export marker" nightly        | exact-phrase     |
      | keyword-only          | nightly                            | lexical-match    |

  @id:RECALL-031
  @clause:C2.6-12 @clause:D4-1
  Scenario Outline: Date filters compare the entry's own timestamp, strictly, and an undated entry never matches (<case>)
    The message's timestamp lies a day before its entry's; only the entry's counts.
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-dates","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"dated","parentId":null,"timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"user","content":"DateMarker on the dated entry.","timestamp":1767225600000}}
      {"type":"message","id":"undated","parentId":"dated","timestamp":"not a date","message":{"role":"user","content":"DateMarker on the undated entry.","timestamp":1767312000000}}
      """
    And the history host opens the current session
    When recall is asked with:
      """
      {"query": "`DateMarker`", <filter>}
      """
    Then the result is complete with no warnings
    And the recall found <count> hits

    Examples:
      | case                  | filter                                                               | count |
      | before-the-entry      | "before": "2026-01-02T00:00:00.000Z"                                 | 0     |
      | before-one-ms-later   | "before": "2026-01-02T00:00:00.001Z"                                 | 1     |
      | after-the-entry       | "after": "2026-01-02T00:00:00.000Z"                                  | 0     |
      | after-one-ms-earlier  | "after": "2026-01-01T23:59:59.999Z"                                  | 1     |
      | message-time-window   | "after": "2025-12-31T12:00:00Z", "before": "2026-01-01T12:00:00Z"    | 0     |

  @id:RECALL-035
  @clause:C2.6.1-2 @clause:C2.6.1-12
  Scenario Outline: A backticked span is an exact identifier from 2 to 160 characters (<case>)
    The spans hold only words too short to be symbols or keywords: outside the bounds the query has
    no term at all.
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-spans","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"keep a and ab here; x ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab aa y","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for the query <query>
    Then the result is complete with <warnings>
    And the recall found <count> hits

    Examples:
      | case       | query | warnings                  | count |
      | 1-char     | `a`   | warnings "no-query-terms" | 0     |
      | 2-chars    | `ab`  | no warnings               | 1     |
      | 160-chars  | `ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab a` | no warnings         | 1     |
      | 161-chars  | `ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab ab aa` | warnings "no-query-terms" | 0 |

  @id:RECALL-036
  @clause:C2.6.1-5 @clause:C2.6.1-6 @clause:C2.6.1-8 @clause:C2.6.1-9 @clause:C2.6.1-12
  Scenario Outline: Qualified names, flags and symbol-shaped words are exact identifiers; a plain word is lexical (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-symbols","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Run os.path and std::vector with --verbose; lastExport, snake_case and Nightly too.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for the query <query>
    Then the hit entry ids are "m1"
    And the first hit has matchReasons "['<reason>']"

    Examples:
      | case           | query       | reason           |
      | dotted-name    | os.path     | exact-identifier |
      | colon-name     | std::vector | exact-identifier |
      | flag           | --verbose   | exact-identifier |
      | camel-case     | lastExport  | exact-identifier |
      | underscore     | snake_case  | exact-identifier |
      | capitalised    | Nightly     | exact-identifier |
      | plain-keyword  | nightly     | lexical-match    |

  @id:RECALL-037
  @clause:C2.6-15 @clause:C2.6-42 @clause:C2.6-20
  Scenario Outline: An FTS row counts only where its term is a whole token once accents are folded (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-tokens","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"accented","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Le Résumé final.","timestamp":1767225601000}}
      {"type":"message","id":"spaced","parentId":"accented","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"the export marker","timestamp":1767225602000}}
      {"type":"message","id":"joined","parentId":"spaced","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"the export_marker","timestamp":1767225603000}}
      {"type":"message","id":"hyphen","parentId":"joined","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"an ab-cd plan","timestamp":1767225604000}}
      {"type":"message","id":"quoted","parentId":"hyphen","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"he said \"hi there\" ok","timestamp":1767225605000}}
      """
    And the history host opens the current session
    When recall is asked for the query <query>
    Then the result is complete with <warnings>
    And the hit entry ids are "<hits>"

    Examples:
      | case                 | query            | warnings                  | hits     |
      | accents-folded       | resume           | no warnings               | accented |
      | underscore-is-joined | export_marker    | no warnings               | joined   |
      | phrase-across-hyphen | "ab cd" resume    | no warnings               | accented |
      | quote-in-a-term      | `said "hi`       | no warnings               | quoted   |

  @id:RECALL-038
  @clause:C2.6-15
  Scenario: The FTS query holds the first 16 unique terms: a keyword past them finds nothing
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-fts16","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"p16","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"only kwap here","timestamp":1767225601000}}
      {"type":"message","id":"p17","parentId":"p16","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"only kwaq here","timestamp":1767225602000}}
      """
    And the history host opens the current session
    When recall is asked for "kwaa kwab kwac kwad kwae kwaf kwag kwah kwai kwaj kwak kwal kwam kwan kwao kwap kwaq"
    Then the result is complete with no warnings
    And the hit entry ids are "p16"

  @id:RECALL-039
  @clause:C2.6-7
  Scenario Outline: retrieval.exact and retrieval.fts switch the two searches of recall (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-kinds","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep ReasonMarker stable.","timestamp":1767225601000}}
      {"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"the nightly run","timestamp":1767225602000}}
      """
    And the global history configuration:
      """
      <config>
      """
    And the history host opens the current session
    When recall is asked for the query `ReasonMarker` nightly
    Then the result is complete with no warnings
    And the hit entry ids are "<hits>"
    And the first hit has matchReasons "['<reason>']"

    Examples:
      | case      | config                            | hits  | reason           |
      | both-on   | {}                                | m1 m2 | exact-identifier |
      | exact-off | {"retrieval": {"exact": false}}   | m1 m2 | lexical-match    |
      | fts-off   | {"retrieval": {"fts": false}}     | m1    | exact-identifier |

  @id:RECALL-040
  @clause:C2.9-15
  Scenario: A hit's keys come in the contract's order, role and timestamp included when known
    When recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    And the first hit's keys are "sourceRef projectId sessionId entryId kind role timestamp relation classification excerpt matchReasons score truncated"
