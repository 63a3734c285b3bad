Feature: Primitives with one owner each
  Spec: issue "Foundation" deliverable 6; [decisions.md](../../docs/spec/decisions.md) [D2](../../docs/spec/decisions.md#d2-json-bytes), [D3](../../docs/spec/decisions.md#d3-lengths-and-tokens); [contract.md](../../docs/spec/contract.md) [§0.2](../../docs/spec/contract.md#02-conventions-used-everywhere-in-the-upstream); [pi-session-model.md](../../docs/spec/pi-session-model.md) [§1.1](../../docs/spec/pi-session-model.md#11-directory-layout-and-file-names), [§1.2](../../docs/spec/pi-session-model.md#12-bytes-on-disk)
  JSON bytes as JavaScript's JSON.stringify writes them, lengths in UTF-16 code units, chars-v1
  tokens, canonical paths and Pi's session-folder name of a cwd.

  @id:PRIM-001
  @clause:C0.2-3 @clause:C8.3-28 @clause:D2-1 @clause:P1.2-2
  Scenario Outline: JSON is written exactly as JSON.stringify writes it
    When the JSON text <input> is parsed and serialized again
    Then the serialized text is <output>

    Examples:
      | case             | input                                   | output                          |
      | compact          | { "a" : [ 1 , 2 ] }                     | {"a":[1,2]}                     |
      | integral-float   | {"n":1.0,"m":-0.0}                      | {"n":1,"m":0}                   |
      | small-exponent   | [1e-7,0.000001,1.5E-10]                 | [1e-7,0.000001,1.5e-10]         |
      | large-exponent   | [1e21,1e20,123456789012345680000]       | [1e+21,100000000000000000000,123456789012345680000] |
      | huge-integer     | [9007199254740993]                      | [9007199254740992]              |
      | non-ascii-raw    | ["h\u00e9llo \ud83d\ude00"]             | ["héllo 😀"]                    |
      | lone-surrogate   | ["\ud800x"]                             | ["\ud800x"]                     |
      | control-escapes  | ["\u0001\b\t\u001f"]                    | ["\u0001\b\t\u001f"]          |
      | slash-not-escaped| ["a/b","<\/script>"]                   | ["a/b","</script>"]             |
      | index-keys-first | {"b":1,"10":2,"2":3,"a":4}              | {"2":3,"10":2,"b":1,"a":4}      |
      | duplicate-key    | {"a":1,"b":2,"a":3}                     | {"a":3,"b":2}                   |
      | form-feed        | ["\f\f"]                                | ["\f\f"]                        |
      | nul              | ["\u0000"]                              | ["\u0000"]                      |
      | escaped-controls | ["\u0008\u000c\u000d\u0009"]            | ["\b\f\r\t"]                     |
      | index-key-max    | {"b":1,"4294967295":2,"4294967294":3}   | {"4294967294":3,"b":1,"4294967295":2} |
      | index-key-zero   | {"b":1,"01":2,"1":3,"0":4}              | {"0":4,"1":3,"b":1,"01":2}      |
      | exponent-bounds  | [1e-6,1.5e-7,999999999999999900000,1.5e21] | [0.000001,1.5e-7,999999999999999900000,1.5e+21] |

  @id:PRIM-002
  @clause:D2-1
  Scenario: Text that JSON.parse rejects is refused
    When the JSON text {"a":NaN} is parsed and serialized again
    Then the request fails with code "invalid-json"

  @id:PRIM-003
  @clause:C0.2-1 @clause:C8.3-1 @clause:C8.3-2 @clause:D3-1
  Scenario Outline: Lengths count UTF-16 code units and chars-v1 tokens are ceil(units / 4)
    When the text "<text>" is measured
    Then it is <units> UTF-16 units, <bytes> UTF-8 bytes and <tokens> chars-v1 tokens

    Examples:
      | case   | text      | units | bytes | tokens |
      | ascii  | abcde     | 5     | 5     | 2      |
      | accent | héllo     | 5     | 6     | 2      |
      | astral | 😀😀      | 4     | 8     | 1      |
      | cjk    | 漢字かな  | 4     | 12    | 1      |

  @id:PRIM-004
  @clause:C0.2-1 @clause:D3-1
  Scenario: The empty string is 0 tokens
    When the empty text is measured
    Then it is 0 UTF-16 units, 0 UTF-8 bytes and 0 chars-v1 tokens

  @id:PRIM-005
  @clause:D3-1
  Scenario: Cutting text to a UTF-16 budget never splits a surrogate pair; a budget of 0 is the empty text, a negative one is refused
    When the text "ab😀c" is cut to 3 UTF-16 units
    Then the cut text is "ab"
    When the text "ab😀c" is cut to 4 UTF-16 units
    Then the cut text is "ab😀"
    When the text "ab😀c" is cut to 0 UTF-16 units
    Then the cut text is empty
    When the text "ab😀c" is cut to -1 UTF-16 units
    Then the request fails with code "invalid-params"

  @id:PRIM-006
  @clause:P1.1-2 @clause:P4.6-2
  Scenario Outline: Pi names a project's session folder after its resolved cwd
    When Pi's session folder name of the cwd "<cwd>" is computed
    Then the folder name is "<name>"

    Examples:
      | case      | cwd                        | name                          |
      | plain     | /home/user/projects/demo   | --home-user-projects-demo--   |
      | dots-kept | /home/user/my.proj         | --home-user-my.proj--         |
      | colon     | /srv/x:y                   | --srv-x-y--                   |
      | root      | /                          | ----                          |
      | windows   | C:\Users\me\proj           | --C--Users-me-proj--          |

  @platform:posix @needs:symlink
  @id:PRIM-007
  @clause:C0.2-5
  Scenario: A canonical path resolves symbolic links and dot segments
    Given a project folder reached through a symbolic link
    When the canonical path of the link with a trailing "/sub/.." is computed
    Then it is the real path of the project folder

  @id:PRIM-008
  @clause:C0.2-5
  Scenario: A canonical path of a missing file is the resolved absolute path
    When the canonical path of "missing/../gone.txt" under the scenario folder is computed
    Then it is the scenario folder joined with "gone.txt"

  @id:PRIM-009
  @clause:D2-1 @clause:P1.7-1
  Scenario Outline: JSON.parse allows only space, tab, LF and CR around the value
    When the value of the JSON string <text> is parsed as JSON text and serialized again
    Then the request fails with code "invalid-json"

    Examples:
      | case          | text              |
      | form-feed     | "\f{}"            |
      | vertical-tab  | "{}\u000b"        |
      | nbsp          | "{}\u00a0"        |
      | line-separator| "\u2028[]"        |
      | byte-order    | "\ufeff{}"        |
      | next-line     | "1\u0085"         |

  @id:PRIM-010
  @clause:C0.2-1 @clause:D3-1
  Scenario Outline: A lone surrogate is one UTF-16 unit and the 3 UTF-8 bytes of U+FFFD
    When the text written as the JSON string <text> is measured
    Then it is <units> UTF-16 units, <bytes> UTF-8 bytes and <tokens> chars-v1 tokens

    Examples:
      | case            | text                 | units | bytes | tokens |
      | lone-high       | "\ud800"             | 1     | 3     | 1      |
      | lone-low-inside | "a\udc00b"           | 3     | 5     | 1      |
      | pair            | "\ud83d\ude00"       | 2     | 4     | 1      |
      | five-units      | "abcd\ud800"         | 5     | 7     | 2      |

  @id:PRIM-012
  @clause:C0.2-3 @clause:D2-1 @clause:P1.2-2
  Scenario Outline: JSON.stringify leaves DEL, line separators, NBSP and the BOM raw inside strings
    When the JSON text <text> is parsed and serialized again
    Then the result is the quoted characters of <text>, none escaped

    Examples:
      | case      | text             |
      | del       | "\u007f"         |
      | separator | "\u2028\u2029"   |
      | nbsp-bom  | "\u00a0\ufeff"   |
      | astral    | "\ud83d\ude00"   |
