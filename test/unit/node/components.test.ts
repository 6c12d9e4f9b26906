import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { buildServer } from "../../../src/api/server.js";
import type { LedgerNode } from "../../../src/node/node.js";
import { NODE_EVENT_NAMES, type NodeEventName } from "../../../src/tangle/events.js";
import { openTempNode, type TempNode } from "../../helpers/node.js";

/**
 * ARCHITECTURE.md says what runs in a node and who listens to what; this holds it to the code:
 * the components `node/components.ts` builds are the rows of its Components table, and every
 * listener of the node's events, in the source and on a running node, is a row of "Who listens
 * to what" (and the other way round).
 */

const EVENTS = NODE_EVENT_NAMES;

/** The rows of the markdown table that follows `heading` (up to the next blank line), as cells. */
function tableAfter(doc: string, heading: string): string[][] {
  const start = doc.indexOf(heading);
  assert.ok(start >= 0, `ARCHITECTURE.md has "${heading}"`);
  const lines = doc.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The first `code` span of a cell. */
const code = (cell: string) => /`([^`]+)`/.exec(cell)?.[1] ?? "";

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) out.push(...(await sourceFiles(path)));
    else if (path.endsWith(".ts")) out.push(path);
  }
  return out;
}

describe("ARCHITECTURE.md against the code", () => {
  let doc: string;
  let t: TempNode;
  let node: LedgerNode;
  before(async () => {
    doc = await readFile("ARCHITECTURE.md", "utf8");
    // auto milestones: the coordinator listens to blocks too
    t = await openTempNode("components", { p2pHost: "127.0.0.1", p2pPort: 0, milestones: "auto" });
    node = t.node;
  });
  after(() => t.close());

  it("names every component components.ts builds, and only those", () => {
    const named = tableAfter(doc, "## Components").map((row) => code(row[0]!));
    assert.deepEqual([...named].sort(), Object.keys(node.components).sort());
  });

  it("lists every place a listener of the node's events is attached, event by event", async () => {
    const rows = tableAfter(doc, "## Who listens to what");
    const documented = rows.map((row) => `${code(row[2]!)} ${code(row[0]!)}`).sort();
    const inCode: string[] = [];
    for (const file of await sourceFiles("src")) {
      const text = await readFile(file, "utf8");
      for (const m of text.matchAll(/\.on\("([a-zA-Z]+)"/g)) {
        if (EVENTS.includes(m[1] as NodeEventName)) inCode.push(`${file.slice("src/".length)} ${m[1]}`);
      }
    }
    assert.deepEqual(inCode.sort(), documented);
  });

  it("has, on a running coordinator with its network and API, the listeners the table gives it", async () => {
    await node.startNetwork();
    const app = buildServer(node, "silent");
    await app.ready();
    try {
      // a coordinator runs no confirmer; the milestone log is attached by the command line
      const rows = tableAfter(doc, "## Who listens to what").filter((row) => !/confirmer|milestone log/.test(row[1]!));
      for (const event of EVENTS) {
        const expected = rows.filter((row) => code(row[0]!) === event).length;
        assert.equal(node.events.listenerCount(event), expected, event);
      }
    } finally {
      await app.close();
    }
  });
});
