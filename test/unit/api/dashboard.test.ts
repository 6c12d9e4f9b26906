import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import mqtt from "mqtt";
import type { ApiNode } from "../../../src/api/apiNode.js";
import { defaultApiAuthOptions, registerAuth } from "../../../src/api/auth.js";
import { contentSecurityPolicy, registerDashboard } from "../../../src/api/dashboard.js";
import { registerErrorHandling } from "../../../src/api/errors.js";
import type { DashboardNodeJson } from "../../../src/api/json/dashboard.js";
import { directorySize } from "../../../src/api/metrics/databaseMetrics.js";
import { parseArgs } from "../../../src/cli/flags.js";
import { type Harness, openHealthyHarness } from "../../helpers/coreHarness.js";
import { removeDir, tempDir } from "../../helpers/node.js";

/**
 * The dashboard's static serving (src/api/dashboard.ts) over a bundle laid out as Vite writes
 * it: files as they are, hashed assets cached for good, every other path the app's index.html
 * (revalidated), a missing asset 404, dotfiles and paths out of the folder never served, and
 * 503 in words while nothing is built. Public under the default route patterns.
 */

const INDEX =
  '<!doctype html><html lang="en"><script type="module" src="/dashboard/assets/index-abc123.js"></script></html>';

function serverOn(dir: string, imgSrc: string[] = []): FastifyInstance {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  registerAuth(app, { jwtSecret: new Uint8Array(32) } as ApiNode, defaultApiAuthOptions);
  registerDashboard(app, dir, { imgSrc });
  return app;
}

describe("the dashboard's static files", () => {
  let root: string;
  let built: FastifyInstance;
  let missing: FastifyInstance;

  before(async () => {
    root = await tempDir("dashboard");
    const dir = join(root, "web");
    await mkdir(join(dir, "assets"), { recursive: true });
    await writeFile(join(dir, "index.html"), INDEX);
    await writeFile(join(dir, "assets", "index-abc123.js"), "console.log('app');");
    await writeFile(join(dir, ".build-stamp"), "fingerprint");
    await writeFile(join(root, "secret.txt"), "not for the web");
    built = serverOn(dir);
    missing = serverOn(join(root, "not-built"));
  });
  after(async () => {
    await built.close();
    await missing.close();
    await removeDir(root);
  });

  it("answers index.html at /dashboard and at every path that is not a file, revalidated", async () => {
    for (const url of ["/dashboard", "/dashboard/", "/dashboard/peers", "/dashboard/explorer/block/0x00?x=1"]) {
      const res = await built.inject(url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, INDEX, url);
      assert.match(String(res.headers["content-type"]), /^text\/html/, url);
      assert.equal(res.headers["cache-control"], "no-cache", url);
      assert.match(String(res.headers["content-security-policy"]), /default-src 'self'.*frame-ancestors 'none'/, url);
      // WebAssembly for the explorer's proof checks, never eval of script nor inline script
      assert.match(String(res.headers["content-security-policy"]), /script-src 'self' 'wasm-unsafe-eval';/, url);
      assert.doesNotMatch(String(res.headers["content-security-policy"]), /'unsafe-eval'|'unsafe-inline'/, url);
      assert.equal(res.headers["x-content-type-options"], "nosniff");
    }
    const head = await built.inject({ method: "HEAD", url: "/dashboard/faucet" });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, "");
    // images (NFT images, IRC-27) only from the node itself unless the operator lists origins
    assert.match(String(head.headers["content-security-policy"]), /; img-src 'self' data:; /);
  });

  it("lets images come from the origins the operator lists (--dashboard-img-src), and nothing else more", async () => {
    const listed = serverOn(join(root, "web"), ["https://ipfs.example", "http://localhost:8080"]);
    try {
      const policy = String(
        (await listed.inject({ method: "HEAD", url: "/dashboard/" })).headers["content-security-policy"],
      );
      assert.match(policy, /; img-src 'self' data: https:\/\/ipfs\.example http:\/\/localhost:8080; /);
      assert.equal(
        policy,
        contentSecurityPolicy().replace(
          "img-src 'self' data:",
          "img-src 'self' data: https://ipfs.example http://localhost:8080",
        ),
      );
    } finally {
      await listed.close();
    }
    // the flag takes origins only: a CSP keyword or directive cannot be slipped in
    assert.deepEqual(parseArgs([], {}).options.dashboardImgSrc, []);
    assert.deepEqual(parseArgs(["--dashboard-img-src", "https://IPFS.example:443/"], {}).options.dashboardImgSrc, [
      "https://ipfs.example",
    ]);
    for (const bad of ["'unsafe-inline'", "https://a.example; script-src *", "data:"]) {
      assert.throws(() => parseArgs(["--dashboard-img-src", bad], {}), /takes origins/, bad);
    }
  });

  it("serves hashed assets cached for a year; a missing asset is 404, not the page", async () => {
    const res = await built.inject("/dashboard/assets/index-abc123.js");
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, "console.log('app');");
    assert.match(String(res.headers["content-type"]), /javascript/);
    assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
    const gone = await built.inject("/dashboard/assets/index-old999.js");
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json().error.details, "the dashboard has no file assets/index-old999.js");
  });

  it("never serves a dotfile or a file outside the bundle", async () => {
    for (const url of [
      "/dashboard/.build-stamp",
      "/dashboard/%2e%2e/secret.txt",
      "/dashboard/assets/%2e%2e/%2e%2e/secret.txt",
      "/dashboard/..%2fsecret.txt",
      "/dashboard/assets%5c..%5c..%5csecret.txt",
    ]) {
      const res = await built.inject(url);
      assert.ok(
        res.statusCode === 200 || res.statusCode === 404 || res.statusCode === 400,
        `${url}: ${res.statusCode}`,
      );
      assert.ok(!res.body.includes("not for the web"), url);
      assert.ok(!res.body.includes("fingerprint"), url);
    }
  });

  it("answers 503 in words while the dashboard is not built", async () => {
    for (const url of ["/dashboard", "/dashboard/peers", "/dashboard/assets/index-abc123.js"]) {
      const res = await missing.inject(url);
      assert.equal(res.statusCode, 503, url);
      assert.match(res.json().error.details, /^the dashboard is not built: run "npm run build"/, url);
    }
  });
});

