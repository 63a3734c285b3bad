Feature: Source references are opaque, expiring, capped and bound to the session that issued them
  Spec: [contract.md](../../docs/spec/contract.md) [§3.2](../../docs/spec/contract.md#32-sourceref-format-ttl-cap-and-binding), [§3.3](../../docs/spec/contract.md#33-read-algorithm-and-its-codes-in-order) steps 2-4, [§2.7](../../docs/spec/contract.md#27-processing-of-each-hit) step 5, [§7.1](../../docs/spec/contract.md#71-testsintegrationhistory-recalltestts-ebb04f2d-real-pi-sessionmanager-offline) case 4; [decisions.md](../../docs/spec/decisions.md) [D10](../../docs/spec/decisions.md#d10-refs-live-in-a-process)
  A sourceRef is "hist_" and 32 random hex, a key into the host process's own table. It lives
  600,000 ms from minting, at most 512 live at once (expired ones go first, then the oldest
  inserted), it is forgotten when presented while another session is current, and a restart of
  the host forgets them all. What it points at was fixed at recall time from the index; a read
  re-authorizes it against the current leaf and the scope it was minted for.
  The host's clock takes integers from 0 to 2^53-1 ms and never passes 2^53-1, and the abort
  flag a boolean: a value of another type is invalid-params and changes nothing (issue 12).

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-ref","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker. Original constraint: never rename it.","timestamp":1767225601000}}
      {"type":"compaction","id":"compact","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","summary":"The user set an export marker; details omitted.","firstKeptEntryId":"old","tokensBefore":5000}
      {"type":"message","id":"side","parentId":"old","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"A side branch also mentions `LastExportUtc`, wrongly.","timestamp":1767225603000}}
      {"type":"message","id":"recent","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue with `RecentMarker` now.","timestamp":1767225604000}}
      """
    And the clock is set to 1 ms
    And the history host opens the current session

  @id:REF-001
  @clause:C3.2-3 @clause:C3.3-3
  Scenario: A ref read 10 minutes after minting is expired, and stays forgotten
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "minted-at-1"
    And the clock is set to 601000 ms
    And the reference "minted-at-1" is read
    Then the result is unavailable with code "reference-expired"
    When the clock is set to 2 ms
    And the reference "minted-at-1" is read
    Then the result is unavailable with code "reference-expired"
    When recall is asked for "`LastExportUtc`"
    And the first hit is read
    Then the read text contains "Original constraint"

  @id:REF-002
  @clause:C3.2-3 @clause:C3.3-3 @clause:C8.4-1
  Scenario: A ref expires exactly when expires <= now: one ms earlier it still reads
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "minted-at-1"
    And the clock is set to 600000 ms
    And the reference "minted-at-1" is read
    Then the read is whole
    And the read source entry id is "old"
    When the clock moves on by 1 ms
    And the reference "minted-at-1" is read
    Then the result is unavailable with code "reference-expired"

  @id:REF-003
  @clause:C3.2-3
  Scenario: A ref can be read again and again while it lives
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "ref"
    And the reference "ref" is read
    And the clock moves on by 300000 ms
    And the reference "ref" is read
    Then the read is whole
    And the read source entry id is "old"

  @id:REF-004
  @clause:C3.2-2 @clause:D10-1
  Scenario: A restart of the host forgets every ref, live or not
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "before-restart"
    And the history host restarts
    And the reference "before-restart" is read
    Then the result is unavailable with code "reference-expired"
    When recall is asked for "`LastExportUtc`"
    And the first hit is read
    Then the read is whole
    And the read source entry id is "old"

  @id:REF-005
  @clause:C3.2-5 @clause:C3.3-3 @clause:C8.1-8
  Scenario: A ref presented while another session is current is refused and forgotten
    Given the sibling history session "other" with these lines:
      """
      {"type":"session","version":3,"id":"s-other","timestamp":"2026-01-02T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"o1","parentId":null,"timestamp":"2026-01-02T00:00:01.000Z","message":{"role":"user","content":"Another session about `LastExportUtc`.","timestamp":1767312001000}}
      """
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "issued-by-s-ref"
    And the history host switches to the sibling session "other"
    And the reference "issued-by-s-ref" is read
    Then the result is unavailable with code "reference-expired"
    When the history host opens the current session
    And the reference "issued-by-s-ref" is read
    Then the result is unavailable with code "reference-expired"

  @id:REF-006
  @clause:C0.3-5 @clause:C3.1-2 @clause:C3.2-1 @clause:C3.2-6 @clause:C3.3-2 @clause:C8.1-8
  Scenario Outline: A ref never resolves a path or an id given by the caller
    When recall is asked for "`LastExportUtc`"
    And read is asked with:
      """
      <arguments>
      """
    Then the result is unavailable with code "<code>"

    Examples:
      | case             | arguments                                                  | code              |
      | session-path     | {"sourceRef": "{session-file}"}                            | invalid-reference |
      | entry-id         | {"sourceRef": "old"}                                       | invalid-reference |
      | session-id       | {"sourceRef": "s-ref"}                                     | invalid-reference |
      | upper-case-hex   | {"sourceRef": "hist_0123456789ABCDEF0123456789ABCDEF"}     | invalid-reference |
      | too-short        | {"sourceRef": "hist_0123456789abcdef0123456789abcde"}      | invalid-reference |
      | too-long         | {"sourceRef": "hist_0123456789abcdef0123456789abcdef0"}    | invalid-reference |
      | path-after-hist  | {"sourceRef": "hist_../../current.jsonl"}                  | invalid-reference |
      | a-number         | {"sourceRef": 42}                                          | invalid-reference |
      | null             | {"sourceRef": null}                                        | invalid-reference |
      | missing          | {"startLine": 1}                                           | invalid-reference |
      | never-issued     | {"sourceRef": "hist_00000000000000000000000000000000"}     | reference-expired |

  @id:REF-007
  @clause:C0.3-5 @clause:C3.2-1 @clause:C3.3-3 @clause:C8.1-8
  Scenario: A ref carries no meaning: one hex digit changed is a ref never issued
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is read with its last hex digit changed
    Then the result is unavailable with code "reference-expired"
    When the first hit is read
    Then the read is whole

  @id:REF-008
  @clause:C3.3-5
  Scenario: A ref is bound to the session file path string it was minted for
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "ref"
    And the current session file is copied to the sibling session "copy"
    And the history host switches to the sibling session "copy"
    And the reference "ref" is read
    Then the result is unavailable with code "reference-out-of-scope"
    When the history host opens the current session
    And the reference "ref" is read
    Then the read is whole
    And the read source entry id is "old"

  @id:REF-009
  @clause:C3.3-5 @clause:C3.3-6
  Scenario: Moving the leaf to a sibling branch that still holds the entry keeps the ref; a reset leaf does not
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "ref"
    And the active leaf moves to "side"
    And the reference "ref" is read
    Then the read is whole
    And the read source entry id is "old"
    When the active leaf moves to "null"
    And the reference "ref" is read
    Then the result is unavailable with code "reference-out-of-scope"
    When the active leaf moves to "recent"
    And the reference "ref" is read
    Then the read is whole

  @id:REF-010
  @clause:C3.3-5
  Scenario: A ref to an entry that the new branch no longer holds is out of scope
    When recall is asked for "`RecentMarker`"
    Then the hit entry ids are "recent"
    When the first hit's reference is kept as "recent"
    And the active leaf moves to "side"
    And the reference "recent" is read
    Then the result is unavailable with code "reference-out-of-scope"

  @id:REF-011
  @clause:C3.3-4 @clause:C8.1-8
  Scenario: A read re-authorizes against the scope the ref was minted for
    When recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-session"}
      """
    And the hit with entry id "side" is read
    Then the read is whole
    And the read source has relation "other-branch"
    When the active leaf moves to "null"
    And the hit with entry id "side" is read
    Then the read is whole
    When the active leaf moves to "recent"
    And recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "branch-scoped"
    And the reference "branch-scoped" is read
    Then the read is whole
    When the active leaf moves to "null"
    And the reference "branch-scoped" is read
    Then the result is unavailable with code "reference-out-of-scope"

  @id:REF-012
  @clause:C3.2-4 @clause:C8.4-1
  Scenario: At most 512 refs live: minting the 513th evicts the oldest inserted
    Given the current history session has 6 numbered replies under "old" that say "CapMarker"
    When recall is asked for "`LastExportUtc`"
    And recall is asked 85 more times with:
      """
      {"query": "`CapMarker`", "scope": "current-session"}
      """
    Then the last recall returned 6 hits
    When recall is asked for "`LastExportUtc`"
    Then the recalls so far returned 512 distinct references
    When reference number 1 issued in this scenario is read
    Then the read is whole
    And the read source entry id is "old"
    When recall is asked for "`LastExportUtc`"
    Then the recalls so far returned 513 distinct references
    When reference number 1 issued in this scenario is read
    Then the result is unavailable with code "reference-expired"
    When reference number 2 issued in this scenario is read
    Then the read is whole
    When reference number 513 issued in this scenario is read
    Then the read is whole

  @id:REF-013
  @clause:D9-1
  Scenario Outline: The clock and the abort flag refuse a value of the wrong type and keep their own
    When recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "kept"
    And the history host is sent <op> with the params <params>
    Then that request is refused with code "invalid-params"
    When the reference "kept" is read
    Then the read is whole
    And the read source entry id is "old"

    Examples:
      | case                 | op                 | params                        |
      | now-null             | clock.set          | {"nowMs": null}               |
      | now-true             | clock.set          | {"nowMs": true}               |
      | now-text             | clock.set          | {"nowMs": "5"}                |
      | now-negative         | clock.set          | {"nowMs": -1}                 |
      | now-past-safe        | clock.set          | {"nowMs": 9007199254740992}   |
      | ms-text              | clock.advance      | {"ms": "700000"}              |
      | ms-fraction          | clock.advance      | {"ms": 1.5}                   |
      | ms-absent            | clock.advance      | {}                            |
      | ms-past-safe         | clock.advance      | {"ms": 9007199254740992}      |
      | aborted-text         | history.setAborted | {"aborted": "yes"}            |
      | aborted-number       | history.setAborted | {"aborted": 1}                |
      | aborted-absent       | history.setAborted | {}                            |

  @id:REF-014
  @clause:D9-1
  Scenario: The clock reaches 2^53-1 ms and goes no further
    When the history host is sent clock.set with the params {"nowMs": 9007199254740990}
    Then that request answered nowMs 9007199254740990
    When the history host is sent clock.advance with the params {"ms": 1}
    Then that request answered nowMs 9007199254740991
    When the history host is sent clock.advance with the params {"ms": 1}
    Then that request is refused with code "invalid-params"
    When the history host is sent clock.advance with the params {"ms": 0}
    Then that request answered nowMs 9007199254740991
    When the history host is sent clock.set with the params {"nowMs": 0}
    Then that request answered nowMs 0

  @id:REF-015
  @clause:C2.7-14 @clause:C3.2-4
  Scenario: Only the hits a recall returns take a place among the 512 refs, not those the limit cut
    Given the current history session has 12 numbered replies under "old" that say "CapMarker"
    When recall is asked for "`LastExportUtc`"
    And recall is asked 43 more times with:
      """
      {"query": "`CapMarker`", "scope": "current-session", "limit": 1}
      """
    Then the last recall returned 1 hits
    And the recalls so far returned 44 distinct references
    When reference number 1 issued in this scenario is read
    Then the read is whole
    And the read source entry id is "old"
