import { request } from "node:http";
import { type Socket, connect as tcpConnect } from "node:net";
import mqttPacket, { type Packet } from "mqtt-packet";
import { waitFor } from "../../helpers/waitFor.js";

/**
 * What the siege tests share: an honest client that keeps asking the API from its own address,
 * a check that milestones stay on cadence, the node's heap as it reports it, and a raw MQTT
 * client bound to a chosen local address (attackers use 127.0.0.2–127.0.0.5, the honest side
 * 127.0.0.1; Linux routes all of 127.0.0.0/8 to the loopback interface).
 */

/** The addresses attackers connect from; the honest client keeps 127.0.0.1. */
export const ATTACKER_ADDRESSES = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"] as const;
export const HONEST_ADDRESS = "127.0.0.1";

/** How long an honest request may take to count as answered. */
export const ANSWER_MS = 2_000;

export interface ProbeResult {
  total: number;
  /** Answered 200 within ANSWER_MS. */
  answered: number;
  /** answered / total, in percent. */
  percent: number;
  /** Why the others were not answered, by reason (status, error code or "timeout"), with a count. */
  failures: Record<string, number>;
}

/** One `GET path` on a fresh connection from `localAddress`; resolves to "200" or why not. */
export function probeOnce(
  endpoint: string,
  path = "/api/core/v2/info",
  localAddress = HONEST_ADDRESS,
): Promise<string> {
  const url = new URL(path, endpoint);
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "GET", agent: false, localAddress },
      (res) => {
        res.on("data", () => {});
        res.on("end", () => finish(String(res.statusCode)));
        res.on("error", (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    const timer = setTimeout(() => finish("timeout"), ANSWER_MS);
    req.end();
  });
}

/**
 * An honest client: `GET /api/core/v2/info` on a fresh connection from 127.0.0.1, one after the
 * other with `gapMs` between them, for `durationMs` or until `durationMs()` says to stop.
 */
export async function probeHonestly(
  endpoint: string,
  durationMs: number | (() => boolean),
  gapMs = 100,
): Promise<ProbeResult> {
  const deadline = typeof durationMs === "number" ? Date.now() + durationMs : 0;
  const goOn = typeof durationMs === "number" ? () => Date.now() < deadline : durationMs;
  const result: ProbeResult = { total: 0, answered: 0, percent: 0, failures: {} };
  while (goOn()) {
    const outcome = await probeOnce(endpoint);
    result.total++;
    if (outcome === "200") result.answered++;
    else result.failures[outcome] = (result.failures[outcome] ?? 0) + 1;
    await new Promise((r) => setTimeout(r, gapMs));
  }
  result.percent = result.total === 0 ? 0 : (100 * result.answered) / result.total;
  return result;
}

/** A readable line for an assertion message. */
export function describeProbes(r: ProbeResult): string {
  return `${r.answered} of ${r.total} honest requests answered within ${ANSWER_MS} ms (${r.percent.toFixed(1)} %, need 95 %); failures: ${JSON.stringify(r.failures)}`;
}

/** One `GET path` as JSON on a fresh connection from 127.0.0.1; undefined unless 200 within ANSWER_MS. */
function getJsonOnce<T>(endpoint: string, path: string): Promise<T | undefined> {
  const url = new URL(path, endpoint);
  return new Promise((resolve) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, agent: false, localAddress: HONEST_ADDRESS },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => {
          clearTimeout(timer);
          resolve(res.statusCode === 200 ? (JSON.parse(body) as T) : undefined);
        });
        res.on("error", () => resolve(undefined));
      },
    );
    req.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve(undefined);
    }, ANSWER_MS);
    req.end();
  });
}

/** GET `path` as JSON on a fresh connection from 127.0.0.1, retried until it answers or `ms` pass. */
export async function getJson<T>(endpoint: string, path: string, ms = 10_000): Promise<T> {
  return waitFor(() => getJsonOnce<T>(endpoint, path), ms, `an answer to GET ${path}`, 100);
}

/** The confirmed milestone index the node reports. */
export async function confirmedIndex(endpoint: string, ms = 10_000): Promise<number> {
  const info = await getJson<{ status: { confirmedMilestone: { index: number } } }>(endpoint, "/api/core/v2/info", ms);
  return info.status.confirmedMilestone.index;
}

/** The node's V8 heap in use, in MiB, as its dashboard route reports it. */
export async function heapMiB(endpoint: string, ms = 10_000): Promise<number> {
  const node = await getJson<{ memory: { heapUsed: number } }>(endpoint, "/api/dashboard/v1/node", ms);
  return node.memory.heapUsed / 2 ** 20;
}

