Feature: History results respect privacy classifications, markers and secrets
  Spec: [contract.md](../../docs/spec/contract.md) [§2.7](../../docs/spec/contract.md#27-processing-of-each-hit) steps 3, 4, 6 and 7, [§2.10](../../docs/spec/contract.md#210-privacy-classification-and-sanitizing), [§2.11](../../docs/spec/contract.md#211-secret-redaction-shared-redactsecrets), [§3.3](../../docs/spec/contract.md#33-read-algorithm-and-its-codes-in-order) step 7, [§7.1](../../docs/spec/contract.md#71-testsintegrationhistory-recalltestts-ebb04f2d-real-pi-sessionmanager-offline) case 5, [§1.3](../../docs/spec/contract.md#13-pre-existing-settings-the-feature-reads) (privacy.*); [decisions.md](../../docs/spec/decisions.md) [D6](../../docs/spec/decisions.md#d6-privacy)
  A whole entry is classified before any excerpt is cut: markers, nested history results and
  secrets anywhere in its raw JSON raise it, and an entry the current model provider may not
  receive is omitted whole (privacy-omitted). What is shown has its markers stripped and its
  secrets redacted, and public ids never leak an unsafe id.

  Background:
    Given a trusted history project
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-privacy","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"hello","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hello, let us start.","timestamp":1767225601000}}
      """

  @id:PRIVACY-001
  @clause:C2.7-20 @clause:C2.7-3 @clause:C2.10-19 @clause:C2.10-21 @clause:C2.10-22 @clause:C2.10-23 @clause:C2.10-29 @clause:C2.12-13 @clause:C3.3-18 @clause:C3.3-19 @clause:D6-1
  Scenario: The whole entry is classified, though its local-only span lies beyond the excerpt
    Given the current history session gets a user message "big" with this text:
      """
      LastExportUtc public beginning {x*2000} [ds4:local-only]LocalOnlyTail kept on this machine[/ds4:local-only]
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`LastExportUtc`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`LastExportUtc`"
    Then the result is complete with no warnings
    And the hit entry ids are "big"
    And the first hit has classification "local-only"
    And the first hit has truncated "True"
    And the first hit's excerpt contains "LastExportUtc public beginning"
    And the first hit's excerpt does not contain "[ds4:"
    When the first hit is read
    Then the read text contains "LocalOnlyTail kept on this machine"
    And the read text does not contain "[ds4:"
    And the read classification is "local-only"
    When the model provider becomes "openai"
    And the first hit is read
    Then the result is unavailable with code "privacy-omitted"

  @id:PRIVACY-002
  @clause:C1.3-5 @clause:C2.10-19 @clause:C2.10-23
  Scenario Outline: A local provider receives local-only content (names trimmed, any case)
    Given the current history session gets a user message "private" with this text:
      """
      LocalNote [ds4:local-only]kept here[/ds4:local-only] end
      """
    When the history host opens the current session with provider <provider>
    And recall is asked for "`LocalNote`"
    Then the result is complete with no warnings
    And the hit entry ids are "private"
    And the first hit has classification "local-only"
    And the first hit's excerpt is "LocalNote kept here end"

    Examples:
      | case       | provider    |
      | ollama     | "ollama"    |
      | faux       | "faux"      |
      | llama-cpp  | "llama-cpp" |
      | lmstudio   | "lmstudio"  |
      | upper-case | "OLLAMA"    |
      | padded     | " Ollama "  |

  @id:PRIVACY-003
  @clause:C2.10-21 @clause:C2.10-22 @clause:C2.10-25 @clause:C8.1-6 @clause:D6-1
  Scenario Outline: A remote provider never receives local-only content, not even a part of it
    Given the current history session gets a user message "private" with this text:
      """
      LocalNote public part [ds4:local-only]kept here[/ds4:local-only] end
      """
    When the history host opens the current session with provider "<provider>"
    And recall is asked for "`LocalNote`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    And no result contains "public part"

    Examples:
      | case         | provider     |
      | openai       | openai       |
      | anthropic    | anthropic    |
      | ollama-cloud | ollama-cloud |

  @id:PRIVACY-004
  @clause:C2.10-15 @clause:C2.10-25 @clause:D9-1
  Scenario: Without a model provider the provider is "unknown", a remote one
    Given the current history session gets a user message "inner" with this text:
      """
      InternalNote [ds4:internal]team only[/ds4:internal]
      """
    And the current history session gets a user message "private" with this text:
      """
      LocalNote [ds4:local-only]kept here[/ds4:local-only]
      """
    When the history host opens the current session with no model provider
    And recall is asked for "`InternalNote`"
    Then the result is complete with no warnings
    And the first hit has classification "internal"
    When recall is asked for "`LocalNote`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits

  @id:PRIVACY-005
  @clause:C2.10-21
  Scenario: remoteProviders cannot grant local-only to a remote provider
    Given the global history configuration:
      """
      {"privacy": {"remoteProviders": {"openai": ["normal", "internal", "sensitive", "local-only"]}}}
      """
    And the current history session gets a user message "private" with this text:
      """
      LocalNote [ds4:local-only]kept here[/ds4:local-only]
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`LocalNote`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits

  @id:PRIVACY-006
  @clause:C1.3-6 @clause:C2.10-23 @clause:C2.10-24 @clause:C2.10-25 @clause:C2.10-29
  Scenario: Internal content reaches a default remote provider, markers stripped, in recall and read
    Given the current history session gets a user message "inner" with this text:
      """
      InternalNote before [ds4:internal]the team-only detail[/ds4:internal] after
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`InternalNote`"
    Then the result is complete with no warnings
    And the hit entry ids are "inner"
    And the first hit has classification "internal"
    And the first hit's excerpt is "InternalNote before the team-only detail after"
    When the first hit is read
    Then the read text is "InternalNote before the team-only detail after"
    And the read classification is "internal"

  @id:PRIVACY-007
  @clause:C2.10-1 @clause:C2.10-2 @clause:C2.10-3 @clause:C2.10-4 @clause:C2.10-5 @clause:C2.10-7 @clause:C2.10-17 @clause:C2.10-23
  Scenario Outline: Markers are stripped from what is shown and raise the classification
    Given the current history session gets a user message "marked" with this text:
      """
      <text>
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`MarkerCheck`"
    Then the result is complete with no warnings
    And the first hit has classification "<level>"
    And the first hit's excerpt is "<shown>"

    Examples:
      | case            | text                                                      | level    | shown                                  |
      | internal-span   | Plan [ds4:internal]MarkerCheck note[/ds4:internal] done   | internal | Plan MarkerCheck note done             |
      | any-case        | Plan [DS4:Internal]MarkerCheck note[/ds4:INTERNAL] done   | internal | Plan MarkerCheck note done             |
      | normal-span     | Plan [ds4:normal]MarkerCheck note[/ds4:normal] done       | normal   | Plan MarkerCheck note done             |
      | prefix-no-close | [ds4:internal] MarkerCheck rest of the note               | internal | MarkerCheck rest of the note           |
      | two-spans       | [ds4:internal]MarkerCheck[/ds4:internal] and [ds4:normal]more[/ds4:normal] | internal | MarkerCheck and more |
      | escaped         | Plan \\[ds4:sensitive]MarkerCheck stays text               | normal   | Plan \\[ds4:sensitive]MarkerCheck stays text |

  @id:PRIVACY-008
  @clause:C2.10-1 @clause:C2.10-6 @clause:C2.10-7 @clause:C2.10-22
  Scenario Outline: Marked content above what the provider may receive omits the whole entry
    Given the current history session gets a user message "marked" with this text:
      """
      <text>
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`MarkerCheck`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits

    Examples:
      | case             | text                                                                              |
      | sensitive-span   | Plan [ds4:sensitive]MarkerCheck note[/ds4:sensitive] done                           |
      | local-only-span  | Plan MarkerCheck [ds4:local-only]note[/ds4:local-only] done                         |
      | stray-closing    | MarkerCheck note [/ds4:sensitive] done                                              |
      | opening-mid-text | MarkerCheck note [ds4:sensitive] done                                               |
      | nested           | [ds4:internal]MarkerCheck [ds4:sensitive]deep[/ds4:sensitive] note[/ds4:internal]   |
      | mismatched       | [ds4:internal]MarkerCheck note[/ds4:local-only]                                     |

  @id:PRIVACY-009
  @clause:C2.10-34 @clause:C2.10-9 @clause:C2.10-10 @clause:C2.10-11 @clause:C2.10-12 @clause:C2.10-14
  Scenario Outline: Nested or serialized history results keep their classification
    Given the current history session gets a user message "nested" with this text:
      """
      <text>
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`NestedMarker`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits

    Examples:
      | case                | text                                                                                                                         |
      | classified-hit      | {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","hits":[{"excerpt":"NestedMarker","classification":"local-only"}]} |
      | not-quoted          | {"schema":"ds4-history-result-v1","status":"complete","hits":[{"excerpt":"NestedMarker","classification":"normal"}]}        |
      | does-not-parse      | NestedMarker {"schema": "ds4-history-result-v1", "quotedData": true                                                        |
      | marker-in-excerpt   | {"schema":"ds4-history-result-v1","quotedData":true,"hits":[{"excerpt":"NestedMarker [ds4:sensitive]x[/ds4:sensitive]"}]}  |

  @id:PRIVACY-010
  @clause:C2.10-34 @clause:C2.10-12 @clause:C2.10-14
  Scenario: A nested result's classification raises the entry it sits in
    Given the current history session gets a user message "nested" with this text:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","hits":[{"excerpt":"NestedMarker","classification":"internal"}]}
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`NestedMarker`"
    Then the result is complete with no warnings
    And the hit entry ids are "nested"
    And the first hit has classification "internal"

  @id:PRIVACY-011
  @clause:C1.3-8 @clause:C2.10-18 @clause:C2.10-27 @clause:C2.11-1 @clause:C2.11-2 @clause:C2.11-3 @clause:C2.11-4 @clause:C2.11-5 @clause:C3.3-17 @clause:D6-1
  Scenario Outline: Each secret family is redacted for a local provider, and the entry becomes sensitive
    Given the current history session gets a user message "secret" with this text:
      """
      SecretCheck before <secret> after
      """
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`SecretCheck`"
    Then the result is complete with no warnings
    And the hit entry ids are "secret"
    And the first hit has classification "sensitive"
    And the first hit's excerpt is "SecretCheck before <shown> after"
    When the first hit is read
    Then the read text is "SecretCheck before <shown> after"
    And the read classification is "sensitive"
    And no result contains "<hidden>"

    Examples:
      | case        | secret                                                            | shown                            | hidden               |
      | openai-key  | sk-FAKEfake0000000000                                             | [DS4 REDACTED CREDENTIAL]        | FAKEfake0000000000   |
      | github      | ghp_FAKEfake0000000000                                            | [DS4 REDACTED CREDENTIAL]        | FAKEfake0000000000   |
      | aws         | AKIAFAKEFAKEFAKE0000                                              | [DS4 REDACTED CREDENTIAL]        | AKIAFAKEFAKEFAKE0000 |
      | bearer      | Bearer FAKEtoken0000.fake                                         | Bearer [DS4 REDACTED TOKEN]      | FAKEtoken0000        |
      | assignment  | password=FAKEpass0000                                             | password=[DS4 REDACTED SECRET]   | FAKEpass0000         |
      | quoted      | api_key: 'FAKEkey00000'                                           | api_key: '[DS4 REDACTED SECRET]' | FAKEkey00000         |
      | private-key | -----BEGIN RSA PRIVATE KEY-----FAKEKEYBODY-----END RSA PRIVATE KEY----- | [DS4 REDACTED PRIVATE KEY] | FAKEKEYBODY          |

  @id:PRIVACY-012
  @clause:C2.7-6 @clause:C2.10-18 @clause:C2.10-22 @clause:C2.10-26 @clause:C2.12-13 @clause:C2.12-15 @clause:C8.3-12 @clause:C8.3-13 @clause:D6-1
  Scenario: A secret in the text omits the whole entry for a default remote provider
    Given the current history session gets a user message "secret" with this text:
      """
      SecretCheck deploy with sk-FAKEfake0000000000 tonight
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`SecretCheck`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    And no result contains "FAKEfake0000000000"
    And no result contains "deploy with"

  @id:PRIVACY-013
  @clause:C2.7-20 @clause:C2.7-4 @clause:C2.7-7 @clause:C2.10-26 @clause:C3.3-16
  Scenario: A secret only in the entry's raw JSON (a thinking block) omits it remotely and makes it sensitive locally
    Given the current history session gets these entries:
      """
      {"type":"message","id":"thought","parentId":"hello","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"use the key sk-FAKEfake0000000000 quietly"},{"type":"text","text":"ThinkingCheck: the deploy is ready."}],"api":"openai-responses","provider":"openai","model":"fake-model","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225602000}}
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`ThinkingCheck`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    When the model provider becomes "ollama"
    And recall is asked for "`ThinkingCheck`"
    Then the result is complete with no warnings
    And the hit entry ids are "thought"
    And the first hit has classification "sensitive"
    And the first hit's excerpt is "ThinkingCheck: the deploy is ready."
    When the first hit is read
    Then the read text is "ThinkingCheck: the deploy is ready."
    And no result contains "FAKEfake0000000000"

  @id:PRIVACY-014
  @clause:C2.10-20 @clause:C2.10-27
  Scenario Outline: A remote provider allowed sensitive through privacy.remoteProviders sees redacted text
    Given the global history configuration:
      """
      {"privacy": {"remoteProviders": {<key>: ["normal", "internal", "sensitive"]}}}
      """
    And the current history session gets a user message "secret" with this text:
      """
      SecretCheck deploy with sk-FAKEfake0000000000 tonight
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`SecretCheck`"
    Then the result is complete with no warnings
    And the first hit has classification "sensitive"
    And the first hit's excerpt is "SecretCheck deploy with [DS4 REDACTED CREDENTIAL] tonight"
    When the first hit is read
    Then the read text is "SecretCheck deploy with [DS4 REDACTED CREDENTIAL] tonight"
    When the model provider becomes "anthropic"
    And recall is asked for "`SecretCheck`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    And no result contains "FAKEfake0000000000"

    Examples:
      | case       | key          |
      | exact-name | "openai"     |
      | any-case   | "OpenAI"     |
      | padded     | " openai "   |

  @id:PRIVACY-015
  @clause:C1.3-3 @clause:C2.10-15 @clause:C8.3-12
  Scenario Outline: The history sanitizer runs whatever privacy.enabled and privacy.redactSecrets say
    Given the global history configuration:
      """
      <configuration>
      """
    And the current history session gets a user message "secret" with this text:
      """
      SecretCheck deploy with sk-FAKEfake0000000000 tonight
      """
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`SecretCheck`"
    Then the first hit has classification "sensitive"
    And the first hit's excerpt is "SecretCheck deploy with [DS4 REDACTED CREDENTIAL] tonight"
    When the model provider becomes "openai"
    And recall is asked for "`SecretCheck`"
    Then the result is partial with warnings "privacy-omitted"
    And no result contains "FAKEfake0000000000"

    Examples:
      | case            | configuration                                           |
      | disabled        | {"privacy": {"enabled": false}}                         |
      | no-redaction    | {"privacy": {"redactSecrets": false}}                   |
      | enabled-no-redo | {"privacy": {"enabled": true, "redactSecrets": false}}  |

  @id:PRIVACY-016
  @clause:C1.3-4 @clause:C2.10-16
  Scenario Outline: privacy.defaultClassification is where every unmarked entry starts
    Given the global history configuration:
      """
      {"privacy": {"defaultClassification": "<default>"}}
      """
    And the current history session gets a user message "plain" with this text:
      """
      PlainNote nothing special here
      """
    When the history host opens the current session with provider "<provider>"
    And recall is asked for "`PlainNote`"
    Then the result is <status> with <warnings>
    And the recall found <hits> hits

    Examples:
      | case                | default    | provider | status   | warnings                    | hits |
      | sensitive-remote    | sensitive  | openai   | partial  | warnings "privacy-omitted"  | 0    |
      | sensitive-local     | sensitive  | ollama   | complete | no warnings                 | 1    |
      | local-only-remote   | local-only | openai   | partial  | warnings "privacy-omitted"  | 0    |

  @id:PRIVACY-017
  @clause:C1.3-4 @clause:C2.10-16
  Scenario: An unmarked entry takes the configured default classification
    Given the global history configuration:
      """
      {"privacy": {"defaultClassification": "internal"}}
      """
    And the current history session gets a user message "plain" with this text:
      """
      PlainNote nothing special here
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`PlainNote`"
    Then the first hit has classification "internal"

  @id:PRIVACY-018
  @clause:C1.3-6 @clause:C2.10-20
  Scenario: privacy.remoteDefaultAllowed limits every remote provider without its own rule
    Given the global history configuration:
      """
      {"privacy": {"remoteDefaultAllowed": ["normal"]}}
      """
    And the current history session gets a user message "inner" with this text:
      """
      InternalNote [ds4:internal]team only[/ds4:internal]
      """
    And the current history session gets a user message "plain" with this text:
      """
      PlainNote nothing special here
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`InternalNote`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    When recall is asked for "`PlainNote`"
    Then the result is complete with no warnings
    And the first hit has classification "normal"

  @id:PRIVACY-019
  @clause:C2.10-19
  Scenario: privacy.localProviders replaces the default local providers
    Given the global history configuration:
      """
      {"privacy": {"localProviders": ["my-box"]}}
      """
    And the current history session gets a user message "private" with this text:
      """
      LocalNote [ds4:local-only]kept here[/ds4:local-only]
      """
    When the history host opens the current session with provider "my-box"
    And recall is asked for "`LocalNote`"
    Then the first hit has classification "local-only"
    When the model provider becomes " My-Box "
    And recall is asked for "`LocalNote`"
    Then the first hit has classification "local-only"
    When the model provider becomes "ollama"
    And recall is asked for "`LocalNote`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits

  @id:PRIVACY-020
  @clause:C2.10-29 @clause:C3.3-16 @clause:C3.3-17 @clause:C3.3-18 @clause:C3.3-19
  Scenario: A read sanitizes again for the current provider and never lowers the reference's classification
    Given the current history session gets a user message "plain" with this text:
      """
      PlainNote nothing special here
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`PlainNote`"
    Then the first hit has classification "normal"
    When the global history configuration is changed to:
      """
      {"privacy": {"defaultClassification": "internal"}}
      """
    And the history host opens the current session with provider "openai"
    And the first hit is read
    Then the read classification is "internal"
    When the global history configuration is changed to:
      """
      {"privacy": {"defaultClassification": "normal"}}
      """
    And the history host opens the current session with provider "openai"
    And the first hit is read
    Then the read classification is "internal"
    When the global history configuration is changed to:
      """
      {"privacy": {"defaultClassification": "sensitive"}}
      """
    And the history host opens the current session with provider "openai"
    And the first hit is read
    Then the result is unavailable with code "privacy-omitted"

  @id:PRIVACY-021
  @clause:C2.7-8 @clause:C2.7-10 @clause:C2.7-11 @clause:C2.7-12 @clause:C2.7-13 @clause:C2.9-25 @clause:C2.10-23
  Scenario: The excerpt is cut from the sanitized text, around the first query term
    Given the current history session gets a user message "long" with this text:
      """
      {y*1000} [ds4:internal]ExcerptMarker[/ds4:internal] {z*2000}
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`ExcerptMarker`"
    Then the first hit has classification "internal"
    And the first hit's excerpt is units 401 to 2201 of the marker-free text of "long", between ellipses

  @id:PRIVACY-022
  @clause:C2.7-15 @clause:C2.7-16 @clause:C2.7-17 @clause:C2.7-18 @clause:C2.9-17 @clause:C2.9-18 @clause:C2.9-19 @clause:C8.3-47
  Scenario Outline: Ids that are not safe are shown as opaque ids
    Given the current history session gets a user message "<entry_id>" with this text:
      """
      IdCheck an entry with an interesting id
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`IdCheck`"
    Then the first hit's entry id is "<entry_id>" shown <shown>
    And the first hit's session id is "s-privacy" shown as is
    And every hit's project id is the hash of the canonical project path
    When the first hit is read
    Then the read source's entry id is "<entry_id>" shown <shown>

    Examples:
      | case           | entry_id                                                                                                                          | shown  |
      | safe           | Safe_id-1.2:x                                                                                                                     | as is  |
      | space          | entry one                                                                                                                         | opaque |
      | slash          | a/b                                                                                                                               | opaque |
      | accent         | café                                                                                                                              | opaque |
      | length-128     | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  | as is  |
      | length-129     | aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | opaque |

  @id:PRIVACY-023
  @clause:C2.7-17 @clause:C2.10-26
  Scenario: An id that looks like a credential is opaque, and never shown raw
    Given the current history session gets a user message "ghp_FAKEfake0000000000" with this text:
      """
      IdCheck an entry whose id looks like a token
      """
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`IdCheck`"
    Then the first hit's entry id is "ghp_FAKEfake0000000000" shown opaque
    And the first hit has classification "sensitive"
    When the first hit is read
    Then the read source's entry id is "ghp_FAKEfake0000000000" shown opaque
    And no result contains "FAKEfake0000000000"

  @id:PRIVACY-024
  @clause:C2.7-16 @clause:C2.7-17 @clause:C2.9-18
  Scenario: A session id that is not safe is shown as an opaque id
    Given the current history session with these lines:
      """
      {"type":"session","version":3,"id":"session one","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      {"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"IdCheck in a session with an unsafe id.","timestamp":1767225601000}}
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`IdCheck`"
    Then the first hit's session id is "session one" shown opaque
    And the first hit's entry id is "m1" shown as is
    And no result contains "session one"

  @id:PRIVACY-025
  @clause:C3.3-27 @clause:C3.3-31 @clause:C3.6-2
  Scenario: A 201-line entry stays within a 256-token budget in recall and read (upstream case 5)
    Given the current history session gets a user message "lines" of 201 lines that each say "LastExportUtc budget line"
    When the history host opens the current session with provider "openai"
    And recall is asked with:
      """
      {"query": "`LastExportUtc`", "maxOutputTokens": 256}
      """
    Then the result with 64 tokens of room fits 256 chars-v1 tokens
    When recall is asked for "`LastExportUtc`"
    And the first hit is read with:
      """
      {"maxLines": 5, "maxOutputTokens": 256}
      """
    Then the read stops before line 6
    And the result with 64 tokens of room fits 256 chars-v1 tokens

  @id:PRIVACY-026
  @clause:C2.10-18 @clause:C2.11-4 @clause:C2.11-5
  Scenario Outline: The floor's Bearer and assignment bounds, and the two shapes D14 keeps whole (<case>)
    Given the current history session gets a user message "floor" with this text:
      """
      FloorCheck <text>
      """
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`FloorCheck`"
    Then the hit entry ids are "floor"
    And the first hit has classification "<classification>"
    And the first hit's excerpt is "FloorCheck <shown>"
    When the first hit is read
    Then the read text is "FloorCheck <shown>"

    Examples:
      | case                      | text                                      | classification | shown                                     |
      | bearer-7-chars            | Bearer abcdefg                            | normal         | Bearer abcdefg                            |
      | bearer-8-chars            | Bearer abcdefgh                           | sensitive      | Bearer [DS4 REDACTED TOKEN]               |
      | bearer-word-then-comma    | Bearer abcdefgh, then                     | sensitive      | Bearer [DS4 REDACTED TOKEN], then         |
      | bearer-prose              | the Bearer authentication scheme          | normal         | the Bearer authentication scheme          |
      | bearer-capital-prose      | a Bearer Authorization header             | normal         | a Bearer Authorization header             |
      | bearer-mixed-case-word    | Bearer abcdefgHij next                    | sensitive      | Bearer [DS4 REDACTED TOKEN] next          |
      | bearer-word-with-digit    | Bearer abcdefgh1 next                     | sensitive      | Bearer [DS4 REDACTED TOKEN] next          |
      | assignment-3-chars        | password=abc here                         | normal         | password=abc here                         |
      | assignment-4-chars        | password=abcd here                        | sensitive      | password=[DS4 REDACTED SECRET] here       |
      | placeholder               | password=<your-password-here> is an example | normal       | password=<your-password-here> is an example |
      | placeholder-then-more     | password=<abc>x here                      | sensitive      | password=[DS4 REDACTED SECRET] here       |
      | placeholder-unclosed      | password=<abcd here                       | sensitive      | password=[DS4 REDACTED SECRET] here       |

  @id:PRIVACY-027
  @clause:C2.10-34 @clause:C2.10-8 @clause:C8.1-6 @clause:C8.4-4
  Scenario Outline: The classification walk fails closed past depth 64 and past 10,000 values, not at them (<case>)
    Given the current history session gets a user message "walked" saying "WalkMarker note" <shape>
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`WalkMarker`"
    Then the hit entry ids are "walked"
    And the first hit has classification "<level>"

    Examples:
      | case         | shape                                    | level      |
      | depth-63     | with a value 63 levels below the entry   | normal     |
      | depth-64     | with a value 64 levels below the entry   | normal     |
      | depth-65     | with a value 65 levels below the entry   | local-only |
      | values-9999  | with 9999 JSON values in all             | normal     |
      | values-10000 | with 10000 JSON values in all            | normal     |
      | values-10001 | with 10001 JSON values in all            | local-only |

  @id:PRIVACY-028
  @clause:C2.10-19
  Scenario: A configured local provider name is compared trimmed and lower-cased, as the current provider's is
    Given the global history configuration:
      """
      {"privacy": {"localProviders": [" My-Box "]}}
      """
    And the current history session gets a user message "private" with this text:
      """
      LocalNote [ds4:local-only]kept here[/ds4:local-only]
      """
    When the history host opens the current session with provider "my-box"
    And recall is asked for "`LocalNote`"
    Then the first hit has classification "local-only"

  @id:PRIVACY-029
  @clause:C2.7-4 @clause:C2.10-26 @clause:C2.11-4 @clause:C3.3-16
  Scenario: The raw check reads the entry as JSON.stringify writes it: a \u00a0 escape is a space there, so a Bearer token after it is found
    Given the current history session gets these entries:
      """
      {"type":"message","id":"thought","parentId":"hello","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"send it as Bearer\u00a0abcdefgh12 quietly"},{"type":"text","text":"NbspCheck: the deploy is ready."}],"api":"openai-responses","provider":"openai","model":"fake-model","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225602000}}
      """
    When the history host opens the current session with provider "openai"
    And recall is asked for "`NbspCheck`"
    Then the result is partial with warnings "privacy-omitted"
    And there are no hits
    When the model provider becomes "ollama"
    And recall is asked for "`NbspCheck`"
    Then the hit entry ids are "thought"
    And the first hit has classification "sensitive"

  @id:PRIVACY-030
  @clause:C2.10-18 @clause:C2.11-1 @clause:C2.11-2 @clause:C2.11-3 @clause:C2.11-4
  Scenario Outline: The credential and private-key families at and past their bounds, and the order the families apply in (<case>)
    Given the current history session gets a user message "family" with this text:
      """
      FamilyCheck <text> end
      """
    When the history host opens the current session with provider "ollama"
    And recall is asked for "`FamilyCheck`"
    Then the hit entry ids are "family"
    And the first hit has classification "<classification>"
    And the first hit's excerpt is "FamilyCheck <shown> end"

    Examples:
      | case              | text                                                              | classification | shown                             |
      | sk-7-chars        | sk-abcdefg                                                        | normal         | sk-abcdefg                        |
      | sk-8-chars        | sk-abcdefgh                                                       | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | sk-ant            | sk-ant-abcdefgh                                                   | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | gh-11-chars       | ghp_abcdefghijk                                                   | normal         | ghp_abcdefghijk                   |
      | gh-12-chars       | ghp_abcdefghijkl                                                  | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | gh-oauth          | gho_abcdefghijkl                                                  | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | gh-user           | ghu_abcdefghijkl                                                  | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | gh-server         | ghs_abcdefghijkl                                                  | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | gh-refresh        | ghr_abcdefghijkl                                                  | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | gh-other-letter   | ghx_abcdefghijkl                                                  | normal         | ghx_abcdefghijkl                  |
      | akia-15           | AKIAABCDEFGHIJKLMNO                                               | normal         | AKIAABCDEFGHIJKLMNO               |
      | akia-16           | AKIAABCDEFGHIJKLMNOP                                              | sensitive      | [DS4 REDACTED CREDENTIAL]         |
      | akia-lower-case   | AKIAabcdefghijklmnop                                              | normal         | AKIAabcdefghijklmnop              |
      | pem-no-infix      | -----BEGIN PRIVATE KEY-----body-----END PRIVATE KEY-----          | sensitive      | [DS4 REDACTED PRIVATE KEY]        |
      | pem-ec            | -----BEGIN EC PRIVATE KEY-----body-----END EC PRIVATE KEY-----    | sensitive      | [DS4 REDACTED PRIVATE KEY]        |
      | pem-openssh       | -----BEGIN OPENSSH PRIVATE KEY-----body-----END OPENSSH PRIVATE KEY----- | sensitive | [DS4 REDACTED PRIVATE KEY]   |
      | pem-dsa           | -----BEGIN DSA PRIVATE KEY-----body-----END DSA PRIVATE KEY-----  | sensitive      | [DS4 REDACTED PRIVATE KEY]        |
      | pem-public        | -----BEGIN PUBLIC KEY-----body-----END PUBLIC KEY-----            | normal         | -----BEGIN PUBLIC KEY-----body-----END PUBLIC KEY----- |
      | credential-first  | Bearer sk-abcdefgh12                                              | sensitive      | Bearer [DS4 REDACTED CREDENTIAL]  |
      | key-in-pem        | -----BEGIN RSA PRIVATE KEY-----sk-abcdefgh12-----END RSA PRIVATE KEY----- | sensitive | [DS4 REDACTED PRIVATE KEY] |
