import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { SignJWT } from "jose";
import {
  checkApiToken,
  defaultApiAuthOptions,
  issueApiToken,
  JWT_SUBJECT,
  normalizePath,
  openedDefaultRoutes,
  RouteAccessPolicy,
} from "../../../src/api/auth.js";
import { defaultApiServerOptions } from "../../../src/api/server.js";
import { parseTokenArgs, readJwtSecret } from "../../../src/cli/token.js";
import { isUsageError } from "../../../src/cli/usageError.js";
import { assertError, CORE, type Harness, openHarness } from "../../helpers/coreHarness.js";

describe("route access patterns", () => {
  const policy = new RouteAccessPolicy(defaultApiAuthOptions);

  it("leaves every route public by default except control, peers and metrics", () => {
    for (const path of ["/health", "/api/routes", `${CORE}/info`, `${CORE}/blocks`, "/api/core/v3/outputs/0x1/full"]) {
      assert.equal(policy.access(path), "public", path);
    }
    for (const path of [
      `${CORE}/control/snapshot/create`,
      `${CORE}/control/database/prune`,
      `${CORE}/peers`,
      `${CORE}/peers/12D3`,
      "/metrics",
    ]) {
      assert.equal(policy.access(path), "protected", path);
    }
  });

  it("matches whole paths with * as any run of characters, case-insensitively", () => {
    const p = new RouteAccessPolicy({ publicRoutes: ["/health", "/api/core/v2/blocks*"], protectedRoutes: ["/api/*"] });
    assert.equal(p.access("/health"), "public");
    assert.equal(p.access("/healthz"), "hidden", "no implicit prefix match");
    assert.equal(p.access("/x/health"), "hidden", "anchored at the start");
    assert.equal(p.access("/api/core/v2/info"), "protected");
    assert.equal(p.access("/api/core/v2/blocks/0xab"), "protected", "protected patterns win");
    assert.equal(p.access("/other"), "hidden");
    const dots = new RouteAccessPolicy({ publicRoutes: ["/a.b"], protectedRoutes: [] });
    assert.equal(dots.access("/axb"), "hidden", "regex characters in patterns are literal");
  });

  it("names the routes protected by default that a replaced list leaves open (the start warns)", () => {
    assert.deepEqual(openedDefaultRoutes(defaultApiAuthOptions), []);
    assert.deepEqual(openedDefaultRoutes({ publicRoutes: ["/*"], protectedRoutes: ["/api/dev/v1/*"] }), [
      ...defaultApiAuthOptions.protectedRoutes,
    ]);
    const kept = { publicRoutes: ["/*"], protectedRoutes: ["/api/core/v2/*", "/metrics", "/api/dev/v1/*"] };
    assert.deepEqual(openedDefaultRoutes(kept), ["/api/spammer/v1/*"]);
    // hidden is not open: a list that publishes only what it names opens nothing
    assert.deepEqual(openedDefaultRoutes({ publicRoutes: ["/health", "/api/core/v2/info"], protectedRoutes: [] }), []);
  });

  it("normalizes paths: no query, decoded, folded slashes, lower case", () => {
    assert.equal(normalizePath("/API/Core/v2/info?x=/api/core/v2/control/x"), "/api/core/v2/info");
    assert.equal(normalizePath("/api/core/v2/%63ontrol/snapshot/create"), "/api/core/v2/control/snapshot/create");
    assert.equal(normalizePath("//api///core/v2/peers"), "/api/core/v2/peers");
    assert.throws(() => normalizePath("/api/%zz"), { status: 400 });
  });
});