/** The default milestone interval is 1 s: at least this many milestones per second must be confirmed. */
export const CADENCE = 0.7;

/**
 * Reads the confirmed milestone index now; `check()` reads it again and tells whether it advanced
 * by at least CADENCE per elapsed second in between (not ok, too, when it cannot be read).
 */
export async function startCadence(endpoint: string): Promise<{ check(): Promise<{ ok: boolean; text: string }> }> {
  const from = await confirmedIndex(endpoint);
  const started = Date.now();
  return {
    async check() {
      let to: number;
      try {
        to = await confirmedIndex(endpoint);
      } catch (e) {
        return {
          ok: false,
          text: `the confirmed milestone could not be read after the attack: ${(e as Error).message}`,
        };
      }
      const seconds = (Date.now() - started) / 1000;
      const ok = to - from >= CADENCE * seconds;
      return {
        ok,
        text: `confirmed milestone ${from} → ${to} in ${seconds.toFixed(1)} s (need ≥ ${(CADENCE * seconds).toFixed(1)} milestones)`,
      };
    },
  };
}

/** A raw MQTT-over-TCP client bound to a local address, reading the packets the node sends. */
export interface RawMqtt {
  socket: Socket;
  /** When the socket was connected. */
  openedAt: number;
  /** Resolves with the time the node (or anything) closed the socket. */
  closed: Promise<number>;
  packets: Packet[];
  /** Waits for the next packet of `cmd` (or rejects if the socket closes first or `ms` pass). */
  next(cmd: Packet["cmd"], ms?: number): Promise<Packet>;
  send(packet: Parameters<typeof mqttPacket.generate>[0]): void;
}

export async function rawMqtt(port: number, localAddress: string): Promise<RawMqtt> {
  const socket = tcpConnect({ port, host: "127.0.0.1", localAddress });
  socket.on("error", () => {});
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("close", () => reject(new Error(`connection from ${localAddress} closed before it opened`)));
  });
  const packets: Packet[] = [];
  const waiting: { cmd: Packet["cmd"]; resolve(p: Packet): void }[] = [];
  const parser = mqttPacket.parser({ protocolVersion: 4 });
  parser.on("packet", (p: Packet) => {
    const i = waiting.findIndex((w) => w.cmd === p.cmd);
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(p);
    else if (p.cmd !== "publish") packets.push(p);
  });
  parser.on("error", () => socket.destroy());
  socket.on("data", (d: Buffer) => parser.parse(d));
  return {
    socket,
    openedAt: Date.now(),
    closed,
    packets,
    next(cmd, ms = 10_000) {
      const i = packets.findIndex((p) => p.cmd === cmd);
      if (i >= 0) return Promise.resolve(packets.splice(i, 1)[0]!);
      return new Promise<Packet>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${cmd} within ${ms} ms`)), ms);
        waiting.push({
          cmd,
          resolve: (p) => {
            clearTimeout(timer);
            resolve(p);
          },
        });
        void closed.then(() => {
          clearTimeout(timer);
          reject(new Error(`closed before a ${cmd}`));
        });
      });
    },
    send(packet) {
      if (!socket.destroyed) socket.write(mqttPacket.generate(packet));
    },
  };
}

/** A CONNECT packet of MQTT 3.1.1 with a clean session and no keep-alive. */
export function connectPacket(clientId: string): Parameters<typeof mqttPacket.generate>[0] {
  return { cmd: "connect", protocolId: "MQTT", protocolVersion: 4, clean: true, clientId, keepalive: 0 };
}

/** Opens a raw client from `localAddress` and CONNECTs; undefined when the node refuses or closes it. */
export async function connectedMqtt(
  port: number,
  localAddress: string,
  clientId: string,
): Promise<RawMqtt | undefined> {
  const client = await rawMqtt(port, localAddress).catch(() => undefined);
  if (!client) return undefined;
  client.send(connectPacket(clientId));
  const ack = await client.next("connack", 10_000).catch(() => undefined);
  if (!ack) {
    client.socket.destroy();
    return undefined;
  }
  return client;
}

/** Runs `fn` over `items` with at most `concurrency` at a time. */
export async function inBatches<T, R>(
  items: T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!, i);
      }
    }),
  );
  return results;
}

/** Destroys every socket given (for `after`). */
export function destroyAll(sockets: Iterable<{ destroy(): void }>): void {
  for (const s of sockets) s.destroy();
}
