import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { progressBar, runInspectCommand } from "../../../src/cli/inspect.js";
import { History } from "../../helpers/snapshotHistory.js";

/** `inspect`: header and counts of a snapshot file, a progress bar for big files, clean failures. */
describe("inspect command", () => {
  let h: History;
  let full: string;
  let delta: string;

  const run = async (argv: string[], options: { tty?: boolean; progressMinBytes?: number } = {}) => {
    const out: string[] = [];
    let err = "";
    const code = await runInspectCommand(
      argv,
      { out: (line) => out.push(line), err: { write: (t: string) => (err += t), isTTY: options.tty ?? false } },
      options.progressMinBytes,
    );
    return { code, out: out.join("\n"), err };
  };

  before(async () => {
    h = await History.create("inspect", 6, 3);
    const m = h.snapshots(h.dir);
    full = (await m.createFull(4)).filePath;
    delta = (await m.createDelta(6)).deltaFilePath;
  });
  after(async () => {
    await h.dispose();
  });

  it("prints the header and counts of a full snapshot", async () => {
    const r = await run([full]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /TIP-35 version 2, full snapshot/);
    assert.match(r.out, /network\s+dev \(protocol version 2, bech32 HRP tst\)/);
    assert.match(r.out, /ledger index\s+6/);
    assert.match(
      r.out,
      new RegExp(`outputs\\s+${h.states.get(6)!.outputs.size} \\(.*basic \\d+.*\\), total 2779530283277761`),
    );
    assert.match(r.out, /milestone diffs\s+3 \(milestones 6\.\.4\)/);
    assert.match(r.out, /matches/);
    assert.equal(r.err, "", "no progress bar for a small file");
  });

  it("prints one JSON object with --json, for full and delta files", async () => {
    const f = JSON.parse((await run([full, "--json"])).out);
    assert.equal(f.header.type, "full");
    assert.equal(f.header.targetMilestoneIndex, 4);
    assert.equal(f.header.protocolParameters.networkName, "dev");
    assert.equal(f.header.ledgerMilestoneIndex, 6);
    assert.equal(f.outputs.count, h.states.get(6)!.outputs.size);
    assert.equal(f.outputs.total, "2779530283277761");
    assert.equal(f.checksumFile, "matches");
    const d = JSON.parse((await run([delta, "--json"])).out);
    assert.equal(d.header.type, "delta");
    assert.deepEqual([d.milestoneDiffs.count, d.milestoneDiffs.first, d.milestoneDiffs.last], [2, 5, 6]);
    assert.ok(d.solidEntryPoints >= 1);
  });

  it("draws a progress bar on stderr while reading a large file", async () => {
    const lines = await run([full], { progressMinBytes: 0 });
    assert.equal(lines.code, 0);
    assert.match(lines.err, /reading 100%/);
    const tty = await run([full], { progressMinBytes: 0, tty: true });
    assert.match(tty.err, /\rreading \[#{30}\] 100%/);
    let drawn = "";
    const bar = progressBar({ write: (t: string) => (drawn += t), isTTY: false }, "reading");
    for (let i = 0; i <= 100; i++) bar.update(i, 100);
    assert.equal(drawn.trim().split("\n").length, 11, "a line per tenth when stderr is not a terminal");
  });

  it("reports a damaged file with its reason (exit 1) and usage errors (exit 2)", async () => {
    const cut = join(h.dir, "cut.bin");
    await writeFile(cut, (await readFile(full)).subarray(0, 150));
    const r = await run([cut]);
    assert.equal(r.code, 1);
    assert.match(r.err, /SNAPSHOT_TRUNCATED/);
    assert.equal((await run([join(h.dir, "missing.bin")])).code, 1);
    assert.equal((await run([])).code, 2);
    assert.equal((await run([full, "--bogus"])).code, 2);
    assert.equal((await run([full, delta])).code, 2);
    assert.match((await run(["--help"])).out, /usage: npm start -- inspect/);
  });
});
