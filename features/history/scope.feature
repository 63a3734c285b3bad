Feature: Recall scopes decide which sessions and entries can be found
  Spec: [contract.md](../../docs/spec/contract.md) [§2.5](../../docs/spec/contract.md#25-scope-resolution-sources), [§1.1](../../docs/spec/contract.md#11-historytools) (historyTools.defaultScope, allowProjectScope, maxProjectSessions), [§3.3](../../docs/spec/contract.md#33-read-algorithm-and-its-codes-in-order) step 4, [§7.1](../../docs/spec/contract.md#71-testsintegrationhistory-recalltestts-ebb04f2d-real-pi-sessionmanager-offline) case 3
  Every request recomputes its authorized sources: the active branch, the whole current session,
  or, when explicitly allowed in a trusted project, the direct sibling session files of the same
  project. Nothing outside the scope is ever found, and an empty result never widens the scope.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-scope","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"root","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start the export work.","timestamp":1767225601000}}
      {"type":"message","id":"a1","parentId":"root","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"BranchMarker alpha plan: rename the column.","timestamp":1767225602000}}
      {"type":"message","id":"b1","parentId":"root","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"BranchMarker beta plan: keep the column.","timestamp":1767225603000}}
      {"type":"message","id":"b2","parentId":"b1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue on the beta plan.","timestamp":1767225604000}}
      """

  @id:SCOPE-001
  @clause:C2.3-3 @clause:C2.5-7 @clause:C2.5-9 @clause:C2.6-2 @clause:C2.8-5 @clause:C2.9-5 @clause:C8.1-4
  Scenario: current-branch, the default scope, finds only ancestors of the active leaf
    When the history host opens the current session
    And recall is asked for "`BranchMarker`"
    Then the result is complete with no warnings
    And the effective scope is "current-branch"
    And the hit entry ids are "b1"
    And every hit has relation "ancestor"

  @id:SCOPE-002
  @clause:C2.5-1 @clause:C2.5-7 @clause:C8.1-4 @clause:C8.3-31
  Scenario: Moving the leaf to another branch changes what current-branch finds
    When the history host opens the current session
    And the active leaf moves to "a1"
    And recall is asked for "`BranchMarker`"
    Then the result is complete with no warnings
    And the hit entry ids are "a1"
    And every hit has relation "ancestor"
    When the active leaf moves to "null"
    And recall is asked for "`BranchMarker`"
    Then the result is complete with no warnings
    And there are no hits

  @id:SCOPE-003
  @clause:C2.5-8 @clause:C2.5-29 @clause:C2.8-5
  Scenario: current-session searches every branch and labels non-ancestors other-branch
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "current-session"}
      """
    Then the result is complete with no warnings
    And the effective scope is "current-session"
    And the hits, in any order, are "a1 b1"
    And the hit "b1" has relation "ancestor"
    And the hit "a1" has relation "other-branch"

  @id:SCOPE-004
  @clause:C1.1-2 @clause:C2.3-3 @clause:C2.5-8 @clause:C2.5-29
  Scenario: A configured default scope applies when the request names none
    Given the global history configuration:
      """
      {"historyTools": {"defaultScope": "current-session"}}
      """
    When the history host opens the current session
    And recall is asked for "`BranchMarker`"
    Then the effective scope is "current-session"
    And the hits, in any order, are "a1 b1"
    And the hit "a1" has relation "other-branch"

  @id:SCOPE-005
  @clause:C2.5-7 @clause:C2.8-5
  Scenario: current-lineage without any rebase behaves exactly like current-branch, with no warning
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "current-branch"}
      """
    And the hits are remembered
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "current-lineage"}
      """
    Then the result is complete with no warnings
    And the effective scope is "current-lineage"
    And the hits are the remembered ones
    And the hit entry ids are "b1"
    And every hit has relation "ancestor"
    When the first hit is read
    Then the read source entry id is "b1"

  @id:SCOPE-006
  @clause:C2.5-7 @clause:C2.5-28 @clause:C8.1-5
  Scenario: A term found only on another branch gives no hits on the current branch: the scope never widens
    When the history host opens the current session
    And recall is asked for "alpha"
    Then the result is complete with no warnings
    And there are no hits
    When recall is asked with:
      """
      {"query": "alpha", "scope": "current-session"}
      """
    Then the hit entry ids are "a1"

  @id:SCOPE-007
  @clause:C2.4-7 @clause:C2.5-3
  Scenario: A current session whose header names another folder is a scope mismatch
    Given the history project has a subfolder "elsewhere"
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-scope","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}/elsewhere"}
      {"type":"message","id":"root","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"BranchMarker in the wrong folder.","timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked for "`BranchMarker`"
    Then the result is unavailable with code "source-scope-mismatch"

  @id:SCOPE-008 @planted:AUDIT-006
  @clause:C2.5-1 @clause:C2.5-3
  Scenario: A current session whose header id changes on disk is a scope mismatch
    When the history host opens the current session
    And recall is asked for "`BranchMarker`"
    And the current session file is edited in place, "s-scope" becoming "s-scoop"
    And recall is asked for "`BranchMarker`"
    Then the result is unavailable with code "source-scope-mismatch"

  @id:SCOPE-009
  @clause:C1.1-5 @clause:C2.4-7 @clause:C2.5-16 @clause:C2.12-1
  Scenario: Project scope is disabled by default
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "project"}
      """
    Then the result is unavailable with code "project-scope-disabled"

  @id:SCOPE-010
  @clause:C2.4-7 @clause:C2.5-17 @clause:C2.12-1
  Scenario: Project scope allowed by the configuration still needs a trusted project
    Given an untrusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-scope","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"root","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"BranchMarker untrusted.","timestamp":1767225601000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "project"}
      """
    Then the result is unavailable with code "project-untrusted"

  @id:SCOPE-011
  @clause:C2.5-2 @clause:C8.3-37
  Scenario: The project checks come after the current session: a session without a file is ephemeral first
    When the history host opens a session that has no file
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "project"}
      """
    Then the result is unavailable with code "ephemeral-session"

  @id:SCOPE-012
  @clause:C2.5-18 @clause:C2.5-24 @clause:C2.5-26 @clause:C2.5-29 @clause:C8.3-16
  Scenario: Project scope finds a sibling session of the same project, never one of a subfolder
    Given the history project has a subfolder "sub"
    And the sibling history session "same" with these lines:
      """
      {"type":"session","version":3,"id":"s-same","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"same-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"BranchMarker gamma plan from a sibling session.","timestamp":1767225661000}}
      """
    And the sibling history session "cross" with these lines:
      """
      {"type":"session","version":3,"id":"s-cross","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}/sub"}
      {"type":"message","id":"cross-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"BranchMarker delta plan from a subfolder session.","timestamp":1767225721000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "project"}
      """
    Then the result is complete with no warnings
    And the effective scope is "project"
    And the hits, in any order, are "a1 b1 same-1"
    And a hit comes from the session "same"
    And no hit comes from the session "cross"
    And every hit from the session "same" has relation "other-branch"
    And the hit "b1" has relation "ancestor"
    And the hit "a1" has relation "other-branch"
    When recall is asked with:
      """
      {"query": "gamma", "scope": "project"}
      """
    And the first hit is read
    Then the read text contains "gamma plan from a sibling session"
    And the read source entry id is "same-1"
    And no result names a session file path
    And every history session file is byte-identical to before

  @id:SCOPE-013
  @clause:C2.5-33 @clause:C2.5-22 @clause:C2.5-23 @clause:C2.5-24
  Scenario Outline: Which sibling files project scope includes, by their header
    Given the history project has a subfolder "sub"
    And the sibling history session "other" with these lines:
      """
      <header>
      {"type":"message","id":"other-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker written in another session file.","timestamp":1767225661000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is complete with no warnings
    And the recall found <hits> hits

    Examples:
      | case             | header                                                                                                  | hits |
      | same-cwd         | {"type":"session","version":3,"id":"s-other","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}        | 1    |
      | same-canonical   | {"type":"session","version":3,"id":"s-other","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}/sub/.."} | 1    |
      | subfolder-cwd    | {"type":"session","version":3,"id":"s-other","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}/sub"}    | 0    |
      | parent-cwd       | {"type":"session","version":3,"id":"s-other","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}/.."}     | 0    |
      | same-id          | {"type":"session","version":3,"id":"s-scope","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}        | 0    |
      | id-not-a-string  | {"type":"session","version":3,"id":42,"timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}               | 0    |
      | no-cwd           | {"type":"session","version":3,"id":"s-other","timestamp":"2026-01-01T00:01:00.000Z"}                      | 0    |

  @id:SCOPE-014
  @clause:C2.5-18
  Scenario: Only direct children of the current session's folder are examined
    Given the history session "nested" in the sessions subfolder "deeper" with these lines:
      """
      {"type":"session","version":3,"id":"s-nested","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"nested-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker in a nested folder.","timestamp":1767225661000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is complete with no warnings
    And there are no hits

  @platform:posix @needs:symlink
  @id:SCOPE-015
  @clause:C2.5-18
  Scenario: A symbolically linked .jsonl file is not examined
    Given a symbolic link "linked.jsonl" in the sessions folder to a session with these lines:
      """
      {"type":"session","version":3,"id":"s-linked","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"linked-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker behind a symbolic link.","timestamp":1767225661000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is complete with no warnings
    And there are no hits
    And no hit comes from the session "linked"

  @id:SCOPE-016
  @clause:C1.1-7 @clause:C2.5-19 @clause:C2.5-21 @clause:C2.12-7 @clause:C8.3-18
  Scenario: More sibling files than maxProjectSessions: the first ones in descending path order are examined, with a warning
    Given the sibling history session "alpha" with these lines:
      """
      {"type":"session","version":3,"id":"s-alpha","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"alpha-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker in alpha.","timestamp":1767225661000}}
      """
    And the sibling history session "zeta" with these lines:
      """
      {"type":"session","version":3,"id":"s-zeta","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"zeta-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"SiblingMarker in zeta.","timestamp":1767225721000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true, "maxProjectSessions": 1}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is partial with warnings "project-discovery-limit"
    And the hit entry ids are "zeta-1"
    And no hit comes from the session "alpha"

  @id:SCOPE-017
  @clause:C2.5-21 @clause:C8.3-17
  Scenario: The cap counts sibling files before the cwd filter
    Given the history project has a subfolder "sub"
    And the sibling history session "alpha" with these lines:
      """
      {"type":"session","version":3,"id":"s-alpha","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"alpha-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker in alpha.","timestamp":1767225661000}}
      """
    And the sibling history session "zeta" with these lines:
      """
      {"type":"session","version":3,"id":"s-zeta","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}/sub"}
      {"type":"message","id":"zeta-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"Nothing to find here.","timestamp":1767225721000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true, "maxProjectSessions": 1}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is partial with warnings "project-discovery-limit"
    And there are no hits

  @platform:posix @needs:symlink
  @id:SCOPE-018
  @clause:C2.5-18 @clause:C2.5-21
  Scenario: Only regular sibling files count against the cap: not the current file, links or folders
    Given the sibling history session "alpha" with these lines:
      """
      {"type":"session","version":3,"id":"s-alpha","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"alpha-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker in alpha.","timestamp":1767225661000}}
      """
    And a symbolic link "yankee.jsonl" in the sessions folder to a session with these lines:
      """
      {"type":"session","version":3,"id":"s-yankee","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"yankee-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"Linked, never examined.","timestamp":1767225721000}}
      """
    And the sessions folder has a folder named "zulu.jsonl"
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true, "maxProjectSessions": 1}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is complete with no warnings
    And the hit entry ids are "alpha-1"

  @id:SCOPE-019
  @clause:C2.5-27 @clause:C2.8-4 @clause:C2.12-8
  Scenario Outline: A sibling file that cannot be examined adds project-source-unavailable and nothing else
    Given the sibling history session "alpha" with these lines:
      """
      {"type":"session","version":3,"id":"s-alpha","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"alpha-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker in alpha.","timestamp":1767225661000}}
      """
    And the sibling history session "broken" with these lines:
      """
      <header>
      {"type":"message","id":"broken-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"SiblingMarker in a broken file.","timestamp":1767225721000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is partial with warnings "project-source-unavailable"
    And the hit entry ids are "alpha-1"

    Examples:
      | case           | header                                                                                             |
      | newer-version  | {"type":"session","version":4,"id":"s-broken","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}"} |
      | header-no-json | {"type":"session","version":3,"id":"s-broken",                                                      |

  @id:SCOPE-020
  @clause:C2.5-24 @clause:C2.5-28 @clause:C8.1-5
  Scenario: No cross-project fallback: a term found only in another project's session gives no hits
    Given the history project has a subfolder "sub"
    And the sibling history session "cross" with these lines:
      """
      {"type":"session","version":3,"id":"s-cross","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}/sub"}
      {"type":"message","id":"cross-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"ForeignMarker only in another project.","timestamp":1767225721000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`ForeignMarker`", "scope": "project"}
      """
    Then the result is complete with no warnings
    And there are no hits
    When recall is asked with:
      """
      {"query": "`ForeignMarker`", "scope": "current-session"}
      """
    Then the result is complete with no warnings
    And there are no hits

  @id:SCOPE-021
  @clause:C2.5-26 @clause:C2.6-10
  Scenario: A sibling session is searched on every branch, with the same filters (summaries only when asked)
    Given the sibling history session "same" with these lines:
      """
      {"type":"session","version":3,"id":"s-same","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"s1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker first branch.","timestamp":1767225661000}}
      {"type":"message","id":"s2","parentId":null,"timestamp":"2026-01-01T00:01:02.000Z","message":{"role":"user","content":"SiblingMarker second branch.","timestamp":1767225662000}}
      {"type":"compaction","id":"s3","parentId":"s2","timestamp":"2026-01-01T00:01:03.000Z","summary":"SummaryMarker of the sibling work.","firstKeptEntryId":"s2","tokensBefore":5000}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the hits, in any order, are "s1 s2"
    And every hit has relation "other-branch"
    When recall is asked with:
      """
      {"query": "`SummaryMarker`", "scope": "project"}
      """
    Then there are no hits
    When recall is asked with:
      """
      {"query": "`SummaryMarker`", "scope": "project", "includeSummaries": true}
      """
    Then the hit entry ids are "s3"
    And the first hit has kind "compaction"

  @id:SCOPE-022
  @clause:C2.5-1 @clause:C2.5-16
  Scenario: Scope is resolved again at every read: a project reference fails once project scope is turned off
    Given the sibling history session "same" with these lines:
      """
      {"type":"session","version":3,"id":"s-same","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"same-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker from a sibling session.","timestamp":1767225661000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    And the first hit is read
    Then the read source entry id is "same-1"
    When the global history configuration is changed to:
      """
      {"historyTools": {"allowProjectScope": false}}
      """
    And the history host opens the current session
    And the first hit is read
    Then the result is unavailable with code "project-scope-disabled"

  @id:SCOPE-023
  @clause:C1.1-2 @clause:C2.3-4
  Scenario: A configured default scope of project is rejected, so recall stays on the current branch
    Given the global history configuration:
      """
      {"historyTools": {"defaultScope": "project", "allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked for "`BranchMarker`"
    Then the result is complete with no warnings
    And the effective scope is "current-branch"
    And the hit entry ids are "b1"

  @id:SCOPE-024
  @clause:C2.5-7
  Scenario: A leaf given as "default" is the entry with that id, not Pi's default leaf
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-leaf-named-default","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"root","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Start the export work.","timestamp":1767225601000}}
      {"type":"message","id":"default","parentId":"root","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"LeafNameMarker plan: rename the column.","timestamp":1767225602000}}
      {"type":"message","id":"other","parentId":"root","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"Keep the column as it is.","timestamp":1767225603000}}
      """
    When the history host opens the current session at leaf "default"
    And recall is asked for "`LeafNameMarker`"
    Then the result is complete with no warnings
    And the hit entry ids are "default"
    And every hit has relation "ancestor"

  @id:SCOPE-025
  @clause:C2.5-32 @clause:C2.5-16 @clause:C2.5-17
  Scenario: In an untrusted project with project scope not allowed, the configuration is checked first
    Given an untrusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-scope","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"root","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"BranchMarker untrusted.","timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "project"}
      """
    Then the result is unavailable with code "project-scope-disabled"

  @id:SCOPE-026
  @clause:C2.5-18
  Scenario: Only .jsonl files are sibling sessions: another regular file neither counts against the cap nor is examined
    Given the sibling history session "alpha" with these lines:
      """
      {"type":"session","version":3,"id":"s-alpha","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"alpha-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker in alpha.","timestamp":1767225661000}}
      """
    And the sessions folder has a file "notes.txt" holding "SiblingMarker in a note that is not a session."
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true, "maxProjectSessions": 1}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is complete with no warnings
    And the hit entry ids are "alpha-1"

  @id:SCOPE-027
  @clause:C2.5-27 @clause:C2.8-6
  Scenario: Two sibling files that cannot be examined give the warning once
    Given the sibling history session "alpha" with these lines:
      """
      {"type":"session","version":3,"id":"s-alpha","timestamp":"2026-01-01T00:01:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"alpha-1","parentId":null,"timestamp":"2026-01-01T00:01:01.000Z","message":{"role":"user","content":"SiblingMarker in alpha.","timestamp":1767225661000}}
      """
    And the sibling history session "broken" with these lines:
      """
      {"type":"session","version":4,"id":"s-broken","timestamp":"2026-01-01T00:02:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"broken-1","parentId":null,"timestamp":"2026-01-01T00:02:01.000Z","message":{"role":"user","content":"SiblingMarker in a broken file.","timestamp":1767225721000}}
      """
    And the sibling history session "cracked" with these lines:
      """
      {"type":"session","version":3,"id":"s-cracked",
      {"type":"message","id":"cracked-1","parentId":null,"timestamp":"2026-01-01T00:03:01.000Z","message":{"role":"user","content":"SiblingMarker in a cracked file.","timestamp":1767225781000}}
      """
    And the global history configuration:
      """
      {"historyTools": {"allowProjectScope": true}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`SiblingMarker`", "scope": "project"}
      """
    Then the result is partial with warnings "project-source-unavailable"
    And the hit entry ids are "alpha-1"
