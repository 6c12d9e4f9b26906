/**
 * Ports for node processes and servers a test starts on a port it names.
 *
 * A port found free by listening on port 0 and closing again is taken from the kernel's
 * ephemeral range, the range every outgoing connection's local port comes from too: with test
 * files running side by side (scripts/run-tests.mjs), another file's clients took such a port
 * before the node it was meant for listened on it (EADDRINUSE). So ports come from below that
 * range, where the kernel never hands one out by itself, and each test file process first claims
 * a block of them by listening on the block's first port for as long as it lives: no other test
 * process uses a block it cannot claim.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";

const BLOCK = 200;
const LOWEST = 10_000;

/** The first port of the kernel's ephemeral range (Linux's default where it cannot be read). */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(start) && start > LOWEST + 2 * BLOCK) return start;
  } catch {
    // not Linux: keep the default
  }
  return 32_768;
}

/** Listens on `port` of 127.0.0.1; the server, or undefined when the port is taken. */
function tryListen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(undefined));
    srv.listen({ port, host: "127.0.0.1" }, () => resolve(srv));
  });
}

let block: Promise<number> | undefined;
let next = 1;

/** This process's block: its first port, held by a listener until the process exits. */
function claimBlock(): Promise<number> {
  block ??= (async () => {
    const blocks = Math.floor((ephemeralStart() - LOWEST) / BLOCK);
    const first = Math.floor(Math.random() * blocks);
    for (let i = 0; i < blocks; i++) {
      const base = LOWEST + ((first + i) % blocks) * BLOCK;
      const claim = await tryListen(base);
      if (claim) {
        claim.unref(); // held, but keeps no test file alive
        return base;
      }
    }
    throw new Error("no block of test ports is free below the ephemeral range");
  })();
  return block;
}

/** A loopback port of this process's block that nothing listens on when asked. */
export async function freePort(): Promise<number> {
  const base = await claimBlock();
  for (let i = 0; i < BLOCK - 1; i++) {
    const port = base + next;
    next = (next % (BLOCK - 1)) + 1;
    const probe = await tryListen(port);
    if (probe) {
      await new Promise((resolve) => probe.close(resolve));
      return port;
    }
  }
  throw new Error(`every port of the block at ${base} is in use`);
}
