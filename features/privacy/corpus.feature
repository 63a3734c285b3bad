Feature: No secret of the labelled privacy corpus leaves through recall, read, status, rebase or egress
  Spec: [decisions.md](../../docs/spec/decisions.md) [D6](../../docs/spec/decisions.md#d6-privacy), this project's D13 ([docs/decisions.md](../../docs/decisions.md)); [contract.md](../../docs/spec/contract.md) [§6.15](../../docs/spec/contract.md#615-egress-of-the-handoff-and-of-history-results); corpus `fixtures/privacy/` (labels.json); the walk: [docs/privacy.md](../../docs/privacy.md)
  The corpus is one Pi session with 351 fake secrets of 117 families (every HTTP authorization
  scheme among them, issue 29), each alone in an entry with a unique term, in user and assistant
  text, tool-call arguments, tool results, bash output, custom messages and compaction summaries,
  plain, JSON-escaped, inside URLs and as multi-line PEM blocks, and 378 near-misses that are not
  secrets (public keys, hashes, ids, masked values, documented example keys, test fixtures,
  high-entropy values, prose). A secret leaks when 8 or more
  consecutive characters of its sensitive part (12 when all are hex digits: 8 hex digits of a
  32-hex id meet a secret's by chance) appear in any output (a format's published prefix,
  such as github_pat_, is not part of it). Every entry with a secret
  is raised to at least sensitive: a remote provider gets nothing of it, a local one gets it
  redacted. A near-miss is a false positive when its entry is raised or its text is not shown
  whole to a local provider; this counts the two shapes upstream's own families redact that D14
  keeps whole (a Bearer prose word, an angle-bracket placeholder value).

  A handoff quotes only the compaction-aware context of its source, so the corpus is rebased in
  parts, one secret-bearing entry in each: the entries in order, cut before each secret-bearing
  entry that would be the second of its part (a tool call and its result stay together) and after
  each compaction; each part has the corpus header, its entries chained in order and its
  compaction, if any, keeping the whole part (firstKeptEntryId: the part's first entry); each
  fits the default checkpointTargetTokens. Per part the dry run, the run, the recovery of its
  operation and what its target sends out (its handoff through the history host's context event
  and as the final provider payload) are walked. The near-misses are judged in a second rebase of
  the corpus with its secret entries (and the other side of their tool exchanges) left out, in
  parts of at most 40 entries, so that no secret raises the handoff they are in (the first
  rebase leaves the near-miss entries out); a near-miss is whole in a handoff as it is or
  JSON-escaped once or twice, as the handoff quotes its context. Egress re-checks history results and handoffs
  only (a plain message goes out as it is, §6.15 step 6), so every corpus entry's text goes out
  in both.

  Background:
    Given a trusted history project
    And the current history session is the privacy corpus

  @id:PRIVACY-101
  @clause:C2.10-26 @clause:C2.10-27 @clause:C2.11-1 @clause:D6-1
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
  @clause:C2.11-1 @clause:D6-1
  Scenario Outline: The corpus near-misses stay whole (<case>)
    When the history host opens the current session with provider "<provider>"
    And every corpus near-miss is recalled by its term and every hit is read
    And the history status is asked
    Then at most 2% of the near-misses are false positives

    Examples:
      | case   | provider |
      | remote | openai   |
      | local  | ollama   |

  @id:PRIVACY-103
  @clause:C2.11-1 @clause:C6.15-5 @clause:D6-1
  Scenario Outline: No corpus secret leaves through a rebase of the corpus: preview, run, recovery and the target's context (<case>)
    When the corpus is rebased in parts and each target's context goes to provider "<provider>"
    Then every corpus secret's entry passed through a rebase handoff
    And no rebase output holds 8 or more consecutive characters of any corpus secret
    And every rebase handoff of corpus secrets goes out <outcome>
    When the corpus without its secret entries is rebased in parts and each target's context goes to provider "<provider>"
    Then every corpus near-miss's entry passed through a rebase handoff
    And no rebase output holds 8 or more consecutive characters of any corpus secret
    And at most 2% of the near-misses are false positives in the rebase target context

    Examples:
      | case   | provider | outcome                   |
      | remote | openai   | as the omission sentinel  |
      | local  | ollama   | redacted                  |

  @id:PRIVACY-104
  @clause:C2.11-1 @clause:C6.15-5 @clause:C6.15-13
  Scenario Outline: No corpus secret leaves through the egress sanitizer, and the near-misses stay whole (<case>)
    When every corpus entry's text goes out to provider "<provider>" as a history result excerpt and as a rebase handoff
    Then no egress output holds 8 or more consecutive characters of any corpus secret
    And at most 2% of the near-misses are false positives at egress

    Examples:
      | case   | provider |
      | remote | openai   |
      | local  | ollama   |
