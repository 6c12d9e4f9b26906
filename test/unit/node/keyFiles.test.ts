import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { isNodeError, NodeErrorCode } from "../../../src/node/errors.js";
import { MAX_KEY_FILE_BYTES, readKeyFile } from "../../../src/node/keyFiles.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/** Key files are read within bounds: a network file from another operator may name any path. */

describe("key files", () => {
  let dir: string;
  before(async () => {
    dir = await tempDir("keyfiles");
  });
  after(async () => {
    await removeDir(dir);
  });

  const refused = (e: unknown) => isNodeError(e) && e.code === NodeErrorCode.InvalidKeyFile;

  it("reads 64 hex digits with or without 0x, whitespace around", async () => {
    const seed = new Uint8Array(32).fill(0xab);
    const with0x = join(dir, "a.key");
    const bare = join(dir, "b.key");
    await writeFile(with0x, `  0x${"ab".repeat(32)}\n`);
    await writeFile(bare, `${"AB".repeat(32)}\n`);
    assert.deepEqual(await readKeyFile(with0x), seed);
    assert.deepEqual(await readKeyFile(bare), seed);
  });

  it("refuses a device without reading it whole (/dev/zero)", async () => {
    const before = process.memoryUsage().rss;
    const t = performance.now();
    await assert.rejects(readKeyFile("/dev/zero"), (e) => refused(e) && /not a regular file/.test(String(e)));
    assert.ok(performance.now() - t < 100, "answered at once");
    assert.ok(process.memoryUsage().rss - before < 50e6, "nothing read into memory");
  });

  it("refuses a FIFO without waiting for a writer", { skip: process.platform === "win32" }, async () => {
    const fifo = join(dir, "pipe.key");
    execFileSync("mkfifo", [fifo]);
    await assert.rejects(readKeyFile(fifo), (e) => refused(e) && /not a regular file/.test(String(e)));
  });

  it("refuses a file larger than a key file, never echoing its content", async () => {
    const big = join(dir, "big.key");
    await writeFile(big, `0x${"cd".repeat(32)}\n${"secret ".repeat(MAX_KEY_FILE_BYTES)}`);
    await assert.rejects(readKeyFile(big), (e) => refused(e) && !String(e).includes("secret"));
    const odd = join(dir, "odd.key");
    await writeFile(odd, "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIP\n");
    await assert.rejects(readKeyFile(odd), (e) => refused(e) && !String(e).includes("MC4CAQ"));
  });
});
