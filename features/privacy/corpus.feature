Feature: No secret of the labelled privacy corpus leaves through recall, read or status
  Spec: [decisions.md](../../docs/spec/decisions.md) [D6](../../docs/spec/decisions.md#d6-privacy), this project's D13 ([docs/decisions.md](../../docs/decisions.md)); corpus `fixtures/privacy/` (labels.json)
  The corpus is one Pi session with 174 fake secrets of 58 families, each alone in an entry
  with a unique term, in user and assistant text, tool-call arguments, tool results, bash
  output, custom messages and compaction summaries, plain, JSON-escaped, inside URLs and as
  multi-line PEM blocks, and 58 near-misses that are not secrets. A secret leaks when 8 or more
  consecutive characters of its sensitive part appear in any envelope. Every entry with a secret
  is raised to at least sensitive: a remote provider gets nothing of it, a local one gets it
  redacted. A near-miss is a false positive when its entry is raised or its text is not shown
  whole to a local provider; this counts the two shapes upstream's own families redact that D14
  keeps whole (a Bearer prose word, an angle-bracket placeholder value).

  Background:
    Given a trusted history project
    And the current history session is the privacy corpus

  @id:PRIVACY-101
  Scenario Outline: No corpus secret leaves through recall, read or status (<case>)
    When the history host opens the current session with provider "<provider>"
    And every corpus secret is recalled by its term and every hit is read
    And the history status is asked
    Then no envelope holds 8 or more consecutive characters of any corpus secret
    And every corpus secret's entry is <outcome>

    Examples:
      | case   | provider | outcome                                 |
      | remote | openai   | omitted with warning "privacy-omitted" |
      | local  | ollama   | shown as sensitive and redacted         |

  @id:PRIVACY-102
  Scenario Outline: The corpus near-misses stay whole (<case>)
    When the history host opens the current session with provider "<provider>"
    And every corpus near-miss is recalled by its term and every hit is read
    And the history status is asked
    Then at most 2% of the near-misses are false positives

    Examples:
      | case   | provider |
      | remote | openai   |
      | local  | ollama   |
