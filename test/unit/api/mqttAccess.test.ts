import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import mqtt from "mqtt";
import WebSocket from "ws";
import { issueApiToken } from "../../../src/api/auth.js";
import { buildServer, defaultApiServerOptions } from "../../../src/api/server.js";
import { type Harness, openHarness } from "../../helpers/coreHarness.js";

/**
 * The event API's route is guarded like the REST routes: public by default, and when an
 * operator protects `/api/mqtt/*` a WebSocket without a JWT is refused before the upgrade.
 */
describe("event API access", () => {
  let h: Harness;
  let app: FastifyInstance;
  let url: string;
  before(async () => {
    h = await openHarness({ minPowScore: 0 });
    app = buildServer(h.node, "silent", {
      ...defaultApiServerOptions,
      auth: { publicRoutes: ["/*"], protectedRoutes: ["/api/mqtt/*"] },
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    url = `ws://127.0.0.1:${(app.server.address() as { port: number }).port}/api/mqtt/v1`;
  });
  after(async () => {
    await app.close();
    await h.close();
  });

  it("refuses a WebSocket without a JWT on a protected route, and takes one with it", async () => {
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url, "mqtt");
      ws.once("unexpected-response", (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      ws.once("error", () => {}); // the refused handshake also ends in an error event
      ws.once("open", () => reject(new Error("the upgrade was accepted without a JWT")));
    });
    assert.equal(refused, 403);
    // a client that keeps the refused connection open has it closed by the node
    const closedByNode = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1", () => {
        socket.write(
          "GET /api/mqtt/v1 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        );
      });
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(false);
      }, 3000);
      socket.on("data", () => {});
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    assert.ok(closedByNode, "the refused upgrade's connection is closed by the node");
    const token = await issueApiToken(h.node.jwtSecret);
    const client = await mqtt.connectAsync(url, {
      reconnectPeriod: 0,
      wsOptions: { headers: { authorization: `Bearer ${token}` } },
    });
    const granted = await client.subscribeAsync("milestone-info/confirmed");
    assert.equal(granted[0]!.qos, 0);
    await client.endAsync(true);
  });

  it("is public on the default routes", async () => {
    const open = buildServer(h.node, "silent");
    await open.listen({ host: "127.0.0.1", port: 0 });
    try {
      const port = (open.server.address() as { port: number }).port;
      const client = await mqtt.connectAsync(`ws://127.0.0.1:${port}/api/mqtt/v1`, { reconnectPeriod: 0 });
      assert.ok(client.connected);
      await client.endAsync(true);
    } finally {
      await open.close();
    }
  });
});
