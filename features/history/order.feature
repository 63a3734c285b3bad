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
  @clause:C2.8-16 @clause:C2.8-2 @clause:C8.3-9 @clause:D5-1
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
  @clause:C8.3-9 @clause:D5-1
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
  @clause:C2.6.1-10 @clause:C2.8-1
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

  @id:RECALL-033
  @clause:C2.6-43 @clause:C2.6-23 @clause:C2.8-16 @clause:C2.8-1 @clause:C2.8-3
  Scenario: The final order is by score alone: a lexical hit of three terms outranks an identifier hit
    "preZetaPost" holds the identifier as a substring only, so its entry matches no FTS term: 100 for
    the identifier and 10 for the symbol; the other entry matches three FTS terms, 60 + 10 + 80.
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-order","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"ex","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep preZetaPost stable.","timestamp":1767225601000}}
      {"type":"message","id":"lx","parentId":"ex","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"alphaword betaword gammaword together.","timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked for "`Zeta` alphaword betaword gammaword"
    Then the hit entry ids are "lx ex"
    And the first hit has matchReasons "['lexical-match']"

  @id:RECALL-034
  @clause:C2.6-43 @clause:C2.6-21 @clause:C2.6-22 @clause:C2.6-23 @clause:C2.6-24 @clause:C2.6-25 @clause:C2.6-26 @clause:C2.6-28 @clause:C2.6-29 @clause:C2.6-31 @clause:C2.6.1-5 @clause:C2.6.1-7 @clause:C2.6.1-14
  Scenario Outline: Each part of the score, seen as the difference between two hits that differ in it alone (<case>)
    Both entries hold "ZetaMark" inside a longer word, so the identifier matches them as a substring
    and no FTS term matches it; the parts compared are the only difference between the two.
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-score","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"b","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"<role_b>","content":[{"type":"text","text":"<text_b>"}],"toolCallId":"c1","toolName":"bash","isError":false,"timestamp":1767225601000}}
      {"type":"message","id":"a","parentId":"b","timestamp":"<time_a>","message":{"role":"<role_a>","content":[{"type":"text","text":"<text_a>"}],"toolCallId":"c1","toolName":"bash","isError":false,"timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked for the query <query>
    Then the hit "a" scores <difference> more than the hit "b"

    Examples:
      | case                 | role_a    | role_b     | time_a                   | text_a                                        | text_b                                        | query                                                     | difference |
      | user-over-assistant  | user      | assistant  | 2026-01-01T00:00:01.000Z | qqZetaMarkqq one.                             | qqZetaMarkqq two.                             | `ZetaMark`                                                | 3          |
      | assistant-over-tool  | assistant | toolResult | 2026-01-01T00:00:01.000Z | qqZetaMarkqq one.                             | qqZetaMarkqq two.                             | `ZetaMark`                                                | 1          |
      | newest-of-the-span   | user      | user       | 2026-01-01T00:00:02.000Z | qqZetaMarkqq one.                             | qqZetaMarkqq two.                             | `ZetaMark`                                                | 8          |
      | two-identifiers      | user      | user       | 2026-01-01T00:00:01.000Z | xzeta onex xzeta twox                         | xzeta onex yyyyyyyyyy                         | `zeta one` `zeta two`                                     | 3          |
      | six-identifiers      | user      | user       | 2026-01-01T00:00:01.000Z | xk1 ax xk2 ax xk3 ax xk4 ax xk5 ax xk6 ax     | xk1 ax yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy     | `k1 a` `k2 a` `k3 a` `k4 a` `k5 a` `k6 a`                 | 12         |
      | two-phrases          | user      | user       | 2026-01-01T00:00:01.000Z | xzeta onex xzeta twox                         | xzeta onex yyyyyyyyyy                         | "zeta one" "zeta two"                                     | 2          |
      | six-phrases          | user      | user       | 2026-01-01T00:00:01.000Z | xkk1 ax xkk2 ax xkk3 ax xkk4 ax xkk5 ax xkk6 ax | xkk1 ax yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy | "kk1 a" "kk2 a" "kk3 a" "kk4 a" "kk5 a" "kk6 a"         | 8          |
      | a-file               | user      | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq xnotes.mdx                       | qqZetaMarkqq yyyyyyyyyy                       | `ZetaMark` notes.md                                       | 25         |
      | an-error-code        | user      | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq xENOENTx                         | qqZetaMarkqq yyyyyyyy                         | `ZetaMark` ENOENT                                         | 25         |
      | a-symbol             | user      | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq xstd::vectorx                    | qqZetaMarkqq yyyyyyyyyyyyy                    | `ZetaMark` std::vector                                    | 13         |
      | symbol-case-sensitive | user     | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq xstd::vectorx                    | qqZetaMarkqq ySTD::VECTORy                    | `ZetaMark` std::vector                                    | 13         |
      | span-without-space   | user      | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq zx+yz                            | qqZetaMarkqq zzzzz                            | `ZetaMark` `x+y`                                          | 13         |
      | terms-unique-any-case | user     | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq alphaword                        | qqZetaMarkqq yyyyyyyyy                        | `ZetaMark` ALPHAWORD alphaword                            | 70         |
      | one-fts-term         | user      | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq alphaword yyyyyyyy               | qqZetaMarkqq yyyyyyyyyyyyyyyyyy               | `ZetaMark` alphaword betaword                             | 70         |
      | two-fts-terms        | user      | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq alphaword betaword               | qqZetaMarkqq yyyyyyyyyyyyyyyyyy               | `ZetaMark` alphaword betaword                             | 110        |
      | four-fts-terms       | user      | user       | 2026-01-01T00:00:01.000Z | qqZetaMarkqq alphaword betaword gammaword deltaword | qqZetaMarkqq yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy | `ZetaMark` alphaword betaword gammaword deltaword | 150 |

  @id:RECALL-041
  @clause:C2.6-6 @clause:C2.6-44 @clause:C2.6-32 @clause:C2.6-37 @clause:C8.4-2
  Scenario: A source gives at most 12 hits in engine order: 12 identifier hits keep out a lexical hit of higher score
    The lexical entry scores 60 + 10 + 80 on its three FTS terms, more than any identifier entry
    (100 + 10, the identifier inside a longer word); identifiers come first in the engine's order.
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-cap","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"r0","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start.","timestamp":1767225601000}}
      {"type":"message","id":"lx","parentId":"r0","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"alphaword betaword gammaword together.","timestamp":1767225602000}}
      {"type":"message","id":"tail","parentId":"lx","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue.","timestamp":1767225604000}}
      """
    And the current history session has 12 numbered replies under "r0" that say "Keep preZetaPost"
    And the global history configuration:
      """
      {"historyTools": {"maxResults": 12}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`Zeta` alphaword betaword gammaword", "scope": "current-session", "limit": 12}
      """
    Then the result is complete with no warnings
    And the recall found 12 hits
    And no hit has the entry id "lx"

  @id:RECALL-042
  @clause:C2.6-44 @clause:C2.6-33 @clause:C2.6-34 @clause:C2.6-35 @clause:C2.6-36
  Scenario Outline: Of two duplicates the first in engine order is kept: the higher score, else the newer, else the smaller entry id (<case>)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-dups","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"dup-b","parentId":null,"timestamp":"<time_b>","message":{"role":"<role_b>","content":[{"type":"text","text":"Keep preZetaPost stable."}],"toolCallId":"c1","toolName":"bash","isError":false,"timestamp":1767225601000}}
      {"type":"message","id":"dup-a","parentId":"dup-b","timestamp":"<time_a>","message":{"role":"<role_a>","content":[{"type":"text","text":"Keep preZetaPost stable."}],"toolCallId":"c1","toolName":"bash","isError":false,"timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked for "`Zeta`"
    Then the result is complete with no warnings
    And the hit entry ids are "<kept>"

    Examples:
      | case             | role_a    | role_b | time_a                   | time_b                   | kept  |
      | equal-scores     | user      | user   | 2026-01-01T00:00:01.000Z | 2026-01-01T00:00:01.000Z | dup-a |
      | the-higher-score | assistant | user   | 2026-01-01T00:00:01.000Z | 2026-01-01T00:00:01.000Z | dup-b |
      | the-dated-one    | user      | user   | not a date               | 2026-01-01T00:00:01.000Z | dup-b |

  @id:RECALL-043
  @clause:C2.6-43 @clause:C2.6-27 @clause:C2.6-30 @clause:C2.9-27
  Scenario Outline: A lone identifier hit scores 100 + 10 + 15 + 8 less its length, by at most 12 (<case>)
    The identifier sits inside a longer word (no FTS term matches) and is a symbol (10); the user
    role adds 8 and every recall hit the fixed 15; one candidate has no recency span.
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-lone","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"intro","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Nothing to see here.","timestamp":1767225601000}}
      """
    And the current history session ends with a user message "lone" of exactly <units> UTF-16 units starting "preZetaPost"
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`Zeta`", "maxOutputTokens": 6000}
      """
    Then the hit entry ids are "lone"
    And the first hit's score lies between <low> and <high>

    Examples:
      | case         | units | low   | high |
      | short-text   | 40    | 132.9 | 133  |
      | longest-text | 64000 | 121   | 121  |
