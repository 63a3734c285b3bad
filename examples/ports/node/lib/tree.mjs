// The session tree as Pi 0.84.3 builds it: a Map from id to entry (the last entry with an id wins),
// parentId links walked to a root (a missing parent ends the walk), and the active leaf on load is
// the last entry in file order. Pi has no cycle guard; this tree reports cycles instead of hanging.

/** An id usable as a Map key: a primitive. An object or array never equals another line's value. */
function keyable(id) {
  return id !== undefined && (id === null || typeof id !== "object");
}

export class SessionTree {
  constructor(entries) {
    this.entries = entries;
    this.byId = new Map();
    const duplicates = new Set();
    for (const entry of entries) {
      if (!keyable(entry.id)) continue;
      if (this.byId.has(entry.id)) duplicates.add(entry.id);
      this.byId.set(entry.id, entry);
    }
    this.duplicateIds = [...duplicates];
  }

  get(id) {
    return keyable(id) ? this.byId.get(id) ?? null : null;
  }

  /** The entry a parentId resolves to, or null for a falsy or unresolved one. */
  parentOf(entry) {
    return entry.parentId ? this.get(entry.parentId) : null;
  }

  /** Pi's leaf on load: the last entry's id (undefined when it has none; null when no entries). */
  get defaultLeafId() {
    return this.entries.length === 0 ? null : this.entries[this.entries.length - 1].id;
  }

  /** Root-to-leaf path of `leaf`, stopping at a missing parent or at the first repeated entry. */
  ancestry(leaf) {
    const path = [];
    const seen = new Set();
    let node = leaf;
    while (node !== null && !seen.has(node)) {
      seen.add(node);
      path.push(node);
      node = this.parentOf(node);
    }
    const cycle = node !== null;
    path.reverse();
    const root = path[0];
    const missingParent = !cycle && root.parentId && this.parentOf(root) === null ? root.parentId : null;
    return { path, missingParent, cycle };
  }

  /** Pi's getBranch(leafId): empty for a falsy or unknown leaf. */
  branch(leafId) {
    const leaf = leafId ? this.get(leafId) : null;
    return leaf === null ? { path: [], missingParent: null, cycle: false } : this.ancestry(leaf);
  }

  /** Pi's buildSessionPath: null gives nothing; an undefined or unknown leaf means the last entry. */
  sessionPath(leafId) {
    if (leafId === null) return { path: [], missingParent: null, cycle: false };
    let leaf = leafId ? this.get(leafId) : null;
    if (leaf === null) {
      if (this.entries.length === 0) return { path: [], missingParent: null, cycle: false };
      leaf = this.entries[this.entries.length - 1];
    }
    return this.ancestry(leaf);
  }

  /** Entries whose parentId is `id` and resolves, in file order. */
  children(id) {
    return this.entries.filter((entry) => entry.parentId && entry.parentId === id && this.parentOf(entry) !== null);
  }

  /** Other children of the same parent; other roots for a root. */
  siblings(entry) {
    const parent = this.parentOf(entry);
    const pool = parent === null ? this.entries.filter((e) => this.parentOf(e) === null) : this.children(parent.id);
    return pool.filter((other) => other !== entry);
  }

  /** Entries with a missing parent, and entries whose ancestry runs into a cycle, in file order. */
  brokenLinks() {
    const reachesRoot = new Map();
    for (const entry of this.entries) {
      const stack = [];
      const onStack = new Set();
      let node = entry;
      let reaches = true;
      while (node !== null && !reachesRoot.has(node)) {
        if (onStack.has(node)) {
          reaches = false;
          break;
        }
        onStack.add(node);
        stack.push(node);
        node = this.parentOf(node);
      }
      if (node !== null && reachesRoot.has(node)) reaches = reachesRoot.get(node);
      for (const walked of stack) reachesRoot.set(walked, reaches);
    }
    const missingParents = [];
    const cycles = [];
    for (const entry of this.entries) {
      if (entry.parentId && this.parentOf(entry) === null) missingParents.push(entry);
      else if (reachesRoot.get(entry) === false) cycles.push(entry);
    }
    return { missingParents, cycles };
  }
}

/** An id as JSON shows it: null for undefined, as JSON.stringify does in arrays. */
export function idText(id) {
  return id === undefined ? null : id;
}
