Feature: Files the implementation creates are owner-only: files 0600, folders 0700
  Spec: [contract.md](../../docs/spec/contract.md) [§6.5](../../docs/spec/contract.md#65-operation-identity-journal-file-and-phases) (durable write: temporary file mode 0600), [§6.12](../../docs/spec/contract.md#612-inter-process-lock); [decisions.md](../../docs/spec/decisions.md) [D6](../../docs/spec/decisions.md#d6-privacy); [docs/privacy.md](../../docs/privacy.md) (owner-only files)
  The projection database (with its -wal and -shm), the recovery journal, the lock database, the
  rebase target and the durable write's temporaries hold history; the folders the implementation
  creates for them hold their names; the configuration files (ds4-context.json) that config set
  writes say which providers may see what. Each is created so that only its owner may read it:
  files 0600, folders 0700; a file that exists keeps its mode when it is rewritten. The harness notes every path that exists before the implementation runs and
  reads the modes of the real files and folders that appeared after it. Where the platform has no
  POSIX permission bits (Windows) the step checks that the paths exist and says the modes were
  not read: files there take the folder's inherited ACL (docs/privacy.md).

  Background:
    Given a trusted history project
    And the clock is set to 1767229200000 ms
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-owner","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"old","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"OwnerOnlyMarker old original decision","timestamp":1767225601000}}
      {"type":"message","id":"task","parentId":"old","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"Continue the implementation","timestamp":1767225604000}}
      """
    And the paths of the scenario folder are noted

  @platform:posix @needs:permission-bits
  @id:OWNER-001
  @clause:D13-1
  Scenario: A recall creates the index folder 0700 and the projection database 0600
    Given the history host opens the current session
    When recall is asked for "`OwnerOnlyMarker`"
    Then the history index file and its folder are among the new paths
    And every new path is owner-only

  @platform:posix @needs:permission-bits
  @id:OWNER-002
  @clause:C6.5-21 @clause:C6.12-2 @clause:D13-1
  Scenario: A rebase creates its folders 0700 and its journal, lock and target 0600
    When the rebase host opens the current session
    And a rebase is asked
    Then the rebase result is verified and the session was replaced
    And the rebase journal, the rebase lock and the rebase target are among the new paths
    And every new path is owner-only

  @platform:posix @needs:permission-bits
  @id:OWNER-003 @timeout:3 @planted:AUDIT-015
  @clause:C6.5-22 @clause:D11-1 @clause:D13-1
  Scenario: The durable write's temporary target file is 0600 while it waits to be installed
    When the rebase host opens the current session
    And a rebase crashes at "TargetStaged" in a child process
    Then the child process exited with code 91
    And a temporary file of the rebase target is among the new paths
    And every new path is owner-only

  @platform:posix @needs:permission-bits
  @id:OWNER-004
  @clause:D13-1
  Scenario: Folders that already exist keep their mode; what is created inside them is owner-only
    Given the history index folder exists with mode 0755
    And the paths of the scenario folder are noted
    And the history host opens the current session
    When recall is asked for "`OwnerOnlyMarker`"
    Then the history index folder has mode 0755
    And the history index file is among the new paths
    And every new path is owner-only

  @platform:posix @needs:permission-bits
  @id:OWNER-005
  @clause:C1.5-10 @clause:C1.5-12 @clause:D13-1
  Scenario: config set creates the project configuration file 0600 and its folder 0700
    Given the DS4 config host is the history project
    When DS4 config set "historyTools.maxResults" to "8" is run
    Then the DS4 config command succeeds
    And the project DS4 config file and its folder are among the new paths
    And every new path is owner-only

  @platform:posix @needs:permission-bits
  @id:OWNER-006
  @clause:C1.5-10 @clause:D13-1
  Scenario: config set --global creates the global configuration file 0600 in the agent dir that exists
    Given the DS4 config host is the history project
    When DS4 config set "sessionRebase.enabled" to "false" is run with --global
    Then the DS4 config command succeeds
    And the global DS4 config file is among the new paths
    And every new path is owner-only

  @platform:posix @needs:permission-bits
  @id:OWNER-007
  @clause:C1.5-10 @clause:D13-1
  Scenario: A configuration file that exists keeps its mode when config set rewrites it
    Given the DS4 config host is the history project
    And the global DS4 config file contains:
      """
      {}
      """
    And the global DS4 config file has mode 0640
    And the paths of the scenario folder are noted
    When DS4 config set "historyTools.maxResults" to "8" is run with --global
    Then the DS4 config command succeeds
    And the global DS4 config file has mode 0640
    And no path under the scenario folder is new
