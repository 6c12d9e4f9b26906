#!/usr/bin/env node
// The README's picture of the dashboard: `npm run build && node scripts/dashboard-screenshot.mjs
// [out.png]` (default docs/dashboard.png). A dev node opened in this process (a temporary data
// dir, milestones every second) takes tagged-data blocks at 40/s from bench/_blockLoad.ts and
// pays a few faucet requests (transactions), while headless Chromium (Debian's, as the browser
// tests use it) shows the Live tangle page; 9 s in, the top of the page is saved as a PNG.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "../dist/bench/_blockLoad.js";
import { buildServer } from "../dist/src/api/server.js";
import { bech32Encode } from "../dist/src/crypto/bech32.js";
import { LedgerNode } from "../dist/src/node/node.js";
import { defaultNodeOptions } from "../dist/src/node/options.js";
import { closeMinerPool } from "../dist/src/pow/index.js";
import { launchChromium } from "../dist/test/browser/helpers/browser.js";

const out = process.argv[2] ?? "docs/dashboard.png";
const SECONDS = 12;
const dir = await mkdtemp(join(tmpdir(), "ledger-node-screenshot-"));
const node = await LedgerNode.open({ ...defaultNodeOptions, dataDir: dir, logLevel: "silent", minPowScore: 0 });
const app = buildServer(node, "silent");
await app.listen({ host: "127.0.0.1", port: 0 });
const { port } = app.server.address();
const base = `http://127.0.0.1:${port}`;
node.start();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, colorScheme: "light" });
  await page.goto(`${base}/dashboard/tangle`, { waitUntil: "load" });
  await page.locator('figure[data-milestones]:not([data-milestones="0"])').waitFor({ timeout: 10_000 });
  const faucet = setInterval(() => {
    const address = bech32Encode("tst", new Uint8Array([0, ...randomBytes(32)]));
    void fetch(`${base}/api/faucet/v1/enqueue`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address }),
    });
  }, 700);
  const running = load({ port, rate: 40, seconds: SECONDS, firstSeq: 0, dataBytes: 32 });
  // while blocks flow: referenced ones on the left, pending ones on the right, milestones
  await new Promise((r) => setTimeout(r, (SECONDS - 3) * 1000));
  await page.screenshot({ path: out });
  await running;
  clearInterval(faucet);
  console.log(`${out}: ${(await stat(out)).size} bytes`);
} finally {
  await browser.close();
  await app.close();
  await node.close();
  await closeMinerPool();
  await rm(dir, { recursive: true, force: true });
}
