Feature: The runtime project path is the real path of Pi's working directory
  Spec: [contract.md](../../docs/spec/contract.md) [§0.2](../../docs/spec/contract.md#02-conventions-used-everywhere-in-the-upstream); [decisions.md](../../docs/spec/decisions.md) [D9](../../docs/spec/decisions.md#d9-the-host)
  Pi hands the extension its working directory; the feature compares every project identity with
  its real path. A working directory reached through a symbolic link is the same project as the
  folder it names, whose real path the session header records as its cwd.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-linked","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Keep LinkedCwdMarker stable.","timestamp":1767225601000}}
      """

  @platform:posix @needs:symlink
  @id:HOST-026
  @clause:C0.2-5 @clause:C0.2-6
  Scenario: A working directory reached through a symbolic link is the project its session header names
    When the history host opens the current session from the working directory "linked-cwd", a symbolic link to the project folder
    And recall is asked for "`LinkedCwdMarker`"
    Then the result is complete with no warnings
    And the hit entry ids are "m1"
    When the history status is asked
    Then the result is complete with no warnings