describe("GET /api/dashboard/v1/node", () => {
  let h: Harness;

  before(async () => {
    h = await openHealthyHarness({ minPowScore: 0 });
  });
  after(async () => {
    await h.close();
  });

  it("answers the process's uptime and memory and the database's size on disk, without a JWT", async () => {
    const res = await h.app.inject("/api/dashboard/v1/node");
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as DashboardNodeJson;
    assert.deepEqual(Object.keys(body), ["uptimeSeconds", "memory", "databaseSize", "connections"]);
    assert.deepEqual(Object.keys(body.memory), ["rss", "heapUsed", "heapTotal"]);
    assert.ok(Number.isInteger(body.uptimeSeconds) && body.uptimeSeconds >= 0);
    assert.ok(body.uptimeSeconds <= Math.ceil(process.uptime()));
    const rss = process.memoryUsage().rss;
    assert.ok(body.memory.rss > 0 && body.memory.rss < 2 * rss, `${body.memory.rss} vs ${rss}`);
    assert.ok(body.memory.heapUsed > 0 && body.memory.heapUsed <= body.memory.heapTotal);
    assert.equal(body.databaseSize, await directorySize(h.node.tangle.store.location));
    assert.ok(body.databaseSize > 0);
  });

  it("answers the connections by kind and the event API's budgets, and follows a subscriber", async () => {
    const port = await h.app.listen({ port: 0, host: "127.0.0.1" }).then((url) => new URL(url).port);
    const figures = async () =>
      ((await h.app.inject("/api/dashboard/v1/node")).json() as DashboardNodeJson).connections;
    const before = await figures();
    assert.deepEqual(Object.keys(before.open), ["http", "websocket", "mqtt", "p2p"]);
    assert.ok(before.limit > 0);
    const client = await mqtt.connectAsync(`ws://127.0.0.1:${port}/api/mqtt/v1`, { reconnectPeriod: 0 });
    try {
      await client.subscribeAsync(["milestone-info/latest", "blocks"]);
      await client.subscribeAsync("#").catch(() => {}); // refused in the SUBACK
      const during = await figures();
      assert.equal(during.open.websocket, before.open.websocket + 1);
      assert.equal(during.eventApi.subscriptions, before.eventApi.subscriptions + 2);
      assert.equal(during.eventApi.refusedSubscriptions, before.eventApi.refusedSubscriptions + 1);
    } finally {
      await client.endAsync(true);
    }
  });
});
