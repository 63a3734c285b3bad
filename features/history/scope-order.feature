Feature: Project scope's own checks come after the current session is synced
  Spec: [contract.md](../../docs/spec/contract.md) [§2.5](../../docs/spec/contract.md#25-scope-resolution-sources) steps 1 and 4
  Every scope starts from the current session: it must be on disk and its header must name this
  session and this project before anything else is looked at. Only then does project scope ask
  whether it is allowed and whether the project is trusted.

  @id:SCOPE-028
  @clause:C2.5-3 @clause:C2.5-32
  Scenario: A current session of another project is source-scope-mismatch, before project scope is refused as disabled or untrusted
    Given an untrusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-elsewhere","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/elsewhere/project"}
      {"type":"message","id":"root","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"BranchMarker elsewhere.","timestamp":1767225601000}}
      """
    When the history host opens the current session
    And recall is asked with:
      """
      {"query": "`BranchMarker`", "scope": "project"}
      """
    Then the result is unavailable with code "source-scope-mismatch"
