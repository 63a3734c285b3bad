Feature: Host facts
  Spec: [decisions.md](../../docs/spec/decisions.md) [D9](../../docs/spec/decisions.md#d9-the-host); [pi-session-model.md](../../docs/spec/pi-session-model.md) [§1.1](../../docs/spec/pi-session-model.md#11-directory-layout-and-file-names)
  The host facts are what Pi 0.84.3 itself would derive from its home, working directory,
  environment and command line: the agent dir, the session dir and whether the project is trusted.
  Paths in quotes are relative to the scenario's scratch directory.

  @id:HOST-001
  @clause:C1.4-1 @clause:D9-1 @clause:P1.1-1
  Scenario: The agent dir defaults to ~/.pi/agent and the config files hang off it
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" without trust-requiring Pi resources
    When the host facts are requested
    Then the host fact "agentDir" is the path "home/.pi/agent"
    And the host fact "sessionsRoot" is the path "home/.pi/agent/sessions"
    And the host fact "globalConfigPath" is the path "home/.pi/agent/ds4-context.json"
    And the host fact "projectConfigPath" is the path "work/proj/.pi/ds4-context.json"
    And the host fact "configDirName" is the text ".pi"

  @id:HOST-002
  @clause:D9-1 @clause:P1.1-1
  Scenario: PI_CODING_AGENT_DIR overrides the agent dir, with ~ taken from the host home
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" without trust-requiring Pi resources
    And the host environment variable "PI_CODING_AGENT_DIR" is "~/custom-agent"
    When the host facts are requested
    Then the host fact "agentDir" is the path "home/custom-agent"
    And the host fact "globalConfigPath" is the path "home/custom-agent/ds4-context.json"

  @id:HOST-003
  @clause:D9-1 @clause:P1.1-1
  Scenario: An empty PI_CODING_AGENT_DIR is ignored
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" without trust-requiring Pi resources
    And the host environment variable "PI_CODING_AGENT_DIR" is ""
    When the host facts are requested
    Then the host fact "agentDir" is the path "home/.pi/agent"

  @id:HOST-004
  @clause:D9-1 @clause:P1.1-2
  Scenario: The default session dir is the encoded cwd under the sessions root
    Given a host Pi home with an empty agent dir
    And a host project "work/my.proj" without trust-requiring Pi resources
    When the host facts are requested
    Then the host session dir is the default Pi session dir of the host project

  @id:HOST-005
  @clause:D9-1 @clause:P1.1-3
  Scenario: --session-dir beats PI_CODING_AGENT_SESSION_DIR and settings sessionDir
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi global settings.json says sessionDir is the path "from-settings"
    And the host environment variable "PI_CODING_AGENT_SESSION_DIR" is "~/from-env"
    And the host Pi command line is "--session-dir sessions-here"
    When the host facts are requested
    Then the host fact "sessionDir" is the path "work/proj/sessions-here"

  @id:HOST-006
  @clause:D9-1 @clause:P1.1-3
  Scenario: PI_CODING_AGENT_SESSION_DIR beats settings sessionDir and expands ~
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi global settings.json says sessionDir is the path "from-settings"
    And the host environment variable "PI_CODING_AGENT_SESSION_DIR" is "~/from-env"
    When the host facts are requested
    Then the host fact "sessionDir" is the path "home/from-env"

  @id:HOST-007
  @clause:D9-1 @clause:P1.1-3
  Scenario: The project settings sessionDir beats the global one, even for an untrusted project
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi global settings.json says sessionDir is the path "from-settings"
    And the host project settings.json contains:
      """
      {"sessionDir": ".pi/sessions"}
      """
    And the host Pi command line is "--no-approve"
    When the host facts are requested
    Then the host project is not trusted
    And the host fact "sessionDir" is the path "work/proj/.pi/sessions"

  @id:HOST-008
  @clause:D9-1
  Scenario: A project without trust-requiring resources is trusted, whatever trust.json says
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" without trust-requiring Pi resources
    And the host project has a ".pi/ds4-context.json" file
    And the host Pi trust.json marks "work/proj" as untrusted
    When the host facts are requested
    Then the host project is trusted
    And the host trust source is "no-project-resources"

  @id:HOST-009
  @clause:D9-1
  Scenario: A saved decision on a parent directory applies to the project
    Given a host Pi home with an empty agent dir
    And a host project "work/a/b/proj" with trust-requiring Pi resources
    And the host Pi trust.json marks "work/a" as trusted
    When the host facts are requested
    Then the host project is trusted
    And the host trust source is "saved"

  @id:HOST-010
  @clause:D9-1
  Scenario: The closest saved decision wins over one further up
    Given a host Pi home with an empty agent dir
    And a host project "work/a/proj" with trust-requiring Pi resources
    And the host Pi trust.json marks "work/a" as trusted
    And the host Pi trust.json marks "work/a/proj" as untrusted
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "saved"

  @id:HOST-011
  @clause:D9-1
  Scenario: A null entry in trust.json is no decision, so the parent's applies
    Given a host Pi home with an empty agent dir
    And a host project "work/a/proj" with trust-requiring Pi resources
    And the host Pi trust.json marks "work/a" as trusted
    And the host Pi trust.json marks "work/a/proj" as null
    When the host facts are requested
    Then the host project is trusted
    And the host trust source is "saved"

  @id:HOST-012
  @clause:D9-1
  Scenario: --approve overrides a saved distrust
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi trust.json marks "work/proj" as untrusted
    And the host Pi command line is "--approve"
    When the host facts are requested
    Then the host project is trusted
    And the host trust source is "flag"

  @id:HOST-013
  @clause:D9-1
  Scenario: -na overrides a saved trust, and the last trust flag wins
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi trust.json marks "work/proj" as trusted
    And the host Pi command line is "-a -na"
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "flag"

  @id:HOST-014
  @clause:D9-1
  Scenario: A flag's value is not a trust flag
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi command line is "--thinking --approve"
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "ask"

  @id:HOST-015
  @clause:D9-1
  Scenario: defaultProjectTrust "always" trusts a project with no saved decision
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi global settings.json contains:
      """
      {"defaultProjectTrust": "always"}
      """
    When the host facts are requested
    Then the host project is trusted
    And the host trust source is "default"

  @id:HOST-016
  @clause:D9-1
  Scenario: A saved decision beats defaultProjectTrust
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi global settings.json contains:
      """
      {"defaultProjectTrust": "always"}
      """
    And the host Pi trust.json marks "work" as untrusted
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "saved"

  @id:HOST-017
  @clause:D9-1
  Scenario: Without a decision Pi would ask, and a host without UI is untrusted
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "ask"

  @id:HOST-018
  @clause:D9-1
  Scenario: defaultProjectTrust is read from the global settings only
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host project settings.json contains:
      """
      {"defaultProjectTrust": "always"}
      """
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "ask"

  @id:HOST-019
  @clause:D9-1
  Scenario: A malformed trust.json that must be consulted refuses the request
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi trust.json contains:
      """
      {"/some/dir": "yes"}
      """
    When the host facts are requested
    Then the host facts request is refused with code "host-trust-store-invalid"

  @id:HOST-020
  @clause:D9-1
  Scenario: A malformed trust.json is not read when a trust flag decides
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi trust.json contains:
      """
      {not json
      """
    And the host Pi command line is "--no-approve"
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "flag"

  @id:HOST-021
  @clause:D9-1 @clause:P1.1-2
  Scenario: A malformed global settings.json is ignored
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi global settings.json contains:
      """
      {"defaultProjectTrust": "always",
      """
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "ask"
    And the host session dir is the default Pi session dir of the host project

  @id:HOST-022
  @clause:D9-1
  Scenario: A relative working directory is refused
    Given a host Pi home with an empty agent dir
    When the host facts are requested for the relative working directory "proj"
    Then the host facts request is refused with code "invalid-params"

  @id:HOST-023
  @clause:D9-1
  Scenario: A trust flag after -- is a message, not a flag
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" with trust-requiring Pi resources
    And the host Pi command line is "-- --approve"
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "ask"
    Given the host Pi command line is "--approve -- -na"
    When the host facts are requested
    Then the host project is trusted
    And the host trust source is "flag"

  @id:HOST-024
  @clause:D9-1
  Scenario: The user's own ~/.agents/skills needs no trust; the same folder in a project's ancestor does
    Given a host Pi home with an empty agent dir
    And a host project "home/work/proj" without trust-requiring Pi resources
    And the host project has a "../../.agents/skills/mine.md" file
    When the host facts are requested
    Then the host project is trusted
    And the host trust source is "no-project-resources"
    Given the host project has a "../.agents/skills/theirs.md" file
    When the host facts are requested
    Then the host project is not trusted
    And the host trust source is "ask"

  @id:HOST-025
  @clause:D9-1 @clause:P1.1-1
  Scenario: A bare ~ as PI_CODING_AGENT_DIR is the host home
    Given a host Pi home with an empty agent dir
    And a host project "work/proj" without trust-requiring Pi resources
    And the host environment variable "PI_CODING_AGENT_DIR" is "~"
    When the host facts are requested
    Then the host fact "agentDir" is the path "home"
    And the host fact "globalConfigPath" is the path "home/ds4-context.json"
