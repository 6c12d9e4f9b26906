import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NodeProcess, startNodeProcess } from "../helpers/nodeProcess.js";

/**
 * The node process as an operator runs it: at the default log level a hundred requests leave no
 * line in its output (at debug each does), its confirmed milestones do; and a fresh node's very
 * first answer is a healthy one, since the coordinator confirms a milestone before the API listens.
 */

/** Lines of the node's output that belong to one request (fastify's child logger labels them). */
const requestLines = (output: string) => output.split("\n").filter((l) => l.includes('"reqId"'));

/** A hundred requests of several kinds: reads, a listing, a route not found, bad input, a refusal. */
async function hundredRequests(node: NodeProcess): Promise<void> {
  const paths = [
    "/health",
    "/api/core/v2/info",
    "/api/explorer/v2/milestones?pageSize=5",
    "/api/core/v2/nothing-here",
    "/api/core/v2/blocks/0x12",
  ];
  for (let i = 0; i < 95; i++) {
    const res = await fetch(`${node.url}${paths[i % paths.length]}`);
    await res.arrayBuffer();
  }
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${node.url}/api/core/v2/peers`);
    assert.equal(res.status, 403);
    await res.arrayBuffer();
  }
}

describe("the node process: request logs, first answer", () => {
  it("writes no line per request at the default level, and its milestones", async () => {
    const node = await startNodeProcess(["--p2p-port", "0", "--milestone-interval", "200"]);
    try {
      await hundredRequests(node);
      // the log is written as it happens; a moment for the last lines to reach the pipe
      await new Promise((r) => setTimeout(r, 300));
      const output = node.output;
      assert.deepEqual(requestLines(output), [], "no per-request line at info");
      assert.doesNotMatch(output, /incoming request|request completed/);
      assert.match(output, /"msg":"milestone 1 confirmed"/, "the first confirmed milestone at info");
    } finally {
      assert.equal(await node.close(), 0);
    }
  });

  it("writes each request at --log-level debug", async () => {
    const node = await startNodeProcess(["--p2p-port", "0", "--log-level", "debug"]);
    try {
      const before = requestLines(node.output).length;
      await hundredRequests(node);
      await new Promise((r) => setTimeout(r, 300));
      const lines = requestLines(node.output).slice(before);
      const completed = lines.filter((l) => l.includes('"msg":"request completed"'));
      assert.ok(completed.length >= 100, `${completed.length} lines of completed requests`);
      assert.ok(
        lines.every((l) => l.includes('"level":20')),
        "all of them at debug (20)",
      );
    } finally {
      assert.equal(await node.close(), 0);
    }
  });

  it("a fresh node's first answer is healthy, with a confirmed milestone", async () => {
    const node = await NodeProcess.create("e2e", ["--p2p-port", "0"], { networkDefaults: false });
    node.start();
    const child = node.child!;
    const endpoint = node.url;
    try {
      // ask as often as a socket may be opened until the node answers at all
      let first: Response | undefined;
      const until = Date.now() + 30_000;
      while (first === undefined && Date.now() < until && child.exitCode === null) {
        first = await fetch(`${endpoint}/health`).catch(() => undefined);
        if (first === undefined) await new Promise((r) => setTimeout(r, 5));
      }
      assert.ok(first, `the node answered (output: ${node.output})`);
      assert.equal(first.status, 200, `the first answer of /health: ${await first.text()}`);
      const info = (await (await fetch(`${endpoint}/api/core/v2/info`)).json()) as {
        status: { isHealthy: boolean; confirmedMilestone: { index: number } };
      };
      assert.equal(info.status.isHealthy, true);
      assert.ok(info.status.confirmedMilestone.index >= 1, `confirmed ${info.status.confirmedMilestone.index}`);
    } finally {
      await node.close();
    }
  });
});
