Feature: JSON nested deeper than a recursive writer goes (issue 14, docs/suite-strength.md)
  Spec: [decisions.md](../../docs/spec/decisions.md) [D2](../../docs/spec/decisions.md#d2-json-bytes)
  A mutant of the reference that the rest of the suite let pass broke the serializer's path for
  values nested deeper than the language recurses; JSON.stringify has no such limit for the
  depths a session can hold, so neither may a port.

  @id:PRIM-200
  @clause:D2-1
  Scenario Outline: A value nested <depth> arrays deep is serialized exactly (<case>)
    When a JSON value of <depth> nested arrays around <inner> is parsed and serialized again
    Then its serialization is <depth> nested arrays around <inner>

    Examples:
      | case            | depth | inner                  |
      | shallow         | 10    | 1,"a",{"b":null},[]    |
      | past-recursion  | 1500  | 1,"a",{"b":null},[]    |
