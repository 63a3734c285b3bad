Feature: The index is a rebuildable projection of the JSONL, caught up before every recall and read
  Spec: [contract.md](../../docs/spec/contract.md) [§5.1](../../docs/spec/contract.md#51-pre-existing-session-index-that-the-feature-reuses), [§5.2](../../docs/spec/contract.md#52-migration-17-canonical-history-source-locations), [§3.4](../../docs/spec/contract.md#34-what-searchable-text-is-rendering-an-entry-into-lines) (recursion guard, handoff), [§3.5](../../docs/spec/contract.md#35-canonical-source-verification-all-on-one-file-descriptor), [§2.5](../../docs/spec/contract.md#25-scope-resolution-sources) step 1, [§2.7](../../docs/spec/contract.md#27-processing-of-each-hit) step 2; [docs/index.md](../../docs/index.md) I1-I3, I14
  Recall and read catch the index up with the session file first: appended records are added
  from the checkpoint, anything that may have rewritten indexed bytes rebuilds the session's
  rows, and hits are verified against the JSONL because nothing in the index is authority.
  Deleting the index loses nothing. History tool output and the rebase handoff never become
  recall sources. Session files are only read, never written.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-index","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker. Original constraint: never rename it.","timestamp":1767225601000}}
      {"type":"message","id":"recent","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue with the implementation.","timestamp":1767225604000}}
      """

  @id:INDEX-001
  @clause:C5.1-10 @clause:C5.1-12
  Scenario: An appended entry is found by the next recall (incremental catch-up)
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the history status is asked
    Then the status reports 2 indexed entries and is complete
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"appended","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Also keep `AppendMarker` in mind.","timestamp":1767225605000}}
      """
    And the history session files are remembered
    And recall is asked for "`AppendMarker`"
    Then the result is complete with no warnings
    And the hit entry ids are "appended"
    When the first hit is read
    Then the read text is "Also keep `AppendMarker` in mind."
    When the history status is asked
    Then the status reports 3 indexed entries and is complete
    And every history session file is byte-identical to before

  @id:INDEX-002
  @clause:C2.5-5 @clause:C2.12-2 @clause:C5.1-21
  Scenario: An entry appended after a torn tail is found once the file grows (rebuild)
    When the history host opens the current session
    And the current session file gets this line appended without a newline: {"incomplete":
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    And the result carries the warning "source-coverage-partial"
    When the current session file gets a line feed appended
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"after-tear","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"After the tear: `TornAfterMarker`.","timestamp":1767225605000}}
      """
    And the history session files are remembered
    And recall is asked for "`TornAfterMarker`"
    Then the hit entry ids are "after-tear"
    And the result carries the warning "source-coverage-partial"
    When the first hit is read
    Then the read is whole
    When the history status is asked
    Then the status reports 3 indexed entries and is complete
    And every history session file is byte-identical to before

  @id:INDEX-003
  @clause:C2.5-5 @clause:C5.1-8 @clause:C5.1-13 @clause:C5.2-4
  Scenario: A complete entry without its final line feed is indexed, and stays readable once the line feed arrives
    When the history host opens the current session
    And the current session file gets this line appended without a newline: {"type":"message","id":"unterminated","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Unterminated `TailMarker` line.","timestamp":1767225605000}}
    And recall is asked for "`TailMarker`"
    Then the hit entry ids are "unterminated"
    And the result carries the warning "source-coverage-partial"
    When the first hit's reference is kept as "tail"
    And the reference "tail" is read
    Then the read text is "Unterminated `TailMarker` line."
    When the current session file gets a line feed appended
    And recall is asked for "`TailMarker`"
    Then the result is complete with no warnings
    And the hit entry ids are "unterminated"
    When the reference "tail" is read
    Then the read is whole
    And the read text is "Unterminated `TailMarker` line."

  @id:INDEX-004
  @clause:C3.5-12 @clause:C5.1-7 @clause:C5.1-20
  Scenario: An edit in place is detected: the old ref is source-changed, a new recall finds the new text
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "before-edit"
    And the current session file is edited in place, "Original" becoming "Modified"
    And the reference "before-edit" is read
    Then the result is unavailable with code "source-changed"
    When recall is asked for "`Original`"
    Then there are no hits
    When recall is asked for "`Modified`"
    Then the hit entry ids are "old"
    When the first hit is read
    Then the read text contains "Modified constraint: never rename it."

  @id:INDEX-005 @planted:AUDIT-004
  @clause:C8.1-1
  Scenario: An earlier line edited while the file also grew is never shown from the stale index
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the current session file is edited in place, "Original" becoming "Modified"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"grown","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"The file grew.","timestamp":1767225605000}}
      """
    And recall is asked for "`Original`"
    Then there are no hits

  @id:INDEX-006
  @clause:C5.1-15 @clause:C5.2-7 @clause:C8.1-1
  Scenario: Deleting the index loses nothing: status starts over, a live ref still reads, recall finds the same
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the first hit's reference is kept as "before-delete"
    And the history status is asked
    Then the status reports 2 indexed entries and is complete
    When the history index file is deleted
    And the history status is asked
    Then the status says the index is not yet synchronized
    When the reference "before-delete" is read
    Then the read is whole
    And the read text contains "Original constraint"
    When the history status is asked
    Then the status reports 2 indexed entries and is complete
    When recall is asked for "`LastExportUtc`"
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    And every history session file is byte-identical to before

  @id:INDEX-007
  @clause:C0.3-1 @clause:C3.4-17 @clause:C3.4-18 @clause:C3.4-19 @clause:C8.1-7
  Scenario: Output and calls of the context_history_* tools are never recall sources (recursion guard)
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-guard","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"g-ask","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"What did we decide?","timestamp":1767225601000}}
      {"type":"message","id":"g-call","parentId":"g-ask","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"LookupMarker: let me look."},{"type":"toolCall","id":"c1","name":"context_history_recall","arguments":{"query":"`GuardMarker`"}},{"type":"toolCall","id":"c2","name":"context_history_read","arguments":{"sourceRef":"hist_0123456789abcdef0123456789abcdef","note":"GuardMarker"}}],"provider":"openai","model":"gpt","usage":{"input":1,"output":1},"stopReason":"toolUse","timestamp":1767225602000}}
      {"type":"message","id":"g-recall-out","parentId":"g-call","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"context_history_recall","content":[{"type":"text","text":"{\"hits\":[{\"excerpt\":\"GuardMarker was decided\"}]}"}],"isError":false,"timestamp":1767225603000}}
      {"type":"message","id":"g-read-out","parentId":"g-recall-out","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"context_history_read","content":[{"type":"text","text":"GuardMarker read back"}],"isError":false,"timestamp":1767225604000}}
      {"type":"message","id":"g-status-out","parentId":"g-read-out","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"toolResult","toolCallId":"c3","toolName":"context_history_status","content":[{"type":"text","text":"GuardMarker status"}],"isError":false,"timestamp":1767225605000}}
      {"type":"message","id":"g-bash-out","parentId":"g-status-out","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"toolResult","toolCallId":"c4","toolName":"bash","content":[{"type":"text","text":"GuardMarker from bash"}],"isError":false,"timestamp":1767225606000}}
      """
    And the history host opens the current session
    When recall is asked for "`GuardMarker`"
    Then the hit entry ids are "g-bash-out"
    When recall is asked for "`LookupMarker`"
    Then the hit entry ids are "g-call"
    When the first hit is read
    Then the read text is "LookupMarker: let me look."
    And the read is whole

  @id:INDEX-008
  @clause:C0.3-9 @clause:C2.6-10 @clause:C2.9-20 @clause:C3.4-6 @clause:C3.4-15 @clause:C8.1-7
  Scenario: The rebase handoff custom message is never a source; other custom messages are
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-handoff","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"custom_message","id":"handoff","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","customType":"ds4-rebase-handoff-v1","content":"HandoffMarker: continue from the checkpoint.","display":false}
      {"type":"custom_message","id":"note","parentId":"handoff","timestamp":"2026-01-01T00:00:02.000Z","customType":"note","content":"HandoffMarker in an ordinary note.","display":true}
      """
    And the history host opens the current session
    When recall is asked for "`HandoffMarker`"
    Then the result is complete with no warnings
    And the hit entry ids are "note"
    And the first hit has kind "custom_message"
    And the first hit has role "custom"

  @id:INDEX-009
  @clause:C2.4-8 @clause:C2.12-1 @clause:C5.1-25 @clause:D12-1
  Scenario Outline: A session file of another format version is refused and never written
    Given the current history session with these lines:
      """
      <header>
      {"type":"message","id":"v-1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` stable.","timestamp":1767225601000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "history-unavailable"
    When the history status is asked
    Then the status says the index is not yet synchronized
    And every history session file is byte-identical to before

    Examples:
      | case       | header                                                                                                   |
      | no-version | {"type":"session","id":"s-v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}                      |
      | null       | {"type":"session","version":null,"id":"s-v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}       |
      | version-1  | {"type":"session","version":1,"id":"s-v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}          |
      | version-2  | {"type":"session","version":2,"id":"s-v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}          |
      | version-4  | {"type":"session","version":4,"id":"s-v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}          |

  @id:INDEX-010
  @clause:C2.12-2 @clause:C2.12-15 @clause:C5.1-4 @clause:C5.1-24
  Scenario Outline: A line that is not a valid entry is skipped and counted: recall warns source-coverage-partial
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-malformed","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker.","timestamp":1767225601000}}
      <line>
      {"type":"message","id":"recent","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue.","timestamp":1767225604000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    Then the result is partial with warnings "source-coverage-partial"
    And the hit entry ids are "old"
    When the history status is asked
    Then the status reports 2 indexed entries and is complete
    And every history session file is byte-identical to before

    Examples:
      | case              | line                                                                                                                                  |
      | not-json          | this line is not JSON                                                                                                                 |
      | half-object       | {"type":"message","id":"half"                                                                                                         |
      | an-array          | ["type","message"]                                                                                                                    |
      | null              | null                                                                                                                                  |
      | no-type           | {"id":"no-type","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z"}                                                              |
      | no-id             | {"type":"message","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"x","timestamp":1}}     |
      | numeric-parent    | {"type":"message","id":"bad-parent","parentId":7,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"x","timestamp":1}} |
      | numeric-timestamp | {"type":"message","id":"bad-time","parentId":"old","timestamp":5,"message":{"role":"user","content":"x","timestamp":1}}               |

  @id:INDEX-011
  @clause:C5.1-4
  Scenario: Blank lines are skipped, not counted as malformed
    Given the current history session with these lines, blank lines kept:
      """
      {"type":"session","version":3,"id":"s-blank-lines","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}

      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep `LastExportUtc` as the export marker.","timestamp":1767225601000}}

      {"type":"message","id":"recent","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue.","timestamp":1767225604000}}
      """
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    When the first hit is read
    Then the read is whole
    When the history status is asked
    Then the status reports 2 indexed entries and is complete

  @id:INDEX-012
  @clause:C3.5-9 @clause:C5.1-4
  Scenario: CRLF line endings: the CR belongs to the raw line, the entry is indexed and verifies
    Given the current history session file has CRLF line endings
    And the history host opens the current session
    When recall is asked for "`LastExportUtc`"
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    When the first hit is read
    Then the read is whole
    And the read text is "Keep `LastExportUtc` as the export marker. Original constraint: never rename it."
    And every history session file is byte-identical to before

  @id:INDEX-013
  @clause:C5.1-19
  Scenario: A file that shrank is rebuilt: an entry no longer in it is no longer found
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"gone","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Soon `GoneMarker` will vanish.","timestamp":1767225605000}}
      """
    And the history host opens the current session
    And recall is asked for "`GoneMarker`"
    Then the hit entry ids are "gone"
    When the first hit's reference is kept as "gone"
    And the current session file loses its last line
    And recall is asked for "`GoneMarker`"
    Then the result is complete with no warnings
    And there are no hits
    When the reference "gone" is read
    Then the result is unavailable with code "reference-out-of-scope"
    When the history status is asked
    Then the status reports 2 indexed entries and is complete

  @id:INDEX-014
  @clause:P1.7-6
  Scenario: A repeated entry id: the later line wins and the shadowed one is counted as skipped
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-repeat","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"twice","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"First copy says `EarlierMarker`.","timestamp":1767225601000}}
      {"type":"message","id":"twice","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"Second copy says `LaterMarker`.","timestamp":1767225602000}}
      """
    And the history host opens the current session
    When recall is asked for "`EarlierMarker`"
    Then there are no hits
    And the result carries the warning "source-coverage-partial"
    When recall is asked for "`LaterMarker`"
    Then the hit entry ids are "twice"
    When the first hit is read
    Then the read text is "Second copy says `LaterMarker`."
    When the history status is asked
    Then the status reports 1 indexed entries and is complete

  @id:INDEX-015
  @clause:C5.1-9 @clause:C5.1-23
  Scenario: The last line edited in place while the file also grew is found with its new text (the checkpoint hash is checked)
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    And the current session file is edited in place, "Continue with" becoming "Progress with"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"grown","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"The file grew.","timestamp":1767225605000}}
      """
    And recall is asked for "`Progress`"
    Then the hit entry ids are "recent"
    When the first hit is read
    Then the read text is "Progress with the implementation."

  @id:INDEX-016
  @clause:C5.1-13 @clause:C5.1-21
  Scenario: An unterminated entry spoiled by what is appended to it is no longer found (growth after a torn tail rebuilds)
    When the history host opens the current session
    And the current session file gets this line appended without a newline: {"type":"message","id":"spoiled","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Unterminated `SpoiledMarker` line.","timestamp":1767225605000}}
    And recall is asked for "`SpoiledMarker`"
    Then the hit entry ids are "spoiled"
    When the current session file gets this line appended without a newline:  and more
    And the current session file gets a line feed appended
    And recall is asked for "`SpoiledMarker`"
    Then there are no hits
    And the result carries the warning "source-coverage-partial"

  @id:INDEX-017
  @clause:C2.5-3
  Scenario: A header whose session id changed while the file also grew is a scope mismatch (the header hash is compared)
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    When the current session file is edited in place, "s-index" becoming "s-indey"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"grown","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"The file grew.","timestamp":1767225605000}}
      """
    And recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "source-scope-mismatch"

  @id:INDEX-018
  @clause:C5.2-7 @clause:C8.1-1
  Scenario: The session file given as the index is refused and never renamed, written or set aside (issue 23)
    Given the history index path is the current session file
    When the history host opens the current session with that index
    And recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "index-not-ours"
    When the history status is asked
    Then the result is unavailable with code "index-not-ours"
    And every path in the folders of the given index and of the session kept its name, kind, mode and bytes
    And every history session file is byte-identical to before

  @id:INDEX-019
  @clause:C8.1-1
  Scenario Outline: A file the implementation did not make, given as the index, is refused and left as it was
    Given the history index path is <kind>
    When the history host opens the current session with that index
    And recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "index-not-ours"
    When the history status is asked
    Then the result is unavailable with code "index-not-ours"
    And every path in the folders of the given index and of the session kept its name, kind, mode and bytes

    Examples:
      | case            | kind                              |
      | text-file       | a text file                       |
      | foreign-sqlite  | another program's SQLite database |
      | folder          | a folder                          |

  @id:INDEX-020 @platform:posix @needs:symlink
  @clause:C8.1-1
  Scenario: A symbolic link to the session file and a FIFO, given as the index, are refused without following or waiting (FIFOs exist wherever links do)
    Given the history index path is a symbolic link to the current session file
    When the history host opens the current session with that index
    And recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "index-not-ours"
    And every path in the folders of the given index and of the session kept its name, kind, mode and bytes
    When the history index path becomes a FIFO
    And the history host opens the current session with that index
    And recall is asked for "`LastExportUtc`"
    Then the result is unavailable with code "index-not-ours"
    When the history status is asked
    Then the result is unavailable with code "index-not-ours"
    And every path in the folders of the given index and of the session kept its name, kind, mode and bytes
    And every history session file is byte-identical to before

  @id:INDEX-021
  @clause:C8.1-1
  Scenario: The implementation's own index, damaged, is still set aside inside its folder and rebuilt (D15)
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    When the files of the session folder are noted
    And the history index file gets garbage after its first 100 bytes
    And recall is asked for "`LastExportUtc`"
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    And the damaged bytes are kept in another file of the history index folder
    And every path in the folders of the given index and of the session kept its name, kind, mode and bytes
    When the history status is asked
    Then the status reports 2 indexed entries and is complete

  @id:INDEX-022
  @clause:C2.12-10 @clause:C2.12-15
  Scenario: With exact and full-text retrieval both off, recall warns lexical-retrieval-disabled and is partial; one of them on is enough
    Given the global history configuration:
      """
      {"retrieval": {"exact": false, "fts": false}}
      """
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the result is partial with warnings "lexical-retrieval-disabled"
    And the result has coverage "partial"
    And there are no hits
    When the global history configuration is changed to:
      """
      {"retrieval": {"exact": false}}
      """
    And the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the result is complete with no warnings
    And the hit entry ids are "old"

  @id:INDEX-023
  @clause:C2.7-2 @clause:C2.12-12 @clause:C2.12-15 @clause:C5.1-9 @clause:C5.1-12
  Scenario: A hit whose indexed line changed where the catch-up does not look is skipped with source-unavailable-or-changed
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the result is complete with no warnings
    When the current session file is edited in place, "Original" becoming "Modified"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"grown","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"The file grew.","timestamp":1767225605000}}
      """
    And recall is asked for "`Original`"
    Then the result is partial with warnings "source-unavailable-or-changed"
    And the result has coverage "partial"
    And there are no hits
    And no result contains "Modified constraint"

  @id:INDEX-024
  @clause:C5.1-5 @clause:C5.1-17 @clause:C5.1-24
  Scenario: One session indexed from another file path is rebuilt from its new file, not appended to the rows of the old one
    When the current session file is copied to the sibling session "copy"
    And the history host switches to the sibling session "copy"
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    When the current session file is edited in place, "Original" becoming "Modified"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"grown","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"The file grew.","timestamp":1767225605000}}
      """
    And the history host opens the current session
    And recall is asked for "`Modified`"
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    When the first hit is read
    Then the read text contains "Modified constraint: never rename it."

  @id:INDEX-025
  @clause:C5.1-6 @clause:C5.1-18
  Scenario: A header changed in place, though its id and cwd stay, rebuilds the index: an earlier line edited as the file grew is found with its new text
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    When the current session file is edited in place, "2026-01-01T00:00:00.000Z" becoming "2026-01-01T00:00:09.000Z"
    And the current session file is edited in place, "Original" becoming "Modified"
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"grown","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"The file grew.","timestamp":1767225605000}}
      """
    And recall is asked for "`Modified`"
    Then the result is complete with no warnings
    And the hit entry ids are "old"
    When the first hit is read
    Then the read text contains "Modified constraint: never rename it."

  @id:INDEX-026
  @clause:C5.1-13 @clause:C5.1-19
  Scenario: An unterminated entry cut shorter is dropped by a rebuild, though the bytes up to the checkpoint are unchanged (the file shrank)
    When the history host opens the current session
    And the current session file gets this line appended without a newline: {"type":"message","id":"unterminated","parentId":"recent","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"Unterminated `TailMarker` line.","timestamp":1767225605000}}
    And recall is asked for "`TailMarker`"
    Then the hit entry ids are "unterminated"
    And the result is partial with warnings "source-coverage-partial"
    When the current session file loses its last 5 bytes
    And recall is asked for "`TailMarker`"
    Then the result is partial with warnings "source-coverage-partial"
    And there are no hits
    When the history status is asked
    Then the status reports 2 indexed entries and is complete

  @id:INDEX-027
  @clause:C5.1-12 @clause:P1.7-6
  Scenario: An appended line that reuses an indexed entry id with other content rebuilds the index: the later line is the entry
    When the history host opens the current session
    And recall is asked for "`LastExportUtc`"
    Then the hit entry ids are "old"
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"A second line with the id old says `ReusedMarker`.","timestamp":1767225605000}}
      """
    And recall is asked for "`ReusedMarker`"
    Then the hit entry ids are "old"
    And the result carries the warning "source-coverage-partial"
    When the first hit is read
    Then the read text is "A second line with the id old says `ReusedMarker`."
    When recall is asked for "`LastExportUtc`"
    Then there are no hits
    And the result is partial with warnings "source-coverage-partial"
