Feature: The rebase checkpoint is deterministic quoted state, bound to its source by the link
  Spec: [contract.md](../../docs/spec/contract.md) [§6.5](../../docs/spec/contract.md#65-operation-identity-journal-file-and-phases) (identity), [§6.6](../../docs/spec/contract.md#66-checkpoint-construction-deterministic-no-llm), [§6.8](../../docs/spec/contract.md#68-target-staging-and-no-overwrite-installation), [§6.14](../../docs/spec/contract.md#614-carrying-pins-and-session-memory-into-the-continuation), [§7.2](../../docs/spec/contract.md#72-testsintegrationsession-rebasetestts-newest-at-0a4184e6-the-ebb04f2d-version-lacks-the-atomicity-cases) cases 1, 7, 14; [decisions.md](../../docs/spec/decisions.md) [D1](../../docs/spec/decisions.md#d1-compatibility-target), [D2](../../docs/spec/decisions.md#d2-json-bytes)
  Operation and checkpoint ids derive from the source session id, the captured leaf and the
  SHA-256 of the whole source. The checkpoint quotes Pi's compaction-aware context as one JSON
  string inside sentinels, says verification is unknown, carries confirmed pins and session
  memory whole, and is bound to the source prefix by the link entry's checkpoint hash.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-checkpoint","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted, the export keeps its column."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767225602000}}
      {"type":"compaction","id":"compact","parentId":"answer","timestamp":"2026-01-01T00:00:03.000Z","summary":"The export work so far.","firstKeptEntryId":"answer","tokensBefore":100}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """

  @id:CHECKPOINT-001
  @clause:C0.3-7 @clause:C6.1-10 @clause:C6.5-1 @clause:C6.5-2 @clause:C6.5-3 @clause:C6.6-28 @clause:C6.7-2 @clause:D1-1
  Scenario: Operation and checkpoint ids share the suffix derived from session id, leaf and source SHA-256
    When the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase operation id is the one derived from the source session id, leaf and SHA-256
    When the rebase operation id is remembered
    And a rebase dry run is asked
    Then the rebase operation id is the remembered one
    When a rebase is asked
    Then the rebase operation id is the remembered one
    And the checkpoint id shares the operation id's suffix

  @id:CHECKPOINT-002
  @clause:C6.4-1 @clause:C6.6-7 @clause:C6.6-9 @clause:C6.6-14 @clause:C6.6-15 @clause:C6.6-16 @clause:C8.1-2
  Scenario: The handoff quotes the compaction-aware context as one JSON string between the sentinels
    When the rebase host opens the current session
    And a rebase is asked
    Then the handoff has eight lines and quotes the context entries "compact answer task" as one JSON string
    And the handoff does not contain "LastExportUtc old original decision"

  @id:CHECKPOINT-003
  @clause:C0.3-9 @clause:C6.6-24 @clause:C6.6-27 @clause:C6.6-30 @clause:C6.6-31 @clause:C6.8-11
  Scenario: The handoff message in the target is the checkpoint's handoff inside its classification markers
    When the rebase host opens the current session
    And a rebase is asked
    Then the checkpoint classification is "normal" and the handoff message carries it
    And the rebase target entries validate against the rebase schemas

  @id:CHECKPOINT-004
  @clause:C6.1-13 @clause:C6.6-21 @clause:C6.6-22 @clause:C6.6-23 @clause:C6.6-30 @clause:C6.6-31 @clause:C6.6-33 @clause:C6.17-10
  Scenario: The checkpoint says verification is unknown and reports its limitations as the result's warnings
    When the rebase host opens the current session
    And a rebase is asked
    Then the checkpoint was created at 1767229200000 ms, its verification state is unknown and its limitations are the result's warnings
    And the checkpoint captures the source at leaf "task" with 1 compaction
    And the rebase result counts the handoff's chars-v1 tokens as its checkpoint tokens

  @id:CHECKPOINT-005
  @clause:C6.6-8
  Scenario: A privacy marker in the context raises the checkpoint classification
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"secret","parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"[ds4:sensitive]Rotate the deployment key first[/ds4:sensitive]","timestamp":1767225605000}}
      """
    And the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the checkpoint classification is "sensitive" and the handoff message carries it

  @id:CHECKPOINT-006
  @clause:C6.6-8
  Scenario: The configured default classification is the checkpoint's lowest level
    Given the global history configuration:
      """
      {"privacy": {"defaultClassification": "internal"}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the checkpoint classification is "internal" and the handoff message carries it

  @id:CHECKPOINT-007
  @clause:C0.3-8 @clause:C6.8-20 @clause:C6.8-1 @clause:C6.8-2 @clause:C6.8-3 @clause:C6.8-4 @clause:C6.8-5 @clause:C6.8-6 @clause:C6.8-7 @clause:C8.3-28 @clause:D2-1
  Scenario: The link binds the checkpoint by its JSON.stringify hash to the source prefix and the target
    When the rebase host opens the current session
    And a rebase is asked
    Then the link binds the checkpoint by its hash to the source prefix and the target

  @id:CHECKPOINT-008
  @clause:C0.3-10 @clause:C6.1-14 @clause:C6.6-25 @clause:C6.6-26 @clause:C6.14-2 @clause:C6.14-3 @clause:C6.14-4 @clause:C6.14-5 @clause:C6.14-6
  Scenario: Pins and session memory travel whole; project scope never, a branch pin only from the captured branch
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-pins","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"side","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"A branch not taken","timestamp":1767225602000}}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m1","operation":"add","createdAt":1767225603000,"item":{"id":"pin-branch","scope":"branch","content":"Keep LastExportUtc nullable","branchLeafId":"task","sourceEntryId":"old","createdAt":1767225603000}},"id":"p1","parentId":"old","timestamp":"2026-01-01T00:00:03.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m2","operation":"add","createdAt":1767225604000,"item":{"id":"pin-project","scope":"project","content":"Project rule","projectPath":"{cwd}","createdAt":1767225604000}},"id":"p2","parentId":"p1","timestamp":"2026-01-01T00:00:04.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m3","operation":"add","createdAt":1767225605000,"item":{"id":"pin-side","scope":"branch","content":"Only on the side branch","branchLeafId":"side","createdAt":1767225605000}},"id":"p3","parentId":"p2","timestamp":"2026-01-01T00:00:05.000Z"}
      {"type":"custom","customType":"ds4-context-pin-v1","data":{"schemaVersion":1,"mutationId":"m4","operation":"add","createdAt":1767225606000,"item":{"id":"pin-session","scope":"session","content":"Session-wide rule","createdAt":1767225606000}},"id":"p4","parentId":"p3","timestamp":"2026-01-01T00:00:06.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"n1","operation":"add","createdAt":1767225607000,"item":{"id":"mem-session","scope":"session","claim":"LastExportUtc stays nullable","createdAt":1767225607000,"sourceEntryIds":["old"]}},"id":"n1","parentId":"p4","timestamp":"2026-01-01T00:00:07.000Z"}
      {"type":"custom","customType":"ds4-context-memory-v1","data":{"schemaVersion":1,"mutationId":"n2","operation":"add","createdAt":1767225608000,"item":{"id":"mem-project","scope":"project","claim":"The project uses tabs","projectPath":"{cwd}","createdAt":1767225608000,"sourceEntryIds":[]}},"id":"n2","parentId":"n1","timestamp":"2026-01-01T00:00:08.000Z"}
      {"type":"message","id":"task","parentId":"n2","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225609000}}
      """
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the rebase result preserves 2 pins and 1 memories
    And the checkpoint carries the pins "pin-branch pin-session" and the memories "mem-session"
    And the carried pin "pin-branch" keeps its original content "Keep LastExportUtc nullable" and its branchLeafId "task"
    And the carried pin "pin-session" keeps its original content "Session-wide rule" and its createdAt "1767225606000"
    And the rebase target entries validate against the rebase schemas

  @id:CHECKPOINT-009
  @clause:C6.6-6 @clause:C6.17-7 @clause:C8.4-3 @clause:D8-1
  Scenario: More than 1000 carried pins refuse the checkpoint with checkpoint-memory-budget and write nothing
    Given the current history session also holds 1001 session pins
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is unavailable with code "checkpoint-memory-budget"
    And no rebase operations folder exists
    And no rebase target exists
    And the rebase source is byte-identical to before

  @id:CHECKPOINT-010
  @clause:C6.6-8
  Scenario: A local-only hit inside a stored history read result makes the checkpoint local-only
    When the current session file gets these lines appended:
      """
      {"type":"message","id":"readcall","parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_read_1","name":"context_history_read","arguments":{"sourceRef":"ref-1"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":1767225605000}}
      {"type":"message","id":"readresult","parentId":"readcall","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"toolResult","toolCallId":"call_read_1","toolName":"context_history_read","content":[{"type":"text","text":"{\"schema\":\"ds4-history-result-v1\",\"quotedData\":true,\"status\":\"complete\",\"source\":{\"entryId\":\"old\",\"classification\":\"local-only\"},\"text\":\"A line read back\"}"}],"isError":false,"timestamp":1767225606000}}
      {"type":"message","id":"after","parentId":"readresult","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"user","content":"Go on","timestamp":1767225607000}}
      """
    And the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the checkpoint classification is "local-only" and the handoff message carries it

  @id:CHECKPOINT-011
  @clause:C1.2-5 @clause:C6.6-19 @clause:C6.17-7 @clause:C8.1-9 @clause:C8.4-3
  Scenario Outline: A handoff exactly at the token budget fits; one token less is checkpoint-budget
    Given the current history session also holds a user message "long" of 2000 "x" characters
    When the rebase host opens the current session
    And a rebase dry run is asked
    And the checkpoint token budget becomes the previewed checkpoint tokens minus <less>
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is <status> with the warnings "<warnings>"

    Examples:
      | case         | less | status      | warnings                                                                    |
      | at-budget    | 0    | preview     | deterministic-handoff verification-not-inferred older-state-requires-recall |
      | below-budget | 1    | unavailable | checkpoint-budget                                                           |

  @id:CHECKPOINT-012
  @clause:C6.6-6 @clause:C8.4-3
  Scenario: Exactly 1000 carried pins are within the limit
    Given the current history session also holds 1000 session pins
    When the current session file gets these lines appended:
      """
      {"type":"compaction","id":"cpins","parentId":"pin003e7","timestamp":"2026-01-01T00:00:50.000Z","summary":"A thousand pins were recorded.","firstKeptEntryId":"pin003e7","tokensBefore":100}
      {"type":"message","id":"after","parentId":"cpins","timestamp":"2026-01-01T00:00:51.000Z","message":{"role":"user","content":"Carry on with the pins kept","timestamp":1767225651000}}
      """
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is a preview
    And the rebase result preserves 1000 pins and 0 memories

  @id:CHECKPOINT-013
  @clause:C6.6-22
  Scenario: sourceCompactionCount counts every compaction on the captured branch, not only the one in context
    When the current session file gets these lines appended:
      """
      {"type":"compaction","id":"compact2","parentId":"task","timestamp":"2026-01-01T00:00:05.000Z","summary":"The export work, summarized again.","firstKeptEntryId":"task","tokensBefore":120}
      {"type":"message","id":"later","parentId":"compact2","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":"Carry on after the second compaction","timestamp":1767225606000}}
      """
    And the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the checkpoint captures the source at leaf "later" with 2 compactions

  @id:CHECKPOINT-014
  @clause:C6.6-20 @clause:C6.6-21 @clause:C6.6-24 @clause:C6.6-25 @clause:C6.6-26 @clause:C6.6-27 @clause:C6.6-28 @clause:C6.6-29 @clause:C6.6-30 @clause:C6.6-31 @clause:C8.3-28
  Scenario: The checkpoint's keys are in the contract's insertion order, the order its hash covers
    When the rebase host opens the current session
    And a rebase is asked
    Then the checkpoint keys are in the contract's order

  @id:CHECKPOINT-015
  @clause:C6.5-3 @clause:C6.5-6
  Scenario: A source that grew on another branch, its leaf unchanged, is a new operation
    When the rebase host opens the current session at leaf "task"
    And a rebase is asked
    And the rebase operation id is remembered
    And the current session file gets these lines appended:
      """
      {"type":"message","id":"sibling","parentId":"compact","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"A branch beside the captured one","timestamp":1767225605000}}
      """
    And the rebase host opens the current session at leaf "task"
    And a rebase dry run is asked
    Then the rebase result is a preview
    And the rebase operation id is not the remembered one

  @id:CHECKPOINT-016
  @clause:C6.6-10 @clause:C6.6-11 @clause:C6.6-12 @clause:C6.6-13
  Scenario: The handoff's statement lines say what it is, that verification is unknown, how pins travel and how to recall more
    When the rebase host opens the current session
    And a rebase is asked
    Then the handoff has eight lines and quotes the context entries "compact answer task" as one JSON string
    And line 2 of the handoff mentions "deterministic preserved"
    And line 3 of the handoff mentions "verification unknown"
    And line 4 of the handoff mentions "pins memor"
    And line 5 of the handoff mentions "context_history_recall current-lineage"

  @id:CHECKPOINT-017
  @clause:C6.6-2 @clause:C6.6-5
  Scenario: A target never installed is not rebuilt while Pi's current session is another one: source-moved-before-checkpoint
    When the rebase host opens the current session with these facts:
      """
      {"activation": "cancel"}
      """
    And a rebase is asked
    And the rebase target is deleted
    And the rebase host facts change to:
      """
      {"activation": "switch", "sessionId": "s-someone-else"}
      """
    And the rebase operation is recovered
    Then the rebase result is recoverable with code "source-moved-before-checkpoint"
    And no rebase target exists
    And the rebase journal phase is "Recoverable"

  @id:CHECKPOINT-018
  @clause:C6.6-32
  Scenario: A checkpoint whose JSON is longer than 1,048,576 characters is checkpoint-memory-budget and writes nothing
    Given the current history session also holds a session pin of 1100000 characters
    When the current session file gets these lines appended:
      """
      {"type":"compaction","id":"cbig","parentId":"pinbig","timestamp":"2026-01-01T00:00:50.000Z","summary":"A long pin was recorded.","firstKeptEntryId":"nothing-kept","tokensBefore":100}
      {"type":"message","id":"after","parentId":"cbig","timestamp":"2026-01-01T00:00:51.000Z","message":{"role":"user","content":"Carry on with the pin kept","timestamp":1767225651000}}
      """
    And the rebase host opens the current session
    And a rebase dry run is asked
    Then the rebase result is unavailable with code "checkpoint-memory-budget"
    When a rebase is asked
    Then the rebase result is unavailable with code "checkpoint-memory-budget"
    And no rebase operations folder exists
    And no rebase target exists
