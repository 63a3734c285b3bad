Feature: The projection audit finds nothing in an implementation's own project, and each planted defect by exactly its check
  Spec: [contract.md](../../docs/spec/contract.md) [§5.1](../../docs/spec/contract.md#51-pre-existing-session-index-that-the-feature-reuses), [§5.2](../../docs/spec/contract.md#52-migration-17-canonical-history-source-locations), [§5.3](../../docs/spec/contract.md#53-migration-18-rebuildable-rebase-projections), [§6.5](../../docs/spec/contract.md#65-operation-identity-journal-file-and-phases), [§6.8](../../docs/spec/contract.md#68-target-staging-and-no-overwrite-installation), [§6.13](../../docs/spec/contract.md#613-lineage-verification-loadrebasestate); [docs/audit.md](../../docs/audit.md)
  An implementation indexes three sessions and rebases one of them, through the adapter only.
  Audited through the mapping its hello declares, that project has no finding, and the audit
  leaves every byte of the session files, the journal and the index as it found them. Each
  defect of fixtures/audit/defects.toml, planted alone in that project (SQL on the index through
  the contract's table names with foreign keys on, or a file operation), is reported by exactly
  the check the corpus names, with its count, and by no other check. An implementation that
  declares no audit mapping is UNSUPPORTED here.

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-audit","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"LastExportUtc old original decision","timestamp":1767225601000}}
      {"type":"message","id":"answer","parentId":"old","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Noted, the export keeps its column."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767225602000}}
      {"type":"compaction","id":"compact","parentId":"answer","timestamp":"2026-01-01T00:00:03.000Z","summary":"The export work so far.","firstKeptEntryId":"answer","tokensBefore":100}
      {"type":"message","id":"task","parentId":"compact","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the export implementation","timestamp":1767225604000}}
      """
    And the sibling history session "other" with these lines:
      """
      {"type":"session","version":3,"id":"s-audit-other","timestamp":"2026-01-02T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"o1","parentId":null,"timestamp":"2026-01-02T00:00:01.000Z","message":{"role":"user","content":"Another export question","timestamp":1767312001000}}
      {"type":"message","id":"o2","parentId":"o1","timestamp":"2026-01-02T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The export answer."}],"provider":"p","model":"m","stopReason":"stop","timestamp":1767312002000}}
      """
    And the implementation has indexed every session and rebased the current one

  @id:AUDIT-101
  @clause:C5.1-3 @clause:C5.1-4 @clause:C5.1-8 @clause:C5.2-4 @clause:C5.3-4 @clause:C5.3-5 @clause:C6.5-21 @clause:C6.5-22 @clause:D13-1
  Scenario: The implementation's own project has no finding, and the audit changes no byte of it
    When the project's files are remembered
    And the project is audited through the implementation's declared mapping
    Then the audit has no finding
    And the audit read 3 session files and 1 journal
    And no byte of a session file, a journal or the index changed, and no file came or went

  @id:AUDIT-102 @planted:AUDIT-*
  @clause:C5.1-3 @clause:C5.1-4 @clause:C5.1-8 @clause:C5.2-4 @clause:C5.3-4 @clause:C5.3-5
  Scenario Outline: A defect of the corpus, planted alone, is reported by exactly its check
    When the project is audited through the implementation's declared mapping
    Then the audit has no finding
    When the corpus defect "<case>" is planted
    And the project is audited through the implementation's declared mapping
    Then the audit's findings are exactly <check> with <count> row
    And the corpus says "<case>" is <check> with <count> row

    Examples:
      | case                         | check     | count |
      | entry-row-deleted            | AUDIT-001 | 1     |
      | entry-row-extra              | AUDIT-002 | 1     |
      | locator-shifted              | AUDIT-003 | 1     |
      | locator-missing              | AUDIT-003 | 1     |
      | content-hash-flipped         | AUDIT-004 | 1     |
      | entry-field-changed          | AUDIT-005 | 1     |
      | header-hash-changed          | AUDIT-006 | 1     |
      | cursor-stale                 | AUDIT-007 | 1     |
      | cursor-ahead                 | AUDIT-007 | 1     |
      | fts-key-deleted              | AUDIT-008 | 1     |
      | fts-index-corrupted          | AUDIT-009 | 1     |
      | lineage-without-pair         | AUDIT-010 | 1     |
      | lineage-source-hash-flipped  | AUDIT-011 | 1     |
      | journal-oversized            | AUDIT-012 | 1     |
      | journal-schema-invalid       | AUDIT-012 | 1     |
      | verified-without-target      | AUDIT-013 | 1     |
      | target-without-journal       | AUDIT-014 | 1     |
      | temporary-left               | AUDIT-015 | 1     |
      | operation-phase-changed      | AUDIT-016 | 1     |
      | index-world-readable         | AUDIT-017 | 1     |