describe("API tokens", () => {
  const secret = new Uint8Array(32).fill(7);

  it("issues HS256 tokens with the node subject and an expiry, and accepts them", async () => {
    const token = await issueApiToken(secret, "1h");
    const [header, payload] = token
      .split(".")
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, "base64url").toString()));
    assert.equal(header.alg, "HS256");
    assert.equal(payload.sub, JWT_SUBJECT);
    assert.ok(payload.exp > payload.iat);
    assert.equal(await checkApiToken(secret, token), undefined);
  });

  it("refuses other secrets, expired tokens, other subjects, tokens without expiry and garbage", async () => {
    assert.match((await checkApiToken(new Uint8Array(32), await issueApiToken(secret)))!, /not signed by this node/);
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(JWT_SUBJECT)
      .setIssuedAt(1_000)
      .setExpirationTime(2_000)
      .sign(secret);
    assert.match((await checkApiToken(secret, expired))!, /expired/);
    const other = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("x")
      .setExpirationTime("1h")
      .sign(secret);
    assert.match((await checkApiToken(secret, other))!, /claims/);
    const forever = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(JWT_SUBJECT).sign(secret);
    assert.match((await checkApiToken(secret, forever))!, /claims/);
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(`{"sub":"${JWT_SUBJECT}"}`).toString("base64url")}.`;
    assert.ok(await checkApiToken(secret, none));
    assert.match((await checkApiToken(secret, "not-a-jwt"))!, /malformed/);
  });
});

describe("protected routes over HTTP", () => {
  let h: Harness;
  let custom: Harness;
  const control = `${CORE}/control/ping`;

  before(async () => {
    h = await openHarness({ minPowScore: 0 });
    // a stand-in for a protected route registered by another module
    h.app.get(control, async () => ({ pong: true }));
    custom = await openHarness(
      { minPowScore: 0 },
      {
        ...defaultApiServerOptions,
        auth: { publicRoutes: ["/health", `${CORE}/info`], protectedRoutes: [`${CORE}/blocks*`] },
      },
    );
  });
  after(async () => {
    await h.close();
    await custom.close();
  });

  it("answers 403 in the error shape without a token, with a bad one, with an expired one", async () => {
    assertError(await h.app.inject({ method: "GET", url: control }), 403, /Bearer/);
    assertError(
      await h.app.inject({ method: "GET", url: control, headers: { authorization: "Basic abc" } }),
      403,
      /Bearer/,
    );
    assertError(
      await h.app.inject({ method: "GET", url: control, headers: { authorization: "Bearer abc.def.ghi" } }),
      403,
      /malformed/,
    );
    const foreign = await issueApiToken(new Uint8Array(32));
    assertError(
      await h.app.inject({ method: "GET", url: control, headers: { authorization: `Bearer ${foreign}` } }),
      403,
      /not signed by this node/,
    );
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(JWT_SUBJECT)
      .setExpirationTime(1_000)
      .sign(h.node.jwtSecret);
    assertError(
      await h.app.inject({ method: "GET", url: control, headers: { authorization: `Bearer ${expired}` } }),
      403,
      /expired/,
    );
    // protected before any routing: unknown protected paths and other methods are 403 too
    assertError(await h.app.inject({ method: "POST", url: `${CORE}/control/snapshot/create`, payload: {} }), 403);
    assertError(await h.app.inject({ method: "GET", url: `${CORE}/peers` }), 403);
  });

  it("opens the route with a valid token of this node", async () => {
    const token = await issueApiToken(h.node.jwtSecret, "5m");
    const res = await h.app.inject({ method: "GET", url: control, headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { pong: true });
  });

  it("cannot be bypassed by escapes, case, slashes or the query string", async () => {
    for (const url of [
      `${CORE}/%63ontrol/ping`,
      `${CORE}/control/ping?x=1`,
      `${CORE}/control/ping#frag`,
      `/API/core/v2/control/ping`,
      `${CORE}//control/ping`,
    ]) {
      const res = await h.app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
    }
    assertError(await h.app.inject({ method: "GET", url: `${CORE}/%zz` }), 400);
  });

  it("ignores tokens on public routes", async () => {
    const res = await h.app.inject({ method: "GET", url: `${CORE}/info`, headers: { authorization: "Bearer junk" } });
    assert.equal(res.statusCode, 200);
  });

  it("follows configured patterns: protected blocks, unlisted routes refused", async () => {
    assert.equal((await custom.app.inject({ method: "GET", url: `${CORE}/info` })).statusCode, 200);
    assertError(
      await custom.app.inject({ method: "POST", url: `${CORE}/blocks`, payload: { protocolVersion: 2 } }),
      403,
    );
    assertError(await custom.app.inject({ method: "GET", url: `${CORE}/tips` }), 403, /not exposed/);
    const token = await issueApiToken(custom.node.jwtSecret);
    const res = await custom.app.inject({
      method: "POST",
      url: `${CORE}/blocks`,
      payload: { protocolVersion: 2, payload: { type: 5, tag: "0x01", data: "0x" } },
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.statusCode, 201, res.body);
  });
});

describe("token subcommand", () => {
  it("parses --data-dir and --expires-in, and refuses bad spans and unknown flags", () => {
    const a = parseTokenArgs(["--data-dir", "/tmp/x", "--expires-in=12h"], {});
    assert.deepEqual(a, { dataDir: "/tmp/x", expiresIn: "12h", help: false });
    assert.equal(parseTokenArgs([], { LEDGER_NODE_DATA_DIR: "/env" }).dataDir, "/env");
    assert.equal(parseTokenArgs(["--help"], {}).help, true);
    assert.throws(
      () => parseTokenArgs(["--expires-in", "soon"], {}),
      (e) => isUsageError(e),
    );
    assert.throws(
      () => parseTokenArgs(["--port", "1"], {}),
      (e) => isUsageError(e),
    );
    assert.throws(
      () => parseTokenArgs(["--data-dir"], {}),
      (e) => isUsageError(e),
    );
  });

  it("reads the secret of a running node's data dir from its key file", async () => {
    const h = await openHarness({ minPowScore: 0 });
    const secret = h.node.jwtSecret;
    const read = await readJwtSecret(h.dir);
    assert.deepEqual(read, secret);
    const token = await issueApiToken(read, "7d");
    assert.equal(await checkApiToken(secret, token), undefined);
    await h.app.close();
    await h.node.close();
    assert.deepEqual(await readJwtSecret(h.dir), secret, "the same after a stop");
    await assert.rejects(readJwtSecret(`${h.dir}/missing`), /no JWT secret/);
    await rm(h.dir, { recursive: true, force: true });
  });
});
