Feature: Session tree
  Spec: issue "Foundation" deliverable 3; [pi-session-model.md](../../docs/spec/pi-session-model.md) [§1.4](../../docs/spec/pi-session-model.md#14-entries-common-fields-ids-timestamps), [§3](../../docs/spec/pi-session-model.md#3-the-leaf-branching-and-persistence), [§4.1](../../docs/spec/pi-session-model.md#41-buildsessionpathentries-leafid-byid-internal)
  Entries form a tree through parentId. Pi indexes ids with the last entry winning, takes the
  active leaf to be the last entry in file order (whatever its type) unless the host gives one,
  and walks parent links to a root.

  Background:
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-tree","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"u1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}}
      {"type":"message","id":"a1","parentId":"u1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"provider":"p","model":"m","stopReason":"stop","timestamp":2}}
      {"type":"message","id":"u2","parentId":"a1","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"branch A","timestamp":3}}
      {"type":"message","id":"u3","parentId":"a1","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"user","content":"branch B","timestamp":4}}
      {"type":"message","id":"a3","parentId":"u3","timestamp":"2025-06-01T12:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"B"}],"provider":"p","model":"m","stopReason":"stop","timestamp":5}}
      {"type":"message","id":"r2","parentId":null,"timestamp":"2025-06-01T12:00:06.000Z","message":{"role":"user","content":"second root","timestamp":6}}
      {"type":"label","id":"l1","parentId":"u2","timestamp":"2025-06-01T12:00:07.000Z","targetId":"u1","label":"start"}
      """

  @id:TREE-001
  @clause:D12-1 @clause:P3.1-1 @clause:P4.1-3
  Scenario: The active leaf is the last entry in file order, even a label
    When the session is inspected
    Then the default leaf is "l1"
    And the leaf is "l1"
    And the path ids are "u1 a1 u2 l1"

  @id:TREE-002
  @clause:P3.1-1 @clause:P4.1-3
  Scenario: A leaf given by the host wins over the last line of the file
    When the session is inspected at leaf "a3"
    Then the leaf is "a3"
    And the default leaf is "l1"
    And the path ids are "u1 a1 u3 a3"

  @id:TREE-003
  @clause:P3.2-2 @clause:P4.1-1
  Scenario: The null leaf has an empty path and an empty context
    When the session is inspected at the null leaf
    Then the leaf is null
    And the path is empty
    And the context is empty

  @id:TREE-004
  @clause:P3.2-1
  Scenario: An unknown leaf is refused
    When the session is inspected at leaf "nope"
    Then the request fails with code "unknown-leaf"

  @id:TREE-005
  @clause:P1.4-4 @clause:P4.1-3
  Scenario: A second root has its own one-entry path
    When the session is inspected at leaf "r2"
    Then the path ids are "r2"

  @id:TREE-006
  @clause:P4.1-3
  Scenario: Children and siblings follow file order
    When the tree node "a1" is described
    Then its ancestors are "u1"
    And its children are "u2 u3"
    When the tree node "u3" is described
    Then its siblings are "u2"
    And its children are "a3"

  @id:TREE-007
  @clause:P1.4-4
  Scenario: Roots are siblings of each other
    When the tree node "r2" is described
    Then it has no ancestors
    And its siblings are "u1"

  @id:TREE-008
  @clause:P1.7-6
  Scenario: A duplicate id resolves to the last entry with that id and is reported
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-dup","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"d1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}
      {"type":"message","id":"d2","parentId":"d1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"x","timestamp":2}}
      {"type":"message","id":"d1","parentId":null,"timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"second d1","timestamp":3}}
      {"type":"message","id":"d3","parentId":"d1","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"user","content":"y","timestamp":4}}
      """
    When the session is inspected
    Then the diagnostics count 1 duplicate ids
    And the duplicate ids are "d1"
    And the path ids are "d1 d3"
    When the session is inspected at leaf "d2"
    Then the path ids are "d1 d2"

  @id:TREE-009
  @clause:P4.1-3
  Scenario: A missing parent ends the walk as a root would, and is reported
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-orphan","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"o1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"o2","parentId":"gone","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      {"type":"message","id":"o3","parentId":"o2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"z","timestamp":3}}
      """
    When the session is inspected
    Then the path ids are "o2 o3"
    And the diagnostics count 1 missing parents
    And the entries with a missing parent are "o2"
    When the tree node "o2" is described
    Then its missing parent is "gone"

  @id:TREE-010
  @clause:P4.1-3
  Scenario: A parent cycle is reported instead of hanging
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-cycle","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"c1","parentId":"c3","timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"c2","parentId":"c1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      {"type":"message","id":"c3","parentId":"c2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"z","timestamp":3}}
      {"type":"message","id":"c4","parentId":"c3","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"user","content":"w","timestamp":4}}
      """
    When the session is inspected
    Then the diagnostics count 4 entries on a parent cycle
    When the tree node "c4" is described
    Then its ancestry is reported as a cycle

  @id:TREE-011
  @clause:P1.7-2
  Scenario: An entry id that is not a string is kept but can never be a leaf by id
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-num","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"n1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"custom","customType":"odd","id":7,"parentId":"n1","timestamp":"2025-06-01T12:00:02.000Z"}
      """
    When the session is inspected
    Then the diagnostics count 1 non-entry lines at lines 3
    And the entry count is 2

  @id:TREE-013
  @clause:P1.7-6
  Scenario: Of two entries with the same id, the later one is the parent of every child that names it
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-dup2","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"a","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"root a","timestamp":1}}
      {"type":"message","id":"b","parentId":null,"timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"root b","timestamp":2}}
      {"type":"message","id":"d","parentId":"a","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"first d","timestamp":3}}
      {"type":"message","id":"c","parentId":"d","timestamp":"2025-06-01T12:00:04.000Z","message":{"role":"user","content":"child of d","timestamp":4}}
      {"type":"message","id":"d","parentId":"b","timestamp":"2025-06-01T12:00:05.000Z","message":{"role":"user","content":"second d","timestamp":5}}
      """
    When the session is inspected at leaf "c"
    Then the path ids are "b d c"
    And context message 2 is exactly:
      """
      {"role":"user","content":"second d","timestamp":5}
      """
    When the session is inspected
    Then the leaf is "d"
    And the path ids are "b d"
    And the diagnostics count 1 duplicate ids
    When the tree node "d" is described
    Then its ancestors are "b"

  @id:TREE-014
  @clause:P4.1-3
  Scenario: A parentId that is absent or empty makes a root, and no parent is reported missing
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-roots","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"r1","timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"no parentId","timestamp":1}}
      {"type":"message","id":"r2","parentId":"","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"empty parentId","timestamp":2}}
      {"type":"message","id":"r3","parentId":"r2","timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"child","timestamp":3}}
      """
    When the session is inspected
    Then the path ids are "r2 r3"
    And the diagnostics count 0 missing parents
    When the tree node "r2" is described
    Then it has no ancestors
    And its siblings are "r1"

  @id:TREE-015
  @clause:P4.1-3
  Scenario: An entry whose parent is missing is a root among the other roots
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-orphan2","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"o1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"o2","parentId":"gone","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      """
    When the tree node "o1" is described
    Then its siblings are "o2"
    When the tree node "o2" is described
    Then its siblings are "o1"
    And its missing parent is "gone"

  @id:TREE-016
  @clause:P3.1-1 @clause:P4.1-2
  Scenario: When the last entry has no id, or an empty one, the context falls back to it as Pi's leaf
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-noid","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"n1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"n2","parentId":"n1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      {"type":"custom_message","customType":"note","content":"tail","display":true,"parentId":"n1","timestamp":"2025-06-01T12:00:03.000Z"}
      """
    When the session is inspected
    Then the leaf is null
    And the context roles are "user custom"
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-emptyid","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"n1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"message","id":"n2","parentId":"n1","timestamp":"2025-06-01T12:00:02.000Z","message":{"role":"user","content":"y","timestamp":2}}
      {"type":"custom_message","customType":"note","content":"tail","display":true,"id":"","parentId":"n1","timestamp":"2025-06-01T12:00:03.000Z"}
      """
    When the session is inspected
    Then the leaf as JSON is ""
    And the context roles are "user custom"

  @id:TREE-017
  @clause:P1.7-6 @clause:P4.1-3
  Scenario: An id that is a number is still a key that a parentId of the same number finds
    Given a session file with these lines:
      """
      {"type":"session","version":3,"id":"s-numkey","timestamp":"2025-06-01T12:00:00.000Z","cwd":"/w"}
      {"type":"message","id":"n1","parentId":null,"timestamp":"2025-06-01T12:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}
      {"type":"custom","customType":"odd","id":7,"parentId":"n1","timestamp":"2025-06-01T12:00:02.000Z"}
      {"type":"message","id":"n2","parentId":7,"timestamp":"2025-06-01T12:00:03.000Z","message":{"role":"user","content":"y","timestamp":3}}
      """
    When the session is inspected
    Then the path ids as JSON are ["n1", 7, "n2"]
    And the diagnostics count 0 missing parents
    And the context has 2 messages
