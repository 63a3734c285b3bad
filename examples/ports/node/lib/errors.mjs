// Contract errors: a refusal with a code of schemas/codes/v1/codes.schema.json and a one-line message.
// The protocol loop (port.mjs) turns a ContractError into {"seq", "error": {code, message}}; any
// other exception becomes {"seq", "errored": true, ...}: the port broke, the harness records it.

export class ContractError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ContractError";
    this.code = code;
  }
}

/** A required string parameter, or the contract error `invalid-params`. */
export function stringParam(params, name) {
  const value = params[name];
  if (typeof value !== "string") {
    throw new ContractError("invalid-params", `parameter '${name}' must be a string`);
  }
  return value;
}

/** A message as the protocol wants it: one non-empty line. */
export function oneLine(text) {
  return String(text).replace(/\s+/g, " ").trim() || "refused";
}
