Feature: Configuration
  Spec: [contract.md](../../docs/spec/contract.md) [§1](../../docs/spec/contract.md#1-configuration)
  The saved overrides of the DS4 context extension: built-in defaults, then the global file
  <agentDir>/ds4-context.json, then the project file <cwd>/.pi/ds4-context.json when the project
  is trusted. Each request is a fresh host start, so it loads the files as they are now.
  In expected texts, $GLOBAL and $PROJECT stand for the paths of the two files.

  Background:
    Given a DS4 config sandbox with a Pi home, an agent dir and a trusted project

  @id:CONFIG-001
  @clause:C1.1-1 @clause:C1.1-2 @clause:C1.1-3 @clause:C1.1-4 @clause:C1.1-5 @clause:C1.1-6 @clause:C1.1-7 @clause:C1.2-1 @clause:C1.2-2 @clause:C1.2-3 @clause:C1.2-4 @clause:C1.2-5 @clause:C1.2-6 @clause:C1.3-4 @clause:C1.3-5 @clause:C1.3-6 @clause:C1.3-7 @clause:C1.3-8 @clause:C1.3-9 @clause:C1.3-10 @clause:C1.3-11 @clause:C1.4-1 @clause:C8.4-1 @clause:C8.4-3
  Scenario: Without saved files every value is the 0.5.0 default
    When the DS4 config is loaded
    Then the DS4 config has no warnings
    And the global DS4 config file is not loaded
    And the project DS4 config file is not loaded
    And the effective DS4 config values are:
      | path                                  | value                                    |
      | enabled                               | true                                     |
      | historyTools.enabled                  | true                                     |
      | historyTools.defaultScope             | "current-branch"                         |
      | historyTools.maxResults               | 6                                        |
      | historyTools.maxOutputTokens          | 3000                                     |
      | historyTools.allowProjectScope        | false                                    |
      | historyTools.includeSummaries         | false                                    |
      | historyTools.maxProjectSessions       | 100                                      |
      | sessionRebase.enabled                 | true                                     |
      | sessionRebase.mode                    | "manual"                                 |
      | sessionRebase.suggestAfterCompactions | 6                                        |
      | sessionRebase.suggestAboveSessionMiB  | 50                                       |
      | sessionRebase.checkpointTargetTokens  | 8000                                     |
      | sessionRebase.preserveSource          | true                                     |
      | retrieval.exact                       | true                                     |
      | retrieval.fts                         | true                                     |
      | retrieval.semantic                    | false                                    |
      | context.mode                          | "managed"                                |
      | memory.enabled                        | true                                     |
      | privacy.enabled                       | false                                    |
      | privacy.defaultClassification         | "normal"                                 |
      | privacy.localProviders                | ["faux","ollama","llama-cpp","lmstudio"] |
      | privacy.remoteDefaultAllowed          | ["normal","internal"]                    |
      | privacy.remoteProviders               | {}                                       |
      | privacy.redactSecrets                 | true                                     |

  @id:CONFIG-002
  @clause:C1.1-3 @clause:C1.1-4 @clause:C1.1-7 @clause:C1.2-3 @clause:C1.2-4 @clause:C1.2-5 @clause:C1.2-8
  Scenario Outline: A bounded integer is accepted at both ends of its range
    Given the global DS4 config file sets "<path>" to <value>
    When the DS4 config is loaded
    Then the DS4 config has no warnings
    And the global DS4 config file is loaded
    And the effective DS4 config value "<path>" is <value>

    Examples:
      | case                    | path                                  | value |
      | max-results-min         | historyTools.maxResults               | 1     |
      | max-results-max         | historyTools.maxResults               | 12    |
      | max-output-min          | historyTools.maxOutputTokens          | 256   |
      | max-output-max          | historyTools.maxOutputTokens          | 6000  |
      | project-sessions-min    | historyTools.maxProjectSessions       | 1     |
      | project-sessions-max    | historyTools.maxProjectSessions       | 500   |
      | suggest-compactions-min | sessionRebase.suggestAfterCompactions | 1     |
      | suggest-compactions-max | sessionRebase.suggestAfterCompactions | 100   |
      | suggest-mib-min         | sessionRebase.suggestAboveSessionMiB  | 1     |
      | suggest-mib-max         | sessionRebase.suggestAboveSessionMiB  | 1024  |
      | checkpoint-min          | sessionRebase.checkpointTargetTokens  | 512   |
      | checkpoint-max          | sessionRebase.checkpointTargetTokens  | 24000 |

  @id:CONFIG-003
  @clause:C1.1-3 @clause:C1.1-4 @clause:C1.1-7 @clause:C1.2-3 @clause:C1.2-4 @clause:C1.2-5 @clause:C1.2-8 @clause:C1.4-5
  Scenario Outline: A bounded integer outside its range discards the whole file
    Given the global DS4 config file sets "<path>" to <value>
    And the global DS4 config file sets "enabled" to false
    When the DS4 config is loaded
    Then the global DS4 config file is discarded with the message "<path> must be an integer between <min> and <max>"
    And the effective DS4 config value "enabled" is true
    And the effective DS4 config value "<path>" is <default>

    Examples:
      | case                      | path                                  | value | min | max   | default |
      | max-results-below         | historyTools.maxResults               | 0     | 1   | 12    | 6       |
      | max-results-above         | historyTools.maxResults               | 13    | 1   | 12    | 6       |
      | max-output-below          | historyTools.maxOutputTokens          | 255   | 256 | 6000  | 3000    |
      | max-output-above          | historyTools.maxOutputTokens          | 6001  | 256 | 6000  | 3000    |
      | project-sessions-below    | historyTools.maxProjectSessions       | 0     | 1   | 500   | 100     |
      | project-sessions-above    | historyTools.maxProjectSessions       | 501   | 1   | 500   | 100     |
      | suggest-compactions-below | sessionRebase.suggestAfterCompactions | 0     | 1   | 100   | 6       |
      | suggest-compactions-above | sessionRebase.suggestAfterCompactions | 101   | 1   | 100   | 6       |
      | suggest-mib-below         | sessionRebase.suggestAboveSessionMiB  | 0     | 1   | 1024  | 50      |
      | suggest-mib-above         | sessionRebase.suggestAboveSessionMiB  | 1025  | 1   | 1024  | 50      |
      | checkpoint-below          | sessionRebase.checkpointTargetTokens  | 511   | 512 | 24000 | 8000    |
      | checkpoint-above          | sessionRebase.checkpointTargetTokens  | 24001 | 512 | 24000 | 8000    |

  @id:CONFIG-004
  @clause:C1.2-8 @clause:C1.2-10
  Scenario Outline: Integers are checked as JavaScript safe integers
    Given the global DS4 config file sets "historyTools.maxResults" to <value>
    When the DS4 config is loaded
    Then the global DS4 config file is discarded with the message "historyTools.maxResults must be an integer between 1 and 12"

    Examples:
      | case              | value            |
      | fraction          | 6.5              |
      | beyond-safe       | 9007199254740993 |
      | negative-fraction | -0.5             |

  @id:CONFIG-005
  @clause:C1.2-2 @clause:C1.2-6 @clause:C1.2-7
  Scenario Outline: A mode other than manual or preserveSource not true is one error
    Given the global DS4 config file sets "sessionRebase.<key>" to <value>
    When the DS4 config is loaded
    Then the global DS4 config file is discarded with the message "sessionRebase requires manual mode and preserveSource=true"

    Examples:
      | case           | key            | value       |
      | other-mode     | mode           | "automatic" |
      | mode-case      | mode           | "Manual"    |
      | preserve-false | preserveSource | false       |

  @id:CONFIG-006
  @clause:C1.1-2
  Scenario Outline: The default scope is one of the three non-project scopes
    Given the global DS4 config file sets "historyTools.defaultScope" to "<scope>"
    When the DS4 config is loaded
    Then the DS4 config has no warnings
    And the effective DS4 config value "historyTools.defaultScope" is "<scope>"

    Examples:
      | case    | scope           |
      | branch  | current-branch  |
      | session | current-session |
      | lineage | current-lineage |

  @id:CONFIG-007
  @clause:C1.1-2 @clause:C1.2-9
  Scenario Outline: Any other default scope, project included, discards the file
    Given the global DS4 config file sets "historyTools.defaultScope" to "<scope>"
    When the DS4 config is loaded
    Then the global DS4 config file is discarded with the message "historyTools.defaultScope must be current-branch, current-session or current-lineage"

    Examples:
      | case    | scope   |
      | project | project |
      | unknown | branch  |

  @id:CONFIG-008
  @clause:C1.2-11 @clause:C1.2-7 @clause:C1.2-8 @clause:C1.2-9
  Scenario Outline: The first failing rule names the error, in the upstream order
    Given the global DS4 config file sets "<first>" to <first value>
    And the global DS4 config file sets "<second>" to <second value>
    When the DS4 config is loaded
    Then the global DS4 config file is discarded with the message "<message>"

    Examples:
      | case                     | first                                | first value | second                               | second value | message                                                                              |
      | mode-before-rebase-ints  | sessionRebase.checkpointTargetTokens | 1           | sessionRebase.mode                   | "auto"       | sessionRebase requires manual mode and preserveSource=true                           |
      | rebase-ints-before-scope | historyTools.defaultScope            | "project"   | sessionRebase.checkpointTargetTokens | 1            | sessionRebase.checkpointTargetTokens must be an integer between 512 and 24000        |
      | scope-before-tool-ints   | historyTools.maxResults              | 0           | historyTools.defaultScope            | "project"    | historyTools.defaultScope must be current-branch, current-session or current-lineage |
      | tool-ints-before-context | context.mode                         | "auto"      | historyTools.maxOutputTokens         | 1            | historyTools.maxOutputTokens must be an integer between 256 and 6000                 |

  @id:CONFIG-009
  @clause:C1.4-3
  Scenario: A value whose JavaScript type differs from the default is ignored with a warning
    Given the global DS4 config file contains:
      """
      {"historyTools": {"maxResults": "4", "allowProjectScope": 1, "includeSummaries": null, "maxOutputTokens": 500}}
      """
    When the DS4 config is loaded
    Then the global DS4 config file is loaded
    And the DS4 config warnings are exactly:
      """
      $GLOBAL: Invalid configuration value ignored: historyTools.maxResults has the wrong type
      $GLOBAL: Invalid configuration value ignored: historyTools.allowProjectScope has the wrong type
      $GLOBAL: Invalid configuration value ignored: historyTools.includeSummaries has the wrong type
      """
    And the effective DS4 config value "historyTools.maxResults" is 6
    And the effective DS4 config value "historyTools.maxOutputTokens" is 500

  @id:CONFIG-010
  @clause:C1.4-2
  Scenario: An unknown key is ignored with a warning
    Given the global DS4 config file contains:
      """
      {"historyTools": {"maxResult": 3, "maxResults": 4}, "recall": true}
      """
    When the DS4 config is loaded
    Then the DS4 config warnings are exactly:
      """
      $GLOBAL: Unknown configuration key ignored: historyTools.maxResult
      $GLOBAL: Unknown configuration key ignored: recall
      """
    And the effective DS4 config value "historyTools.maxResults" is 4

  @id:CONFIG-011
  @clause:C1.4-4
  Scenario: A non-object where an object is expected is ignored with a warning
    Given the global DS4 config file contains:
      """
      {"sessionRebase": [], "historyTools": null, "enabled": false}
      """
    When the DS4 config is loaded
    Then the DS4 config warnings are exactly:
      """
      $GLOBAL: Invalid configuration value ignored: sessionRebase must be an object
      $GLOBAL: Invalid configuration value ignored: historyTools must be an object
      """
    And the effective DS4 config value "enabled" is false
    And the effective DS4 config value "sessionRebase.enabled" is true

  @id:CONFIG-012
  @clause:C1.4-3
  Scenario: A number too large for a double is a wrong-type warning, not an error
    Given the global DS4 config file contains:
      """
      {"historyTools": {"maxResults": 1e400, "maxProjectSessions": 7}}
      """
    When the DS4 config is loaded
    Then the DS4 config warnings are exactly:
      """
      $GLOBAL: Invalid configuration value ignored: historyTools.maxResults has the wrong type
      """
    And the effective DS4 config value "historyTools.maxProjectSessions" is 7

  @id:CONFIG-013
  @clause:C1.4-5
  Scenario Outline: A file that is not JSON is discarded as a whole
    Given the global DS4 config file contains:
      """
      <text>
      """
    When the DS4 config is loaded
    Then the global DS4 config file is discarded
    And the global DS4 config file is not loaded
    And the effective DS4 config value "enabled" is true

    Examples:
      | case           | text                |
      | unclosed       | {"enabled": false   |
      | trailing-comma | {"enabled": false,} |
      | nan            | {"enabled": NaN}    |

  @id:CONFIG-014
  @clause:C1.4-5
  Scenario: A JSON value other than an object is discarded
    Given the global DS4 config file contains:
      """
      [{"enabled": false}]
      """
    When the DS4 config is loaded
    Then the global DS4 config file is discarded with the message "top-level JSON value must be an object"

  @id:CONFIG-015
  @clause:C1.4-1 @clause:C1.4-6
  Scenario: The project file beats the global file, which beats the defaults
    Given the global DS4 config file sets "historyTools.maxResults" to 3
    And the global DS4 config file sets "historyTools.maxOutputTokens" to 1000
    And the project DS4 config file sets "historyTools.maxResults" to 4
    When the DS4 config is loaded
    Then the DS4 config has no warnings
    And the global DS4 config file is loaded
    And the project DS4 config file is loaded
    And the effective DS4 config value "historyTools.maxResults" is 4
    And the effective DS4 config value "historyTools.maxOutputTokens" is 1000
    And the effective DS4 config value "historyTools.maxProjectSessions" is 100

  @id:CONFIG-016
  @clause:C1.4-1
  Scenario: The project file of an untrusted project is skipped with a warning
    Given the DS4 config project is not trusted
    And the project DS4 config file sets "historyTools.maxResults" to 4
    When the DS4 config is loaded
    Then the project DS4 config file is not loaded
    And the effective DS4 config value "historyTools.maxResults" is 6
    And the DS4 config warnings are exactly:
      """
      $PROJECT: project configuration skipped because the project is not trusted
      """

  @id:CONFIG-017
  @clause:C1.4-1 @clause:C1.4-5
  Scenario: A discarded project file leaves the global layer in force
    Given the global DS4 config file sets "historyTools.maxResults" to 3
    And the project DS4 config file sets "historyTools.maxResults" to 5
    And the project DS4 config file sets "historyTools.unknownKey" to 1
    And the project DS4 config file sets "sessionRebase.preserveSource" to false
    When the DS4 config is loaded
    Then the global DS4 config file is loaded
    And the project DS4 config file is not loaded
    And the effective DS4 config value "historyTools.maxResults" is 3
    And the DS4 config warnings are exactly:
      """
      $PROJECT: configuration ignored: sessionRebase requires manual mode and preserveSource=true
      """

  @id:CONFIG-018
  @clause:C0.3-16 @clause:C1.5-1 @clause:C1.5-2 @clause:C1.5-3
  Scenario: Show prints the schema id, the files, the warnings and one row per catalog path
    Given the global DS4 config file contains:
      """
      {"historyTools": {"defaultScope": "current-lineage"}, "stray": 1}
      """
    When the DS4 config is loaded
    Then the DS4 config show text has the lines:
      """
      DS4 Context Configuration (ds4-context-config-v1)
      Enabled:                   yes
      Global file:               $GLOBAL (loaded)
      Project file:              $PROJECT
      Configuration warnings:    1
        - $GLOBAL: Unknown configuration key ignored: stray
      [historyTools]
      historyTools.defaultScope                         "current-lineage"             "current-branch"              current-branch|current-session|current-lineage enum
      historyTools.maxResults                           6                             6                             integer
      sessionRebase.mode                                "manual"                      "manual"                      manual enum
      privacy.remoteProviders                           {}                            {}                            classification-map optional
      """
    And the DS4 config show text has one row for each of these paths:
      """
      enabled
      context.mode
      historyTools.enabled
      historyTools.defaultScope
      historyTools.maxResults
      historyTools.maxOutputTokens
      historyTools.allowProjectScope
      historyTools.includeSummaries
      historyTools.maxProjectSessions
      sessionRebase.enabled
      sessionRebase.mode
      sessionRebase.suggestAfterCompactions
      sessionRebase.suggestAboveSessionMiB
      sessionRebase.checkpointTargetTokens
      sessionRebase.preserveSource
      retrieval.exact
      retrieval.fts
      retrieval.semantic
      memory.enabled
      privacy.enabled
      privacy.defaultClassification
      privacy.localProviders
      privacy.remoteDefaultAllowed
      privacy.remoteProviders
      privacy.redactSecrets
      """

  @id:CONFIG-019
  @clause:C1.5-2
  Scenario: Show shortens a value longer than 26 characters to 25 and an ellipsis
    Given the global DS4 config file sets "privacy.localProviders" to ["abcdefghijklmnopqrstuvwxyz"]
    When the DS4 config is loaded
    Then the DS4 config show text has the lines:
      """
      privacy.localProviders                            ["abcdefghijklmnopqrstuvw…    ["faux","ollama","llama-c…    string-array
      """

  @id:CONFIG-020
  @clause:C1.4-1 @clause:C1.5-10 @clause:C1.5-12 @clause:C1.5-14
  Scenario: Set writes the project file as two-space JSON for the next session
    When DS4 config set "historyTools.maxResults" to "8" is run
    Then the DS4 config command succeeds
    And the DS4 config reply says the change applies from the next Pi session
    And the project DS4 config file contains exactly:
      """
      {
        "historyTools": {
          "maxResults": 8
        }
      }
      """
    And the effective DS4 config value "historyTools.maxResults" is 8 after a new start

  @id:CONFIG-021
  @clause:C1.5-10
  Scenario: Set in an untrusted project is refused and points to --global
    Given the DS4 config project is not trusted
    When DS4 config set "historyTools.enabled" to "false" is run
    Then the DS4 config command fails with code "config-project-untrusted"
    And the DS4 config error message is "Project configuration requires a trusted project; use /context config set/unset --global instead"
    And the project DS4 config file does not exist

  @id:CONFIG-022
  @clause:C1.5-5 @clause:C1.5-10 @clause:C1.5-14 @clause:C1.5-20
  Scenario: Set with --global writes the global file, also in an untrusted project
    Given the DS4 config project is not trusted
    And the global DS4 config file sets "zeta" to 1
    When DS4 config set "sessionRebase.enabled" to " FALSE " is run with --global
    Then the DS4 config command succeeds
    And the DS4 config reply warnings are exactly:
      """
      Unknown configuration key ignored: zeta
      """
    And the global DS4 config file contains exactly:
      """
      {
        "zeta": 1,
        "sessionRebase": {
          "enabled": false
        }
      }
      """

  @id:CONFIG-023
  @clause:C1.5-5 @clause:C1.5-6 @clause:C1.5-8 @clause:C1.5-9 @clause:C1.5-17 @clause:C1.5-18 @clause:C1.5-19 @clause:C1.5-21
  Scenario Outline: Set parses the value by the catalog kind
    When DS4 config set "<path>" to "<value>" is run with --global
    Then the DS4 config command fails with code "config-invalid-value"
    And the DS4 config error message is "<message>"
    And the global DS4 config file does not exist

    Examples:
      | case             | path                         | value            | message                                                                                     |
      | boolean-word     | historyTools.enabled         | yes              | historyTools.enabled: expected true or false                                                |
      | integer-fraction | historyTools.maxResults      | 6.0              | historyTools.maxResults: expected a safe integer                                            |
      | integer-unsafe   | historyTools.maxResults      | 9007199254740992 | historyTools.maxResults: expected a safe integer                                            |
      | enum-project     | historyTools.defaultScope    | project          | historyTools.defaultScope: expected one of current-branch, current-session, current-lineage |
      | enum-mode        | sessionRebase.mode           | auto             | sessionRebase.mode: expected one of manual                                                  |
      | json-invalid     | privacy.localProviders       | [ollama]         | privacy.localProviders: expected valid JSON                                                 |
      | array-non-string | privacy.remoteDefaultAllowed | ["normal",1]     | privacy.remoteDefaultAllowed: expected a JSON array of strings                              |

  @id:CONFIG-024
  @clause:C1.5-11
  Scenario: Set refuses to edit a malformed file and leaves it alone
    Given the project DS4 config file contains:
      """
      {"historyTools": {
      """
    When DS4 config set "historyTools.maxResults" to "4" is run
    Then the DS4 config command fails with code "config-file-malformed"
    And the DS4 config error message is "Configuration file is malformed JSON: $PROJECT"
    And the project DS4 config file is unchanged

  @id:CONFIG-025
  @clause:C1.5-13 @clause:C1.5-20 @clause:C1.5-22
  Scenario Outline: Set writes nothing when the whole file would be invalid
    Given the project DS4 config file sets "historyTools.maxOutputTokens" to 300
    When DS4 config set "<path>" to "<value>" is run
    Then the DS4 config command fails with code "config-invalid"
    And the DS4 config error message is "<message>"
    And the project DS4 config file is unchanged

    Examples:
      | case            | path                                 | value | message                                                                       |
      | max-results     | historyTools.maxResults              | 13    | historyTools.maxResults must be an integer between 1 and 12                   |
      | checkpoint      | sessionRebase.checkpointTargetTokens | 511   | sessionRebase.checkpointTargetTokens must be an integer between 512 and 24000 |
      | preserve-source | sessionRebase.preserveSource         | false | sessionRebase requires manual mode and preserveSource=true                    |

  @id:CONFIG-026
  @clause:C1.5-15
  Scenario: Unset removes the key and prunes parents left empty
    Given the project DS4 config file contains:
      """
      {"historyTools": {"maxResults": 4}, "sessionRebase": {"enabled": false, "checkpointTargetTokens": 600}}
      """
    When DS4 config unset "historyTools.maxResults" is run
    And DS4 config unset "sessionRebase.enabled" is run
    Then the DS4 config command succeeds
    And the project DS4 config file contains exactly:
      """
      {
        "sessionRebase": {
          "checkpointTargetTokens": 600
        }
      }
      """

  @id:CONFIG-027
  @clause:C1.5-15
  Scenario: Unset of a key that is not set is an error
    Given the global DS4 config file sets "historyTools.maxResults" to 4
    When DS4 config unset "historyTools.maxOutputTokens" is run with --global
    Then the DS4 config command fails with code "config-not-set"
    And the DS4 config error message is "historyTools.maxOutputTokens is not set in $GLOBAL"
    And the global DS4 config file is unchanged

  @id:CONFIG-028
  @clause:C1.5-16
  Scenario: Options other than --global are refused by name
    When DS4 config set "historyTools.maxResults" to "4" is run with the options "--force --dry-run"
    Then the DS4 config command fails with code "config-unknown-option"
    And the DS4 config error message is "Unknown option(s): --force, --dry-run"
    And the project DS4 config file does not exist

  @id:CONFIG-029
  @clause:C1.5-4
  Scenario: A path outside the catalog is refused and points to the list
    When DS4 config set "historyTools.maxResult" to "4" is run
    Then the DS4 config command fails with code "config-unknown-path"
    And the DS4 config error message is "Unknown configuration key: historyTools.maxResult. See /context config for the full list."

  @id:CONFIG-030
  @clause:C1.4-5
  Scenario Outline: An upstream bound the feature does not edit is still checked on both sides (retrieval.maxResults 1..100)
    Given the global DS4 config file sets "retrieval.maxResults" to <value>
    When the DS4 config is loaded
    Then the global DS4 config file is <state>
    And the effective DS4 config value "retrieval.maxResults" is <effective>

    Examples:
      | case        | value | state  | effective |
      | below       | 0     | not loaded | 12    |
      | lower-bound | 1     | loaded | 1         |
      | upper-bound | 100   | loaded | 100       |
      | above       | 101   | not loaded | 12    |

  @id:CONFIG-031
  @clause:C1.4-1
  Scenario: An untrusted project without a project file gives no warning
    Given the DS4 config project is not trusted
    When the DS4 config is loaded
    Then the DS4 config has no warnings
    And the project DS4 config file is not loaded

  @id:CONFIG-032
  @clause:C1.4-1
  Scenario: The provider map of the project file is merged entry by entry onto the global one
    Given the global DS4 config file contains:
      """
      {"privacy": {"remoteProviders": {"openai": ["normal"], "google": ["normal"]}}}
      """
    And the project DS4 config file contains:
      """
      {"privacy": {"remoteProviders": {"anthropic": ["normal", "internal"], "google": ["internal"]}}}
      """
    When the DS4 config is loaded
    Then the DS4 config has no warnings
    And the project DS4 config file is loaded
    And the effective DS4 config value "privacy.remoteProviders" is {"openai": ["normal"], "google": ["internal"], "anthropic": ["normal", "internal"]}

  @id:CONFIG-033
  @clause:C1.5-2 @clause:D3-1
  Scenario: Show keeps a value of exactly 26 UTF-16 units whole and cuts one of 27, counting an emoji as two
    Given the global DS4 config file sets "privacy.localProviders" to ["abcdefghijklmnopqrstuv"]
    When the DS4 config is loaded
    Then the DS4 config show text has the lines:
      """
      privacy.localProviders                            ["abcdefghijklmnopqrstuv"]    ["faux","ollama","llama-c…    string-array
      """
    Given the global DS4 config file sets "privacy.localProviders" to ["abcdefghijklmnopqrstuvw"]
    When the DS4 config is loaded
    Then the DS4 config show text has the lines:
      """
      privacy.localProviders                            ["abcdefghijklmnopqrstuvw…    ["faux","ollama","llama-c…    string-array
      """
    Given the global DS4 config file sets "privacy.localProviders" to ["😀😀😀😀😀😀😀😀😀😀😀😀"]
    When the DS4 config is loaded
    Then the DS4 config show text has the lines:
      """
      privacy.localProviders                            ["😀😀😀😀😀😀😀😀😀😀😀…     ["faux","ollama","llama-c…    string-array
      """

  @id:CONFIG-034
  @clause:C1.5-6 @clause:C1.5-13
  Scenario: Set takes the largest safe integer and zero-padded digits as integers, then checks the range
    When DS4 config set "historyTools.maxResults" to "9007199254740991" is run with --global
    Then the DS4 config command fails with code "config-invalid"
    And the DS4 config error message is "historyTools.maxResults must be an integer between 1 and 12"
    When DS4 config set "historyTools.maxResults" to "0000000000000000004" is run with --global
    Then the DS4 config command succeeds
    And the effective DS4 config value "historyTools.maxResults" is 4 after a new start

  @id:CONFIG-038
  @clause:C1.5-3 @clause:C1.5-24 @clause:C1.5-17 @clause:C1.5-18 @clause:C1.5-19 @clause:C1.5-20 @clause:C1.5-21 @clause:C1.5-22
  Scenario: Show hints the catalog kind of every historyTools and sessionRebase path, with the enum values
    When the DS4 config is loaded
    Then the DS4 config show text has the lines:
      """
      historyTools.enabled                              true                          true                          boolean
      historyTools.allowProjectScope                    false                         false                         boolean
      historyTools.includeSummaries                     false                         false                         boolean
      historyTools.defaultScope                         "current-branch"              "current-branch"              current-branch|current-session|current-lineage enum
      historyTools.maxResults                           6                             6                             integer
      historyTools.maxOutputTokens                      3000                          3000                          integer
      historyTools.maxProjectSessions                   100                           100                           integer
      sessionRebase.enabled                             true                          true                          boolean
      sessionRebase.preserveSource                      true                          true                          boolean
      sessionRebase.mode                                "manual"                      "manual"                      manual enum
      sessionRebase.suggestAfterCompactions             6                             6                             integer
      sessionRebase.suggestAboveSessionMiB              50                            50                            integer
      sessionRebase.checkpointTargetTokens              8000                          8000                          integer
      """

  @id:CONFIG-039
  @clause:C1.5-5 @clause:C1.5-6 @clause:C1.5-24 @clause:C1.5-17 @clause:C1.5-19 @clause:C1.5-20 @clause:C1.5-22
  Scenario Outline: Set parses each historyTools and sessionRebase path by its kind (<case>)
    When DS4 config set "<path>" to "<bad>" is run with --global
    Then the DS4 config command fails with code "config-invalid-value"
    And the DS4 config error message is "<path>: <message>"
    And the global DS4 config file does not exist
    When DS4 config set "<path>" to "<good>" is run with --global
    Then the DS4 config command succeeds
    And the effective DS4 config value "<path>" is <value> after a new start

    Examples:
      | case                    | path                                  | bad  | message                  | good   | value |
      | allow-project-scope     | historyTools.allowProjectScope        | 1    | expected true or false   | TRUE   | true  |
      | include-summaries       | historyTools.includeSummaries         | yes  | expected true or false   | True   | true  |
      | max-output-tokens       | historyTools.maxOutputTokens          | 1e3  | expected a safe integer  | 1000   | 1000  |
      | max-project-sessions    | historyTools.maxProjectSessions       | 7.0  | expected a safe integer  | 7      | 7     |
      | rebase-enabled          | sessionRebase.enabled                 | off  | expected true or false   | false  | false |
      | preserve-source         | sessionRebase.preserveSource          | 1    | expected true or false   | true   | true  |
      | suggest-compactions     | sessionRebase.suggestAfterCompactions | "6"  | expected a safe integer  | 10     | 10    |
      | suggest-mib             | sessionRebase.suggestAboveSessionMiB  | 50.5 | expected a safe integer  | 64     | 64    |
      | checkpoint-tokens       | sessionRebase.checkpointTargetTokens  | +600 | expected a safe integer  | 600    | 600   |

  @id:CONFIG-040
  @clause:C1.5-11
  Scenario Outline: Set and unset refuse a file that is malformed or not a JSON object, and leave it alone (<case>)
    Given the project DS4 config file contains:
      """
      <text>
      """
    When DS4 config set "historyTools.maxResults" to "4" is run
    Then the DS4 config command fails with code "config-file-malformed"
    And the DS4 config error message is "<message>"
    And the project DS4 config file is unchanged
    When DS4 config unset "historyTools.maxResults" is run
    Then the DS4 config command fails with code "config-file-malformed"
    And the project DS4 config file is unchanged

    Examples:
      | case      | text                         | message                                                  |
      | array     | [{"historyTools": {}}]       | Configuration file must contain a JSON object: $PROJECT  |
      | null      | null                         | Configuration file must contain a JSON object: $PROJECT  |
      | string    | "historyTools"               | Configuration file must contain a JSON object: $PROJECT  |
      | malformed | {"historyTools": {"a": 1}    | Configuration file is malformed JSON: $PROJECT           |

  @id:CONFIG-041
  @clause:C0.3-15
  Scenario Outline: A model override names its token estimator by the exact id chars-v1 (<case>)
    Given the global DS4 config file contains:
      """
      {"historyTools": {"maxResults": 4}, "modelAwareness": {"overrides": {"ollama/*": {"tokenEstimator": "<estimator>"}}}}
      """
    When the DS4 config is loaded
    Then the global DS4 config file is <state>
    And the effective DS4 config value "historyTools.maxResults" is <max results>

    Examples:
      | case        | estimator     | state      | max results |
      | chars-v1    | chars-v1      | loaded     | 4           |
      | o200k       | o200k-base-v1 | loaded     | 4           |
      | upper-case  | CHARS-V1      | not loaded | 6           |
      | version-2   | chars-v2      | not loaded | 6           |
      | bare-chars  | chars         | not loaded | 6           |
