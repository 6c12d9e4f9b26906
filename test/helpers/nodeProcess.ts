import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The real node process (`dist/src/cli/main.js`, what `npm start` runs) on a fresh temporary
 * data directory and a free loopback port, for tests that drive it over HTTP only.
 */

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** Polls `fn` every `everyMs` until it returns a value (errors count as "not yet"). */
export async function waitFor<T>(fn: () => Promise<T | undefined>, ms: number, what: string, everyMs = 50): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${last})` : ""}`);
}

export interface NodeProcess {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** What the process printed so far (stdout and stderr). */
  output(): string;
  /** The process ID (to read its memory from /proc). */
  pid: number;
  /** SIGTERM, wait for the exit, remove the data directory; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** How the node process is started beyond its flags. */
export interface NodeProcessOptions {
  /**
   * Soft and hard open-file limit of the process (`ulimit -n`). Both are set: node raises its
   * soft limit to the hard one at start.
   */
  openFileLimit?: number;
}

/**
 * Starts a dev node with `flags` added to its data dir and port, and waits until `/health`
 * answers 200 (the coordinator has confirmed a first milestone). The free port is found before
 * the node starts, so another listener (the node's own P2P port 0 among them) may take it first:
 * then the node is started once more on another port.
 */
export async function startNodeProcess(
  flags: string[],
  startupMs = 20_000,
  options: NodeProcessOptions = {},
): Promise<NodeProcess> {
  try {
    return await startOnce(flags, startupMs, options);
  } catch (e) {
    if (!/EADDRINUSE/.test((e as Error).message)) throw e;
    return startOnce(flags, startupMs, options);
  }
}

async function startOnce(flags: string[], startupMs: number, options: NodeProcessOptions): Promise<NodeProcess> {
  const dir = await mkdtemp(join(tmpdir(), "ledger-node-e2e-"));
  const port = await freePort();
  let output = "";
  const args = ["dist/src/cli/main.js", "--data-dir", dir, "--api-port", String(port), ...flags];
  // the shell sets the limit and execs node in its place, so the process ID stays the node's
  const child: ChildProcess =
    options.openFileLimit === undefined
      ? spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
      : spawn(
          "/bin/sh",
          ["-c", `ulimit -n ${Math.floor(options.openFileLimit)} && exec "$0" "$@"`, process.execPath, ...args],
          { stdio: ["ignore", "pipe", "pipe"] },
        );
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const endpoint = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<number | null> => {
    const code =
      child.exitCode !== null
        ? child.exitCode
        : await new Promise<number | null>((resolve) => {
            child.once("exit", (c) => resolve(c));
            child.kill("SIGTERM");
          });
    await rm(dir, { recursive: true, force: true });
    return code;
  };

  try {
    const healthy = await waitFor(
      async () => {
        if (child.exitCode !== null) return false;
        return (await fetch(`${endpoint}/health`)).status === 200 ? true : undefined;
      },
      startupMs,
      "the node's first milestone (/health 200)",
    );
    if (!healthy) throw new Error(`the node exited with code ${child.exitCode}`);
  } catch (e) {
    if (child.exitCode === null) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw new Error(`${(e as Error).message}; node output: ${output}`);
  }
  return { endpoint, output: () => output, stop, pid: child.pid! };
}
