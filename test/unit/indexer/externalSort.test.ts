import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout } from "node:timers/promises";
import { ExternalSort } from "../../../src/indexer/externalSort.js";
import { isStorageError, StorageErrorCode } from "../../../src/storage/index.js";

/**
 * The external sort of an index rebuild (indexer/externalSort.ts): entries in runs written to
 * files and merged come out in key order, with their values, whatever the run size and however
 * the files' reads cut the entries, and the files go with `close`.
 */
describe("external sort", () => {
  let parent: string;
  before(async () => {
    parent = await mkdtemp(join(tmpdir(), "ledger-node-sort-test-"));
  });
  after(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  const entries = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      // keys of varied length sharing prefixes, each its own and none the beginning of another
      // (as a field list entry's key, whose list names its length), values of varied length
      const length = 1 + (i % 40);
      const key = new Uint8Array([i % 3, length, ...randomBytes(length), i >>> 8, i & 0xff]);
      return { key, value: new Uint8Array(randomBytes(i % 300)) };
    });
  const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
  /** Waits (at most 10 s) for `dir` to hold `n` run files, and no more. */
  const runFiles = async (dir: string, n: number) => {
    const count = () => (existsSync(dir) ? readdirSync(dir).length : 0);
    for (const deadline = Date.now() + 10_000; count() < n && Date.now() < deadline; ) await setTimeout(5);
    assert.equal(count(), n, "runs written as they fill");
  };
  const expected = (all: { key: Uint8Array; value: Uint8Array }[]) =>
    [...all].sort((a, b) => Buffer.compare(a.key, b.key)).map((e) => `${hex(e.key)}=${hex(e.value)}`);

  // runs of 1 and 7: merged in several rounds (at most MAX_OPEN_RUNS files open)
  for (const [n, runEntries] of [
    [300, 1],
    [20_000, 7],
    [20_000, 5_000],
    [20_000, 1_000_000],
  ] as const) {
    it(`sorts ${n.toLocaleString("en-US")} entries in runs of ${runEntries.toLocaleString("en-US")}`, async () => {
      const dir = join(parent, `runs-${runEntries}`);
      const all = entries(n);
      const sort = new ExternalSort(dir, runEntries);
      for (const e of all) sort.add(e.key, e.value);
      // the full runs are written by the sort's thread while the adds go on
      await runFiles(dir, runEntries >= n ? 0 : Math.floor(n / runEntries));
      const out: string[] = [];
      for await (const chunk of sort.sorted()) for (const [k, v] of chunk) out.push(`${hex(k)}=${hex(v)}`);
      assert.deepEqual(out, expected(all));
      await sort.close();
      assert.equal(existsSync(dir), false, "the files are gone");
    });
  }

  it("empties a directory an interrupted sort left, and sorts nothing to nothing", async () => {
    const dir = join(parent, "reused");
    const first = new ExternalSort(dir, 2);
    for (const e of entries(10)) first.add(e.key, e.value);
    await runFiles(dir, 5);
    // interrupted: never closed; the next sort in the same directory starts from nothing
    const second = new ExternalSort(dir, 2);
    const all = entries(5);
    for (const e of all) second.add(e.key, e.value);
    const out: string[] = [];
    for await (const chunk of second.sorted()) for (const [k, v] of chunk) out.push(`${hex(k)}=${hex(v)}`);
    assert.deepEqual(out, expected(all));
    await second.close();
    const none = new ExternalSort(join(parent, "none"));
    for await (const _ of none.sorted()) assert.fail("an entry from nowhere");
    await none.close();
  });

  it("fails the sort with a write failure when its thread cannot write a run", async () => {
    const dir = join(parent, "unwritable");
    const sort = new ExternalSort(dir, 2);
    const all = entries(4);
    for (const e of all.slice(0, 2)) sort.add(e.key, e.value);
    await runFiles(dir, 1);
    // the directory turns into a file: the next run cannot be written there
    rmSync(dir, { recursive: true });
    writeFileSync(dir, "not a directory");
    for (const e of all.slice(2)) sort.add(e.key, e.value);
    await assert.rejects(
      (async () => {
        for await (const _ of sort.sorted()) assert.fail("entries from a sort that failed");
      })(),
      (e) => isStorageError(e) && e.code === StorageErrorCode.WriteFailed && /could not be written/.test(e.message),
    );
    await sort.close();
    assert.equal(existsSync(dir), false);
  });
});
