// The text of /context config show (contract §1.5): the files, the warnings, then one row per
// catalog path with its active and default value as JSON, cut to fit a column. Widths count UTF-16
// units, which is what String.prototype.padEnd counts.

import { CATALOG, DEFAULT_CONFIG, SCHEMA_ID, getPath } from "./config-defaults.mjs";
import { slice } from "./primitives.mjs";

const FOOTER = [
  "",
  "Set:   /context config set <path> <value> [--global]",
  "Unset: /context config unset <path> [--global]",
  "Quote JSON values, e.g. /context config set privacy.localProviders '[\"ollama\",\"lmstudio\"]'",
  "Saved changes apply when the next Pi session starts; this session keeps its configuration.",
];

/** config.show's result for one loaded configuration (lib/config-load.mjs). */
export function showResult(loaded) {
  return { schema: SCHEMA_ID, config: loaded.config, warnings: loaded.warnings, files: loaded.files,
    text: renderShow(loaded) };
}

/** A cell: "unset", or JSON cut to 25 UTF-16 units and "…" when longer than 26 (a surrogate pair
 * is never split). */
export function describeValue(value) {
  if (value === undefined) return "unset";
  const text = JSON.stringify(value);
  return text.length > 26 ? `${slice({ text, maxUnits: 25 }).text}…` : text;
}

function renderShow(loaded) {
  const [globalFile, projectFile] = loaded.files;
  const lines = [
    `DS4 Context Configuration (${SCHEMA_ID})`,
    "",
    `${"Enabled:".padEnd(27)}${loaded.config.enabled === true ? "yes" : "no"}`,
    `${"Global file:".padEnd(27)}${globalFile.path}${globalFile.loaded ? " (loaded)" : ""}`,
    `${"Project file:".padEnd(27)}${projectFile.path || "unavailable"}${projectFile.loaded ? " (loaded)" : ""}`,
    `${"Configuration warnings:".padEnd(27)}${loaded.warnings.length}`,
    ...loaded.warnings.map((warning) => `  - ${warning}`),
    "",
  ];
  let section = "";
  for (const item of CATALOG) {
    const head = item.path.split(".")[0];
    if (head !== section) {
      section = head;
      lines.push(`[${section}]`);
    }
    const hints = [...(item.values.length > 0 ? [item.values.join("|")] : []), item.kind,
      ...(item.optional ? ["optional"] : [])];
    const active = describeValue(getPath(loaded.config, item.path));
    const fallback = describeValue(getPath(DEFAULT_CONFIG, item.path));
    lines.push(`${item.path.padEnd(48)}  ${active.padEnd(28)}  ${fallback.padEnd(28)}  ${hints.join(" ")}`);
  }
  return [...lines, ...FOOTER].join("\n");
}
