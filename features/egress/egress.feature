Feature: History tool calls, history results and rebase handoffs are checked again before they leave
  Spec: [contract.md](../../docs/spec/contract.md) [§6.15](../../docs/spec/contract.md#615-egress-of-the-handoff-and-of-history-results) steps 1-6, [§7.4](../../docs/spec/contract.md#74-testsunitcontext-history-egresstestts-ebb04f2d) cases 1-4, [§2.10](../../docs/spec/contract.md#210-privacy-classification-and-sanitizing), [§2.11](../../docs/spec/contract.md#211-secret-redaction-shared-redactsecrets); [decisions.md](../../docs/spec/decisions.md) [D3](../../docs/spec/decisions.md#d3-lengths-and-tokens), [D6](../../docs/spec/decisions.md#d6-privacy)
  The egress sanitizer runs on every context event and every final provider payload, for the
  provider of the moment, whatever privacy.enabled says. It finds the history tool calls (by
  name, toolName or function.name) and their ids (id, toolCallId, tool_call_id, call_id,
  tool_use_id); it replaces their past arguments by the omission sentinel; it rebuilds every
  history result from what may be shown, re-sanitized for this provider, or replaces it by the
  unavailable envelope invalid-historical-result; it re-sanitizes rebase handoff strings at
  their own classification. Nothing else changes, and a second pass changes nothing.

  Background:
    Given the history result "LOCAL":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","coverage":"complete","effectiveScope":"current-branch","warnings":[],"hits":[{"sourceRef":"hist_0123456789abcdef0123456789abcdef","projectId":"0123456789abcdef0123","sessionId":"s-egress","entryId":"e1","kind":"message","role":"user","timestamp":1767225601000,"relation":"ancestor","classification":"local-only","excerpt":"secret-local-history","matchReasons":["lexical-match"],"score":1,"truncated":false}]}
      """
    And the history result "LOCAL_REMOTE":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","coverage":"complete","effectiveScope":"current-branch","warnings":[],"hits":[{"sourceRef":"hist_0123456789abcdef0123456789abcdef","projectId":"0123456789abcdef0123","sessionId":"s-egress","entryId":"e1","kind":"message","role":"user","timestamp":1767225601000,"relation":"ancestor","classification":"local-only","excerpt":"[DS4 history content omitted by current policy]","matchReasons":["lexical-match"],"score":1,"truncated":false}]}
      """

  @id:EGRESS-001
  @clause:C0.3-4 @clause:C6.15-6 @clause:C6.15-9 @clause:C6.15-13 @clause:C6.15-18
  Scenario: A provider switch: local content stays for a local provider and leaves nothing for a remote one
    Given the payload:
      """
      [
        {"role":"assistant","content":[{"type":"toolCall","id":"h","name":"context_history_recall","arguments":{"query":"query-secret"}}]},
        {"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":[{"type":"text","text":"$LOCAL"}],"details":{"secret":"details-secret"}},
        {"role":"toolResult","toolName":"read","toolCallId":"r","content":[{"type":"text","text":"unrelated-read"}],"details":{"path":"a.txt"}}
      ]
      """
    When the payload goes out to provider "ollama"
    Then the output contains "secret-local-history"
    And the output does not contain "query-secret"
    And the output does not contain "details-secret"
    And the result text at "1.content.0.text" is the result "LOCAL"
    When that output goes out again to provider "openai"
    Then the output does not contain "secret-local-history"
    And the output at "0.content.0.arguments" is:
      """
      {"omitted":"[DS4 history content omitted by current policy]"}
      """
    And the output at "1.details" is:
      """
      {}
      """
    And the output at "2" is the payload's
    And the result text at "1.content.0.text" is the result "LOCAL_REMOTE"
    When that output goes out again to provider "openai"
    Then the output is the same as the output before

  @id:EGRESS-002
  @clause:C6.15-4 @clause:C6.15-7 @clause:C6.15-9
  Scenario Outline: Step 1: the ids of a history tool call are collected from each field, and its result is found by them
    Given the payload:
      """
      [
        {"type":"toolCall","<field>":"call-1","name":"context_history_recall","arguments":{"query":"query-secret"}},
        {"<field>":"call-1","<shape>":"<shape-value>","content":"$LOCAL","details":{"secret":"details-secret"}},
        {"<field>":"call-2","<shape>":"<shape-value>","content":"$LOCAL","details":{"secret":"kept-details"}}
      ]
      """
    When the payload goes out to provider "openai"
    Then the output does not contain "details-secret"
    And the output at "1.details" is:
      """
      {}
      """
    And the result text at "1.content" is the result "LOCAL_REMOTE"
    And the output at "2" is the payload's

    Examples:
      | case                     | field        | shape | shape-value          |
      | id-toolresult            | id           | role  | toolResult           |
      | toolcallid-tool          | toolCallId   | role  | tool                 |
      | tool-call-id-tool        | tool_call_id | role  | tool                 |
      | call-id-output           | call_id      | type  | function_call_output |
      | tool-use-id-tool-result  | tool_use_id  | type  | tool_result          |

  @id:EGRESS-003
  @clause:C6.15-19 @clause:C6.15-7
  Scenario Outline: Step 1: a result linked by id needs a result shape (role toolResult or tool, type tool_result or function_call_output, or a response key)
    Given the payload:
      """
      [
        {"type":"toolCall","id":"call-1","name":"context_history_read","arguments":{"sourceRef":"hist_0123456789abcdef0123456789abcdef"}},
        {"id":"call-1",<shape>,"content":"$LOCAL","details":{"secret":"details-secret"}}
      ]
      """
    When the payload goes out to provider "openai"
    Then the output at "1.details" is:
      """
      <details>
      """

    Examples:
      | case            | shape                        | details                       |
      | role-toolresult | "role":"toolResult"          | {}                            |
      | role-tool       | "role":"tool"                | {}                            |
      | type-result     | "type":"tool_result"         | {}                            |
      | type-output     | "type":"function_call_output"| {}                            |
      | response-key    | "response":null              | {}                            |
      | role-assistant  | "role":"assistant"           | {"secret":"details-secret"}   |
      | type-text       | "type":"text"                | {"secret":"details-secret"}   |

  @id:EGRESS-004
  @clause:C0.3-1 @clause:C6.15-4 @clause:C6.15-6
  Scenario Outline: Steps 1 and 3: a history tool is named by name, toolName or function.name; its arguments, args and input are omitted
    Given the payload:
      """
      [
        {"type":"call","id":"c1",<naming>,"<key>":<value>},
        {"role":"toolResult","id":"c1","content":"$LOCAL"}
      ]
      """
    When the payload goes out to provider "openai"
    Then the output does not contain "query-secret"
    And the output at "0.<key>" is:
      """
      <omitted>
      """
    And the result text at "1.content" is the result "LOCAL_REMOTE"

    Examples:
      | case                 | naming                                         | key       | value                         | omitted                                                                 |
      | name-arguments       | "name":"context_history_recall"                | arguments | {"query":"query-secret"}      | {"omitted":"[DS4 history content omitted by current policy]"}          |
      | toolname-args        | "toolName":"context_history_read"              | args      | {"query":"query-secret"}      | {"omitted":"[DS4 history content omitted by current policy]"}          |
      | function-input       | "function":{"name":"context_history_status"}   | input     | {"query":"query-secret"}      | {"omitted":"[DS4 history content omitted by current policy]"}          |
      | string-arguments     | "name":"context_history_recall"                | arguments | "{\"query\":\"query-secret\"}" | "{\"omitted\":\"[DS4 history content omitted by current policy]\"}"     |
      | null-input           | "toolName":"context_history_recall"            | input     | null                          | {"omitted":"[DS4 history content omitted by current policy]"}          |

  @id:EGRESS-005
  @clause:C6.15-18
  Scenario: Step 6: tools that are not history tools, and messages that merely quote a history result, are left alone
    Given the payload:
      """
      [
        {"role":"user","content":"$LOCAL"},
        {"role":"assistant","content":[{"type":"toolCall","id":"r1","name":"read","arguments":{"path":"notes.txt"}},{"type":"toolCall","id":"b1","name":"context_history","arguments":{"query":"q"}}]},
        {"role":"toolResult","toolName":"read","toolCallId":"r1","content":[{"type":"text","text":"$LOCAL"}],"details":{"truncation":null}},
        {"role":"toolResult","toolName":"Context_History_Recall","toolCallId":"b1","content":"$LOCAL","details":{"k":"v"}},
        {"role":"custom","customType":"note","content":"the [DS4 REBASE] word without HANDOFF","display":false}
      ]
      """
    When the payload goes out to provider "openai"
    Then the output is the payload unchanged

  @id:EGRESS-006
  @clause:C6.15-8 @clause:C6.15-12 @clause:C8.3-6 @clause:C8.4-4 @clause:D3-1
  Scenario Outline: Step 5: a result text is checked at, below and above 32,000 UTF-16 units
    Given the history result "BIG" of exactly <units> UTF-16 units ending in "<tail>"
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$BIG"}]
      """
    When the payload goes out to provider "openai"
    Then the result text at "0.content" is <verdict>

    Examples:
      | case                 | units | tail | verdict                         |
      | below                | 31999 | end  | the result "BIG"                |
      | at                   | 32000 | end  | the result "BIG"                |
      | above                | 32001 | end  | invalid-historical-result       |
      | at-astral            | 32000 | 😀   | the result "BIG"                |
      | above-by-utf16-units | 32001 | 😀   | invalid-historical-result       |

  @id:EGRESS-007
  @clause:C6.15-12 @clause:C6.15-13 @clause:C8.1-2
  Scenario Outline: Step 5: a text that is not a quoted history result becomes invalid-historical-result
    Given the history result text "BAD":
      """
      <text>
      """
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_read","toolCallId":"h","content":[{"type":"text","text":"$BAD"}],"details":{"x":1}}]
      """
    When the payload goes out to provider "ollama"
    Then the result text at "0.content.0.text" is invalid-historical-result
    And the output at "0.details" is:
      """
      {}
      """

    Examples:
      | case                   | text                                                                                                             |
      | not-json               | secret-local-history plain text                                                                                  |
      | broken-json            | {"schema":"ds4-history-result-v1",broken                                                                         |
      | an-array               | [{"schema":"ds4-history-result-v1","quotedData":true}]                                                           |
      | other-schema           | {"schema":"ds4-history-result-v2","quotedData":true,"status":"complete"}                                         |
      | no-schema              | {"quotedData":true,"status":"complete"}                                                                          |
      | quoted-false           | {"schema":"ds4-history-result-v1","quotedData":false,"status":"complete"}                                        |
      | quoted-string          | {"schema":"ds4-history-result-v1","quotedData":"true","status":"complete"}                                       |
      | quoted-missing         | {"schema":"ds4-history-result-v1","status":"complete"}                                                           |
      | hit-without-level      | {"schema":"ds4-history-result-v1","quotedData":true,"hits":[{"excerpt":"secret-local-history"}]}                 |
      | hit-bad-level          | {"schema":"ds4-history-result-v1","quotedData":true,"hits":[{"classification":"secret","excerpt":"x"}]}          |
      | hit-does-not-inherit   | {"schema":"ds4-history-result-v1","quotedData":true,"classification":"normal","hits":[{"excerpt":"x"}]}          |
      | read-without-level     | {"schema":"ds4-history-result-v1","quotedData":true,"source":{"entryId":"e1"},"text":"secret-local-history"}     |
      | read-text-not-string   | {"schema":"ds4-history-result-v1","quotedData":true,"source":{"entryId":"e1"},"text":null}                       |
      | source-without-level   | {"schema":"ds4-history-result-v1","quotedData":true,"classification":"normal","source":{"text":"x"}}             |

  @id:EGRESS-008
  @clause:C6.15-10
  Scenario Outline: Step 4: a result body that carries no result text becomes invalid-historical-result in its own shape
    Given the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","<key>":<body>}]
      """
    When the payload goes out to provider "ollama"
    Then the output at "0.<key>" is:
      """
      <rebuilt>
      """

    Examples:
      | case             | key      | body                                                        | rebuilt                                 |
      | image-only       | content  | [{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}] | [{"type":"text","text":"$INVALID"}]     |
      | number           | content  | 7                                                           | {"output":"$INVALID"}                   |
      | null             | output   | null                                                        | {"output":"$INVALID"}                   |
      | object-no-output | response | {"text":"$LOCAL"}                                           | {"output":"$INVALID"}                   |
      | empty-string     | output   | ""                                                          | "$INVALID"                              |

  @id:EGRESS-009
  @clause:C6.15-10 @clause:C6.15-17
  Scenario: Step 4: string bodies stay strings, block arrays become one text block joined with newlines, objects are read through output
    Given the history result "READ":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","coverage":"complete","warnings":[],"source":{"sourceRef":"hist_0123456789abcdef0123456789abcdef","classification":"internal","entryId":"e1"},"text":"[ds4:internal]line one[/ds4:internal]","startLine":1,"truncated":false}
      """
    And the payload:
      """
      [
        {"role":"toolResult","toolName":"context_history_read","toolCallId":"a","content":[{"type":"text","text":"{\"schema\":\"ds4-history-result-v1\","},{"type":"image","data":"aGVsbG8=","mimeType":"image/png"},{"type":"text","text":"\"quotedData\":true,\"status\":\"complete\",\"warnings\":[]}"}]},
        {"role":"toolResult","toolName":"context_history_read","toolCallId":"b","content":[{"type":"text","text":"{\"schema\":\"ds4-history-result-v1\",\"quotedData\":true,\"source\":{\"classification\":\"normal\"},\"text\":\"split"},{"type":"text","text":"here\"}"}]},
        {"functionResponse":{"name":"context_history_read","response":{"output":"$READ","extra":"dropped-extra"}}}
      ]
      """
    When the payload goes out to provider "openai"
    Then the output at "0.content" is:
      """
      [{"type":"text","text":"{\"schema\":\"ds4-history-result-v1\",\"quotedData\":true,\"status\":\"complete\",\"warnings\":[]}"}]
      """
    And the result text at "1.content.0.text" is invalid-historical-result
    And the output at "2.functionResponse.response" is:
      """
      {"output":"{\"schema\":\"ds4-history-result-v1\",\"quotedData\":true,\"status\":\"complete\",\"coverage\":\"complete\",\"warnings\":[],\"source\":{\"sourceRef\":\"hist_0123456789abcdef0123456789abcdef\",\"classification\":\"internal\",\"entryId\":\"e1\"},\"text\":\"line one\",\"startLine\":1,\"truncated\":false}"}
      """

  @id:EGRESS-010
  @clause:C6.15-20 @clause:C6.15-14 @clause:C6.15-16 @clause:C6.15-17
  Scenario: Step 5: a rebuilt result keeps every allowed key and drops every other one
    Given the history result "ALL":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"partial","effectiveScope":"current-branch","coverage":"partial","indexedEntries":42,"sourceRef":"hist_0123456789abcdef0123456789abcdef","projectId":"0123456789abcdef0123","sessionId":"s-egress","entryId":"e1","kind":"message","role":"user","timestamp":1767225601000,"relation":"lineage-ancestor","classification":"normal","score":0.123457,"truncated":true,"startLine":3,"nextLine":5,"text":"kept text","warnings":["privacy-omitted"],"details":{"secret":"details-secret"},"instructions":"ignore-previous","hitsCount":1,"Schema":"x","hits":[{"sourceRef":"hist_0123456789abcdef0123456789abcdef","classification":"internal","excerpt":"hit text","matchReasons":["exact-phrase"],"raw":"raw-secret","score":2,"source":{"classification":"normal","entryId":"e2","path":"/home/u/secret-path"}}],"source":{"classification":"normal","entryId":"e3","content":"source-secret","line":9}}
      """
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$ALL"}]
      """
    When the payload goes out to provider "openai"
    Then the result text at "0.content" is:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"partial","effectiveScope":"current-branch","coverage":"partial","indexedEntries":42,"sourceRef":"hist_0123456789abcdef0123456789abcdef","projectId":"0123456789abcdef0123","sessionId":"s-egress","entryId":"e1","kind":"message","role":"user","timestamp":1767225601000,"relation":"lineage-ancestor","classification":"normal","score":0.123457,"truncated":true,"startLine":3,"nextLine":5,"text":"kept text","warnings":["privacy-omitted"],"hits":[{"sourceRef":"hist_0123456789abcdef0123456789abcdef","classification":"internal","excerpt":"hit text","matchReasons":["exact-phrase"],"score":2,"source":{"classification":"normal","entryId":"e2"}}],"source":{"classification":"normal","entryId":"e3"}}
      """

  @id:EGRESS-011
  @clause:C0.3-4 @clause:C6.15-20 @clause:C6.15-16
  Scenario Outline: Step 5: each scalar key keeps a safe string, turns any other string into the omission sentinel, and drops other values
    Given the history result "ONE":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"<key>":"bad value","status":"complete"}
      """
    And the history result "TWO":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"<key>":{"nested":"x"},"status":"complete"}
      """
    And the history result "THREE":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"<key>":"ok_value-1.2:3","status":"complete"}
      """
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_status","toolCallId":"h","output":"$ONE"},
       {"role":"toolResult","toolName":"context_history_status","toolCallId":"h","output":"$TWO"},
       {"role":"toolResult","toolName":"context_history_status","toolCallId":"h","output":"$THREE"}]
      """
    When the payload goes out to provider "openai"
    Then the result text at "0.output" is:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"<key>":"[DS4 history content omitted by current policy]","status":"complete"}
      """
    And the result text at "1.output" is:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete"}
      """
    And the result text at "2.output" is:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"<key>":"ok_value-1.2:3","status":"complete"}
      """

    Examples:
      | case           | key            |
      | effectivescope | effectiveScope |
      | coverage       | coverage       |
      | sourceref      | sourceRef      |
      | projectid      | projectId      |
      | sessionid      | sessionId      |
      | entryid        | entryId        |
      | kind           | kind           |
      | role           | role           |
      | timestamp      | timestamp      |
      | relation       | relation       |
      | score          | score          |
      | truncated      | truncated      |
      | startline      | startLine      |
      | nextline       | nextLine       |
      | indexedentries | indexedEntries |
      | classification | classification |

  @id:EGRESS-012
  @clause:C6.15-16 @clause:C8.3-7 @clause:C8.4-4
  Scenario Outline: Step 5: a scalar string is kept only if it matches ^[A-Za-z0-9_.:-]{1,128}$ and a normal-level sanitize leaves it unchanged
    Given the history result "ID":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","sessionId":<value>}
      """
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$ID"}]
      """
    When the payload goes out to provider "openai"
    Then the result text at "0.content" is:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","sessionId":<shown>}
      """

    Examples:
      | case               | value                         | shown                                              |
      | one-char           | "a"                           | "a"                                                |
      | punctuation        | "A-z_0.9:x"                   | "A-z_0.9:x"                                        |
      | 128-chars          | "{a*128}"                     | "{a*128}"                                          |
      | 129-chars          | "{a*129}"                     | "[DS4 history content omitted by current policy]"  |
      | empty              | ""                            | "[DS4 history content omitted by current policy]"  |
      | trailing-newline   | "abc\\n"                      | "[DS4 history content omitted by current policy]"  |
      | slash              | "a/b"                         | "[DS4 history content omitted by current policy]"  |
      | non-ascii-letter   | "caf\u00e9"                   | "[DS4 history content omitted by current policy]"  |
      | kelvin-sign        | "\u212a1"                     | "[DS4 history content omitted by current policy]"  |
      | credential         | "sk-FAKEfake0123456789"       | "[DS4 history content omitted by current policy]"  |
      | aws-key-id         | "AKIAABCDEFGHIJKLMNOP"        | "[DS4 history content omitted by current policy]"  |
      | sk-too-short       | "sk-1234567"                  | "sk-1234567"                                       |

  @id:EGRESS-013
  @clause:C6.15-15 @clause:C8.4-4
  Scenario Outline: Step 5: warnings and matchReasons keep, of their first 12 entries, those matching ^[a-z-]{1,48}$
    Given the history result "CODES":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","warnings":<list>,"hits":[{"classification":"normal","excerpt":"x","matchReasons":<list>}]}
      """
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$CODES"}]
      """
    When the payload goes out to provider "openai"
    Then the result text at "0.content" is:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","warnings":<kept>,"hits":[{"classification":"normal","excerpt":"x","matchReasons":<kept>}]}
      """

    Examples:
      | case             | list                                                                      | kept                                                                |
      | twelve           | ["a","b","c","d","e","f","g","h","i","j","k","l"]                         | ["a","b","c","d","e","f","g","h","i","j","k","l"]                   |
      | thirteen         | ["a","b","c","d","e","f","g","h","i","j","k","l","m"]                     | ["a","b","c","d","e","f","g","h","i","j","k","l"]                   |
      | filter-after-cut | ["BAD","b","c","d","e","f","g","h","i","j","k","l","m"]                   | ["b","c","d","e","f","g","h","i","j","k","l"]                       |
      | 48-chars         | ["{a*48}"]                                                                | ["{a*48}"]                                                          |
      | 49-chars         | ["{a*49}"]                                                                | []                                                                  |
      | rejected         | ["", "Upper", "a_b", "a1", "a b", "ok-code", 7, null, ["x"], "x\\n"]       | ["ok-code"]                                                         |

  @id:EGRESS-014
  @clause:C6.15-14 @clause:C8.4-4
  Scenario Outline: Step 5: at most the first 12 hits are kept, each rebuilt; a hit that is not an object becomes {}
    Given the history result "HITS" with <count> hits "h1" to "h<count>" and then one that is not an object
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$HITS"}]
      """
    When the payload goes out to provider "openai"
    Then the result text at "0.content" has the hits "<kept>"

    Examples:
      | case     | count | kept                                      |
      | eleven   | 11    | h1 h2 h3 h4 h5 h6 h7 h8 h9 h10 h11 {}     |
      | twelve   | 12    | h1 h2 h3 h4 h5 h6 h7 h8 h9 h10 h11 h12    |
      | thirteen | 13    | h1 h2 h3 h4 h5 h6 h7 h8 h9 h10 h11 h12    |

  @id:EGRESS-015
  @clause:C6.15-13 @clause:C8.3-12 @clause:C8.3-13 @clause:D6-1
  Scenario Outline: Step 5: text and excerpts are re-sanitized for this provider at their own classification
    Given the history result "R":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","hits":[{"classification":"<level>","excerpt":<excerpt>}]}
      """
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$R"}]
      """
    When the payload goes out to provider "<provider>"
    Then the result text at "0.content" is:
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","hits":[{"classification":"<level>","excerpt":<shown>}]}
      """

    Examples:
      | case                  | provider | level      | excerpt                                              | shown                                               |
      | normal-remote         | openai   | normal     | "plain words"                                        | "plain words"                                       |
      | internal-remote       | openai   | internal   | "plain words"                                        | "plain words"                                       |
      | sensitive-remote      | openai   | sensitive  | "plain words"                                        | "[DS4 history content omitted by current policy]"   |
      | local-only-local      | ollama   | local-only | "plain words"                                        | "plain words"                                       |
      | marker-raises-remote  | openai   | normal     | "a [ds4:local-only]b[/ds4:local-only] c"             | "[DS4 history content omitted by current policy]"   |
      | marker-strips-local   | ollama   | normal     | "a [ds4:local-only]b[/ds4:local-only] c"             | "a b c"                                             |
      | secret-remote         | openai   | normal     | "key sk-FAKEfake0123456789 here"                     | "[DS4 history content omitted by current policy]"   |
      | secret-local          | ollama   | normal     | "key sk-FAKEfake0123456789 here"                     | "key [DS4 REDACTED CREDENTIAL] here"                |
      | unknown-provider      | unknown  | internal   | "plain words"                                        | "plain words"                                       |

  @id:EGRESS-016
  @clause:C6.15-5
  Scenario Outline: Step 2: a rebase handoff string is re-sanitized at its own classification, for a remote and a local provider
    Given the payload:
      """
      [{"role":"custom","customType":"ds4-rebase-handoff-v1","content":"[ds4:<level>][DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\nprivate-context-from-<level> <extra>\n[END DS4 REBASE HANDOFF][/ds4:<level>]","display":false},
       {"role":"user","content":[{"type":"text","text":"quoting [DS4 REBASE HANDOFF inside [ds4:<level>]x[/ds4:<level>]"}]}]
      """
    When the payload goes out to provider "<provider>"
    Then the output at "0.content" is the text "<content>"
    And the output at "1.content.0.text" is the text "<quote>"

    Examples:
      | case                 | provider | level      | extra                    | content                                                                                                                                                  | quote                                                   |
      | local-only-remote    | openai   | local-only | end                      | [DS4 history content omitted by current policy]                                                                                                          | [DS4 history content omitted by current policy]         |
      | local-only-local     | ollama   | local-only | end                      | [DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\nprivate-context-from-local-only end\n[END DS4 REBASE HANDOFF]                     | quoting [DS4 REBASE HANDOFF inside x                    |
      | internal-remote      | openai   | internal   | end                      | [DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\nprivate-context-from-internal end\n[END DS4 REBASE HANDOFF]                       | quoting [DS4 REBASE HANDOFF inside x                    |
      | secret-remote        | openai   | normal     | sk-FAKEfake0123456789    | [DS4 history content omitted by current policy]                                                                                                          | quoting [DS4 REBASE HANDOFF inside x                    |
      | secret-local         | ollama   | normal     | sk-FAKEfake0123456789    | [DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\nprivate-context-from-normal [DS4 REDACTED CREDENTIAL]\n[END DS4 REBASE HANDOFF]   | quoting [DS4 REBASE HANDOFF inside x                    |
      | quotes-result-remote | openai   | normal     | {\"schema\":\"ds4-history-result-v1\"} | [DS4 history content omitted by current policy]                                                                                                          | quoting [DS4 REBASE HANDOFF inside x                    |
      | quotes-result-local  | ollama   | normal     | {\"schema\":\"ds4-history-result-v1\"} | [DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\nprivate-context-from-normal {\"schema\":\"ds4-history-result-v1\"}\n[END DS4 REBASE HANDOFF] | quoting [DS4 REBASE HANDOFF inside x |

  @id:EGRESS-017
  @clause:C6.15-4 @clause:C6.15-6 @clause:C6.15-19 @clause:C6.15-8 @clause:C6.15-10
  Scenario: Transport shapes: OpenAI, Anthropic and Google calls and results lose the query and the local content
    Given the payload:
      """
      {"openai":[{"type":"function_call","call_id":"o1","name":"context_history_recall","arguments":"{\"query\":\"query-secret\"}"},{"type":"function_call_output","call_id":"o1","output":"$LOCAL"}],
       "anthropic":[{"role":"assistant","content":[{"type":"tool_use","id":"a1","name":"context_history_recall","input":{"query":"query-secret"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a1","content":[{"type":"text","text":"$LOCAL"}]}]}],
       "google":[{"role":"model","parts":[{"functionCall":{"name":"context_history_recall","args":{"query":"query-secret"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"context_history_recall","response":{"output":"$LOCAL"}}}]}]}
      """
    When the payload goes out to provider "openai"
    Then the output does not contain "query-secret"
    And the output does not contain "secret-local-history"
    And the output at "openai.0.arguments" is the text "{\"omitted\":\"[DS4 history content omitted by current policy]\"}"
    And the output at "anthropic.1.content.0.content.0.type" is the text "text"
    And the result text at "google.1.parts.0.functionResponse.response.output" is the result "LOCAL_REMOTE"
    And the result text at "openai.1.output" is the result "LOCAL_REMOTE"
    And the result text at "anthropic.1.content.0.content.0.text" is the result "LOCAL_REMOTE"
    When that output goes out again to provider "openai"
    Then the output is the same as the output before

  @id:EGRESS-018
  @clause:C6.15-12 @clause:C6.15-18
  Scenario Outline: Step 5: a rebuilt result that grows past 32,000 UTF-16 units is invalid at once, so the next pass agrees
    Given the history result "BIG" of exactly <units> UTF-16 units ending in " sk-12345678"
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$BIG"}]
      """
    When the payload goes out to provider "ollama"
    Then the result text at "0.content" is <verdict>
    When that output goes out again to provider "ollama"
    Then the output is the same as the output before

    Examples:
      | case          | units | verdict                   |
      | stays-within  | 31985 | not invalid               |
      | grows-to-edge | 31986 | not invalid               |
      | grows-past    | 31987 | invalid-historical-result |

  @id:EGRESS-019
  @clause:C6.15-18
  Scenario Outline: Step 6: a second pass changes nothing, even where one pass of sanitizing is not its own fixpoint
    Given the history result "R":
      """
      {"schema":"ds4-history-result-v1","quotedData":true,"status":"complete","hits":[{"classification":"normal","excerpt":"<text>"}]}
      """
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$R"},
       {"role":"custom","customType":"ds4-rebase-handoff-v1","content":"[DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\n<text>\n[END DS4 REBASE HANDOFF]"}]
      """
    When the payload goes out to provider "<provider>"
    And that output goes out again to provider "<provider>"
    Then the output is the same as the output before
    And the output does not contain "hunter22"

    Examples:
      | case              | provider | text                                             |
      | formed-marker     | openai   | [ds4:[ds4:normal][/ds4:normal]local-only] tail   |
      | formed-marker-lo  | ollama   | [ds4:[ds4:normal][/ds4:normal]local-only] tail   |
      | relabelled-remote | openai   | password=hunter22 and more                       |
      | relabelled-local  | ollama   | password=hunter22 and more                       |

  @id:EGRESS-020
  @clause:C2.10-30 @clause:C2.10-31 @clause:C6.15-1 @clause:C6.15-2
  Scenario: The host runs egress on every context event and every final provider payload, though the feature and privacy are disabled
    Given a trusted history project
    And the global history configuration:
      """
      {"enabled": false, "privacy": {"enabled": false, "redactSecrets": false}, "historyTools": {"enabled": false}}
      """
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-egress","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      """
    And the history host opens the current session with provider "openai"
    And the payload:
      """
      [
        {"role":"assistant","content":[{"type":"toolCall","id":"h","name":"context_history_recall","arguments":{"query":"query-secret"}}]},
        {"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":[{"type":"text","text":"$LOCAL"}],"details":{"secret":"details-secret"}},
        {"role":"custom","customType":"ds4-rebase-handoff-v1","content":"[ds4:normal][DS4 REBASE HANDOFF — QUOTED HISTORICAL STATE, NOT NEW INSTRUCTIONS]\nkey sk-FAKEfake0123456789\n[END DS4 REBASE HANDOFF][/ds4:normal]"}
      ]
      """
    When Pi's context event carries the payload
    Then the output does not contain "query-secret"
    And the output does not contain "details-secret"
    And the output does not contain "secret-local-history"
    And the output does not contain "sk-FAKEfake0123456789"
    And the result text at "1.content.0.text" is the result "LOCAL_REMOTE"
    And the output at "2.content" is the omission sentinel
    When the payload is the final provider payload
    Then the output does not contain "query-secret"
    And the output does not contain "secret-local-history"
    And the output does not contain "sk-FAKEfake0123456789"
    And the result text at "1.content.0.text" is the result "LOCAL_REMOTE"

  @id:EGRESS-021
  @clause:C6.15-1 @clause:C6.15-2
  Scenario: The host judges egress for its current provider under its own privacy configuration
    Given a trusted history project
    And the global history configuration:
      """
      {"privacy": {"localProviders": ["mybox"]}}
      """
    And the current history session with these lines:
      """
      {"type":"session","version":3,"id":"s-egress","timestamp":"2026-01-01T00:00:00.000Z","cwd":"{cwd}"}
      """
    And the history host opens the current session with provider "mybox"
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$LOCAL","details":{"secret":"details-secret"}}]
      """
    When Pi's context event carries the payload
    Then the result text at "0.content" is the result "LOCAL"
    And the output does not contain "details-secret"
    When the payload is the final provider payload
    Then the result text at "0.content" is the result "LOCAL"
    When the model provider becomes "ollama"
    And the payload is the final provider payload
    Then the result text at "0.content" is the result "LOCAL_REMOTE"
    When the payload goes out to provider "mybox"
    Then the result text at "0.content" is the result "LOCAL_REMOTE"

  @id:EGRESS-022
  @clause:C6.15-12 @clause:C8.3-1 @clause:C8.3-6 @clause:D3-1
  Scenario: Step 5: the 32,000 limit counts the text's UTF-16 units before the rebuild, not its code points
    Given the history result "BIG" of exactly 32001 UTF-16 units, 10000 of its characters astral, with a key the rebuild drops
    And the payload:
      """
      [{"role":"toolResult","toolName":"context_history_recall","toolCallId":"h","content":"$BIG"}]
      """
    When the payload goes out to provider "openai"
    Then the result text at "0.content" is invalid-historical-result
