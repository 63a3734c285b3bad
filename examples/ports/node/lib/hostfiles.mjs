// Pi's small host files (settings.json, trust.json, ds4-context.json), read as Node's
// readFileSync(path, "utf-8") reads them, but bounded (docs/host.md): only a regular file, and at
// most 4 MiB, so a FIFO cannot hang the port and a link to /dev/zero cannot fill its memory.

import fs from "node:fs";

export const CONFIG_FILE_LIMIT = 4 * 1024 * 1024;
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/** What went wrong reading a host file; `reason` is the one-phrase cause (strerror's words). */
export class HostFileError extends Error {
  constructor(reason) {
    super(reason);
    this.name = "HostFileError";
    this.reason = reason;
  }
}

const REASONS = Object.freeze({
  EACCES: "Permission denied", ENOENT: "No such file or directory", EISDIR: "Is a directory",
  ENOTDIR: "Not a directory", ELOOP: "Too many levels of symbolic links", EPERM: "Operation not permitted",
  ENAMETOOLONG: "File name too long", EROFS: "Read-only file system", ENOSPC: "No space left on device",
});

/** The cause of a failed fs call, worded as the C library words it. */
export function reasonOf(error) {
  return error instanceof HostFileError ? error.reason : REASONS[error.code] ?? error.code ?? String(error);
}

/** The file's text: invalid UTF-8 becomes U+FFFD, a leading BOM is kept. */
export function readText(path) {
  let fd;
  try {
    fd = fs.openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw new HostFileError(reasonOf(error));
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new HostFileError("not a regular file");
    const chunks = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const read = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      length += read;
      if (length > CONFIG_FILE_LIMIT) throw new HostFileError(`larger than ${CONFIG_FILE_LIMIT} bytes`);
    }
    return Buffer.concat(chunks, length).toString("utf8");
  } catch (error) {
    throw error instanceof HostFileError ? error : new HostFileError(reasonOf(error));
  } finally {
    fs.closeSync(fd);
  }
}

/** Python's os.path.exists: true for anything a stat (following links) finds. */
export function exists(path) {
  return fs.existsSync(path);
}
