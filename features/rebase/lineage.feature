Feature: A verified link makes the target a continuation of its source for history recall
  Spec: [contract.md](../../docs/spec/contract.md) [§6.13](../../docs/spec/contract.md#613-lineage-verification-loadrebasestate), [§6.3](../../docs/spec/contract.md#63-what-complete-canonical-source-means), [§2.5](../../docs/spec/contract.md#25-scope-resolution-sources) (current-lineage), [§5.3](../../docs/spec/contract.md#53-migration-18-rebuildable-rebase-projections), [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) cases 1, 17
  Only a checkpoint/link pair on the active branch of the current session, verified against the
  source prefix, grants lineage. Recall in current-lineage scope then also searches the source's
  captured branch, labelled lineage-ancestor. A parentSession header alone grants nothing, a
  branch reset before the link removes the lineage, and any failed check is reported as the
  warning lineage-integrity-unavailable. The projection is rebuilt from the JSONL.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-lineage","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted, the export keeps its column."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767225602000}}
      {"type":"compaction","id":"compact","parentId":"answer","timestamp":"2026-01-01T00:00:03.000Z","summary":"The export work so far.","firstKeptEntryId":"answer","tokensBefore":100}
      {"type":"message","id":"sibling","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"LastExportUtc WRONG_SIBLING_PAYLOAD","timestamp":1767225604000}}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225605000}}
      """

  @id:LINEAGE-001
  @clause:C2.5-30 @clause:C2.5-31 @clause:C2.5-13 @clause:C2.9-23 @clause:C6.13-2 @clause:C6.13-27 @clause:C8.3-43
  Scenario: From the target, current-lineage recall finds an original source message as lineage-ancestor
    When the rebase host opens the current session
    And a rebase is asked
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result is complete with no warnings
    And the effective scope is "current-lineage"
    And the hit entry ids are "old"
    And the hit "old" has relation "lineage-ancestor"
    And the rebase source is byte-identical to before

  @id:LINEAGE-002
  @clause:C2.5-30 @clause:C8.1-4 @clause:C8.3-43
  Scenario: current-branch recall from the target does not reach into the source
    When the rebase host opens the current session
    And a rebase is asked
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-branch"}
      """
    Then the result is complete with no warnings
    And there are no hits

  @id:LINEAGE-003
  @clause:C2.5-13 @clause:C6.13-27
  Scenario: Lineage covers only the captured branch of the source, not its other branches
    When the rebase host opens the current session
    And a rebase is asked
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the hit entry ids are "old"
    And no result contains "WRONG_SIBLING_PAYLOAD"

  @id:LINEAGE-004
  @clause:C2.5-15 @clause:C6.13-3
  Scenario: A parentSession header alone grants no lineage
    Given the session "child" beside the current one, with these lines:
      """
      {"type":"session","version":3,"id":"s-child","timestamp":"2026-01-02T00:00:00.000Z","cwd":"{cwd}","parentSession":"{source}"}
      {"type":"message","id":"c1","parentId":null,"timestamp":"2026-01-02T00:00:01.000Z","message":{"role":"user","content":"A session that only claims a parent","timestamp":1767312001000}}
      """
    When the history host switches to the sibling session "child"
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result is complete with no warnings
    And there are no hits

  @id:LINEAGE-005
  @clause:C6.13-1 @clause:C6.13-3
  Scenario: Moving the target's leaf to before the link removes the lineage
    When the rebase host opens the current session
    And a rebase is asked
    And the history host opens the rebase target
    And the history active leaf moves to the checkpoint entry of the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result is complete with no warnings
    And there are no hits

  @id:LINEAGE-006 @planted:AUDIT-013
  @clause:C2.5-11 @clause:C2.12-5 @clause:C6.13-4 @clause:C6.13-5 @clause:C6.13-10 @clause:C6.17-11
  Scenario: A tampered checkpoint is reported as lineage-integrity-unavailable and grants nothing
    When the rebase host opens the current session
    And a rebase is asked
    And the checkpoint data in the rebase target is edited, "Continue the implementation" becoming "Abandon the implementation"
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

  @id:LINEAGE-007 @planted:AUDIT-013
  @clause:C6.13-5 @clause:C6.13-18
  Scenario: A source whose captured prefix was edited no longer verifies
    When the rebase host opens the current session
    And a rebase is asked
    And the current session file is edited in place, "old original" becoming "new original"
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

  @id:LINEAGE-008
  @clause:C5.3-7 @clause:C6.13-38 @clause:C6.13-40 @clause:C8.1-1 @clause:C8.3-39
  Scenario: Deleting the index loses no lineage: the next recall verifies and projects again
    When the rebase host opens the current session
    And a rebase is asked
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    And the history index file is deleted
    And the history host restarts
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    And the hit "old" has relation "lineage-ancestor"

  @id:LINEAGE-009
  @clause:C6.13-18 @clause:C6.13-27 @clause:C8.3-42
  Scenario: Source entries written after the rebase are not part of the lineage
    When the rebase host opens the current session
    And a rebase is asked
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"later","parentId":"task","timestamp":"2026-01-01T02:00:00.000Z","message":{"role":"user","content":"LastExportUtc LATER_SOURCE_PAYLOAD","timestamp":1767232800000}}
      """
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    And no result contains "LATER_SOURCE_PAYLOAD"

  @id:LINEAGE-010
  @clause:C2.5-11 @clause:C2.5-31 @clause:C2.12-5 @clause:C6.13-2 @clause:C6.13-30 @clause:C6.13-31 @clause:C6.13-39 @clause:C6.17-11 @clause:C8.3-50 @clause:C8.4-3
  Scenario Outline: The lineage walk verifies at most 16 pairs: 15 are clean, 16 and 17 carry lineage-depth-limit
    When a hand-made lineage chain of <pairs> rebases is written from the current session
    And the history host opens the tip of the lineage chain
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the recall result is <status> with the lineage warnings "<warnings>" and the hits "<root hits>"

    Examples:
      | case        | pairs | status   | warnings            | root hits |
      | below-limit | 15    | complete |                     | old       |
      | at-limit    | 16    | partial  | lineage-depth-limit | old       |
      | past-limit  | 17    | partial  | lineage-depth-limit |           |

  @id:LINEAGE-011
  @clause:C6.13-15 @clause:C6.13-26
  Scenario: A lineage that names one source session twice is a cycle: lineage-integrity-unavailable
    When a hand-made lineage chain whose targets are the sessions "t-one s-lineage t-three" is written from the current session
    And the history host opens the tip of the lineage chain
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

  @id:LINEAGE-012
  @clause:C6.13-10 @clause:C6.13-12 @clause:C6.13-23
  Scenario Outline: A target edited where only one lineage check looks no longer verifies
    When the rebase host opens the current session
    And a rebase is asked
    And line <line> of the rebase target is edited, "<old>" becoming "<new>"
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

    Examples:
      | case                  | line | old                                      | new                                      |
      | checkpoint-hash       | 1    | "verificationState":"unknown"            | "verificationState":"unproven"           |
      | handoff-message       | 3    | Continue the implementation              | Abandon the implementation               |
      | target-header-id      | 0    | "id":"7a2e0c1d-0000-4000-8000-000000000001" | "id":"7a2e0c1d-0000-4000-8000-000000000009" |

  @id:LINEAGE-013
  @clause:C6.13-13
  Scenario: A link naming a byte-identical copy of the source in another folder grants nothing
    When the rebase host opens the current session
    And a rebase is asked
    And the link of the rebase target names a copy of the source in the folder "elsewhere"
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

  @id:LINEAGE-014
  @clause:C6.13-18
  Scenario: A source that grew after the rebase and whose captured prefix was edited no longer verifies
    When the rebase host opens the current session
    And a rebase is asked
    And the current session file is edited in place, "old original" becoming "new original"
    And the current history session grows by one user message
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

  @id:LINEAGE-015
  @clause:C6.13-5 @clause:C6.13-6 @clause:C6.13-9 @clause:C6.13-11 @clause:C6.13-14
  Scenario Outline: A link edited where only one pair check looks no longer verifies (<case>)
    When the rebase host opens the current session
    And a rebase is asked
    And line 2 of the rebase target is edited, "<old>" becoming "<new>"
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

    Examples:
      | case                | old                        | new                          |
      | link-schema-version | "schemaVersion":1          | "schemaVersion":2            |
      | link-checkpoint-id  | "checkpointId":"checkpoint_ | "checkpointId":"checkpoint_0 |
      | link-source-leaf    | "sourceLeafId":"task"      | "sourceLeafId":"answer"      |
      | link-project-path   | "projectPath":"            | "projectPath":"/elsewhere    |

  @id:LINEAGE-016
  @clause:C6.2-3 @clause:C6.2-29 @clause:C6.13-8 @clause:C6.13-25
  Scenario Outline: A target whose own header fails the pair check cannot be rebased again: lineage-integrity-unavailable comes first (<case>)
    When the rebase host opens the current session
    And a rebase is asked
    And line 0 of the rebase target is edited, "<old>" becoming "<new>"
    And the rebase host opens the rebase target
    And a rebase is asked
    Then the rebase result is unavailable with code "lineage-integrity-unavailable"

    Examples:
      | case           | old           | new                |
      | header-version | "version":3   | "version":2        |
      | header-cwd     | "cwd":"       | "cwd":"/elsewhere  |

  @id:LINEAGE-018
  @clause:C8.3-16 @clause:C8.3-20
  Scenario: Project scope examines a rebase target beside the session as one more sibling session
    Given the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    And a user message is appended to the rebase target
    And the history host opens the current session
    And recall is asked with:
      """
      {"query": "Carry continuation", "scope": "project"}
      """
    Then the hit entry ids are "c0ffee01"
    And the hit "c0ffee01" has relation "other-branch"

  @id:LINEAGE-019
  @clause:C6.13-7 @clause:C6.13-16 @clause:C6.13-24 @clause:C6.13-32 @clause:C6.13-37 @clause:C6.17-11 @clause:C8.4-3
  Scenario Outline: A checkpoint edited where only one check looks, its hash following, no longer verifies (<case>)
    When the rebase host opens the current session
    And a rebase is asked
    And the checkpoint of the rebase target is edited, "<old>" becoming "<new>" in its data and "<old message>" becoming "<new message>" in its handoff message, its hash following
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the recall result is partial with the lineage warnings "<warnings>" and the hits "<hits>"

    Examples:
      | case                       | old                       | new                               | old message | new message | warnings                             | hits |
      | checkpoint-schema-version  | "schemaVersion":1         | "schemaVersion":2                 | ds4:normal] | ds4:normal] | lineage-integrity-unavailable        |      |
      | classification-not-a-level | "classification":"normal" | "classification":"secret"         | ds4:normal] | ds4:secret] | lineage-integrity-unavailable        |      |
      | pins-at-limit              | "pins":[]                 | "pins":[{1000 empty objects}]     | ds4:normal] | ds4:normal] | checkpoint-memory-provenance-invalid | old  |
      | pins-past-limit            | "pins":[]                 | "pins":[{1001 empty objects}]     | ds4:normal] | ds4:normal] | lineage-integrity-unavailable        |      |
      | memories-at-limit          | "memories":[]             | "memories":[{1000 empty objects}] | ds4:normal] | ds4:normal] | checkpoint-memory-provenance-invalid | old  |
      | memories-past-limit        | "memories":[]             | "memories":[{1001 empty objects}] | ds4:normal] | ds4:normal] | lineage-integrity-unavailable        |      |

  @id:LINEAGE-020
  @clause:C6.13-17 @clause:C8.3-5 @clause:C8.4-3
  Scenario Outline: The handoff is checked during verification: 120,000 UTF-16 units verify, 120,001 do not (<case>)
    When the rebase host opens the current session
    And a rebase is asked
    And the handoff of the rebase target's checkpoint is padded to <units> UTF-16 units, in its data and in its message, its hash following
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the recall result is <status> with the lineage warnings "<warnings>" and the hits "<hits>"

    Examples:
      | case       | units  | status   | warnings                      | hits |
      | at-limit   | 120000 | complete |                               | old  |
      | past-limit | 120001 | partial  | lineage-integrity-unavailable |      |

  @id:LINEAGE-021
  @clause:C6.13-19 @clause:C6.13-20 @clause:C6.13-21
  Scenario Outline: A source the pair still binds by size and hash, but whose header, ids or ancestry fail, grants nothing (<case>)
    When the rebase host opens the current session
    And a rebase is asked
    And the current session file is edited in place, "<old>" becoming "<new>", and the pair in the rebase target follows its new size and SHA-256
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the recall result is <status> with the lineage warnings "<warnings>" and the hits "<hits>"

    Examples:
      | case             | old                            | new                             | status   | warnings                      | hits |
      | harmless-edit    | keeps its column.              | keeps its columns.              | complete |                               | old  |
      | source-version   | "version":3                    | "version":2                     | partial  | lineage-integrity-unavailable |      |
      | source-id        | "id":"s-lineage"               | "id":"s-other"                  | partial  | lineage-integrity-unavailable |      |
      | source-cwd       | "cwd":"                        | "cwd":"/elsewhere               | partial  | lineage-integrity-unavailable |      |
      | duplicate-id     | "id":"sibling"                 | "id":"task"                     | partial  | lineage-integrity-unavailable |      |
      | broken-ancestry  | "id":"answer","parentId":"old" | "id":"answer","parentId":"gone" | partial  | lineage-integrity-unavailable |      |

  @id:LINEAGE-022
  @clause:C6.13-22
  Scenario: A source that grew by a record reusing a branch id, so that Pi's branch to the captured leaf leaves the prefix, no longer verifies
    When the rebase host opens the current session
    And a rebase is asked
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"later-root","parentId":null,"timestamp":"2026-01-01T02:00:00.000Z","message":{"role":"user","content":"A new root after the rebase","timestamp":1767232800000}}
      {"type":"message","id":"compact","parentId":"later-root","timestamp":"2026-01-01T02:00:01.000Z","message":{"role":"user","content":"A record that reuses the id of the compaction","timestamp":1767232801000}}
      """
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "current-lineage"}
      """
    Then the result carries the warning "lineage-integrity-unavailable"
    And there are no hits

  @id:LINEAGE-023
  @clause:C8.3-21
  Scenario: Project scope does not add the lineage source of the target when the discovery cap leaves it out
    Given the sibling history session "zeta" with these lines:
      """
      {"type":"session","version":3,"id":"s-zeta","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"zeta-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"LastExportUtc in zeta.","timestamp":1767225721000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true, "maxProjectSessions": 1}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    And the history host opens the rebase target
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "scope": "project"}
      """
    Then the result is partial with warnings "project-discovery-limit"
    And the hit entry ids are "zeta-1"
