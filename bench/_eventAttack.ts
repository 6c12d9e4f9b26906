/**
 * The attack of `npm run bench -- events --attack`, and the honest probes that measure what a
 * newcomer gets of the node meanwhile. Each runs in a child process of its own, so neither the
 * attack's sockets nor the probes' timers share the node's event loop (the node runs in the
 * bench process).
 *
 * The attacker holds, for as long as it runs:
 *
 * - 1,000 idle event-API connections: WebSocket clients of `/api/mqtt/v1` that send CONNECT
 *   (keep-alive 0) and then nothing, from 127.0.0.10–127.0.0.19 (100 each), reopened 50 ms after
 *   the node closes one;
 * - 250 event-API connections that subscribe to `blocks` and stop reading (200 over MQTT/TCP, 50
 *   over WebSocket), from 127.0.0.20–127.0.0.24 (50 each), reopened 200 ms after one is closed;
 * - 256 slow request bodies: 64 sockets from each of 127.0.0.2–127.0.0.5 that send
 *   `POST /api/core/v2/blocks` with `Content-Length: 10000`, `{`, then one space every 2 s,
 *   reopened at once when closed.
 *
 * (Linux routes all of 127.0.0.0/8 to the loopback interface, so any of these can be a source
 * address towards the node on 127.0.0.1.)
 *
 * A connection the node closes at once is never reopened sooner than 50 ms after it was opened,
 * so an attacker refused at once does not spin a core on reconnects. A socket that does not
 * read hears of its closing only when it writes (reading stopped, nothing watches it): each
 * non-reading connection sends a 2-byte PINGREQ every second, so a closed one is noticed within
 * a second or two and then reopened.
 *
 * The probes, from 127.0.0.1: a fresh-connection `GET /api/core/v2/info` every 100 ms, counted
 * as answered when a 200 comes within 2 s; and a few newcomers, `mqtt` clients over WebSocket
 * timed from their first byte to the SUBACK of `blocks`.
 */
import { type ChildProcess, fork } from "node:child_process";
import { request } from "node:http";
import { connect as tcpConnect } from "node:net";
import { fileURLToPath } from "node:url";
import mqtt from "mqtt";
import mqttPacket from "mqtt-packet";
import WebSocket from "ws";

export interface AttackTarget {
  /** The node's HTTP API port (event API over WebSocket at /api/mqtt/v1). */
  httpPort: number;
  /** The node's MQTT-over-TCP port. */
  mqttPort: number;
}

/** What happened to one kind of attacking connection. */
export interface AttackCounts {
  /** Connections the attack holds of this kind. */
  held: number;
  /** Connections opened, reopenings included. */
  opened: number;
  /** Connections whose handshake (TCP, or the WebSocket upgrade) completed. */
  established: number;
  /** Connections closed under the attacker (by the node, or a failed connect). */
  closed: number;
}

export interface AttackReport {
  idle: AttackCounts;
  nonReading: AttackCounts;
  slowBody: AttackCounts;
}

export interface ProbeReport {
  /** `GET /api/core/v2/info` requests sent, and those answered 200 within 2 s. */
  httpSent: number;
  httpOk: number;
  /** The failed ones by what happened: `late` (answered after 2 s), `timeout`, `status <n>`, or the socket error's code. */
  httpFailed: Record<string, number>;
  /** Each newcomer's time to its SUBACK, ms; `null` when it got none within the timeout. */
  newcomerMs: (number | null)[];
}

const IDLE = { perAddress: 100, addresses: range(10, 19), reopenMs: 50 };
const NON_READING = { tcpPerAddress: 40, wsPerAddress: 10, addresses: range(20, 24), reopenMs: 200 };
const SLOW_BODY = { perAddress: 64, addresses: range(2, 5), reopenMs: 0, dripMs: 2_000, contentLength: 10_000 };
/** No connection is reopened sooner than this after it was last opened. */
const MIN_REOPEN_GAP_MS = 50;
/** How often a non-reading connection writes, to learn that it was closed. */
const PING_MS = 1_000;
/** Spacing of the first openings, so the attack ramps up over a few seconds instead of one SYN burst. */
const RAMP_STEP_MS = 2;

const HTTP_PROBE_MS = 100;
const HTTP_DEADLINE_MS = 2_000;
const NEWCOMERS = 5;
const NEWCOMER_FIRST_MS = 2_000;
const NEWCOMER_EVERY_MS = 6_000;
/** A newcomer without its SUBACK this long counts as failed. */
export const NEWCOMER_TIMEOUT_MS = 10_000;

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => `127.0.0.${from + i}`);
}

// ---------------------------------------------------------------- parent side

/** A child of this module, told to stop and report, then gone. */
export class Child<R> {
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;

  constructor(role: string, target: AttackTarget) {
    this.child = fork(fileURLToPath(import.meta.url), [role, String(target.httpPort), String(target.mqttPort)]);
    this.ready = new Promise((resolve, reject) => {
      this.child.once("message", () => resolve());
      this.child.once("exit", (code) => reject(new Error(`${role} exited with ${code} before it was ready`)));
    });
  }

  /** Stops the child and resolves with its report once it has exited (killed after 15 s: a newcomer may take 10). */
  async stop(): Promise<R | undefined> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return undefined;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    const report = new Promise<R | undefined>((resolve) => {
      this.child.once("message", (m: R) => resolve(m));
      this.child.once("exit", () => resolve(undefined));
    });
    this.child.send({ cmd: "stop" });
    const kill = setTimeout(() => this.child.kill("SIGKILL"), NEWCOMER_TIMEOUT_MS + 5_000);
    const r = await report;
    await exited;
    clearTimeout(kill);
    return r;
  }
}

/** Starts the attacker; resolves once each of its connections has been opened once. */
export async function startAttack(target: AttackTarget): Promise<Child<AttackReport>> {
  const child = new Child<AttackReport>("--event-attacker", target);
  await child.ready;
  return child;
}

/** Starts the honest probes (HTTP requests and newcomer subscribers). */
export async function startProbes(target: AttackTarget): Promise<Child<ProbeReport>> {
  const child = new Child<ProbeReport>("--event-prober", target);
  await child.ready;
  return child;
}

// ---------------------------------------------------------------- attacker (child process)

const PINGREQ = mqttPacket.generate({ cmd: "pingreq" });
let clientIds = 0;
const connectPacket = () =>
  mqttPacket.generate({
    cmd: "connect",
    protocolId: "MQTT",
    protocolVersion: 4,
    clean: true,
    clientId: `attack-${process.pid}-${clientIds++}`,
    keepalive: 0,
  });
const subscribeBlocks = () =>
  mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "blocks", qos: 0 }] });

let stopping = false;

/**
 * Holds one connection: `open` makes it and calls `closed` once when it ends (also on a failed
 * connect); it is then reopened after `reopenMs`, never sooner than MIN_REOPEN_GAP_MS after it
 * was last opened.
 */
function hold(
  counts: AttackCounts,
  reopenMs: number,
  open: (established: () => void, closed: () => void) => void,
): void {
  counts.held++;
  const once = () => {
    if (stopping) return;
    const openedAt = Date.now();
    let ended = false;
    counts.opened++;
    open(
      () => counts.established++,
      () => {
        if (ended) return;
        ended = true;
        counts.closed++;
        setTimeout(once, Math.max(reopenMs, MIN_REOPEN_GAP_MS - (Date.now() - openedAt)));
      },
    );
  };
  once();
}

function idleWebSocket(url: string, localAddress: string) {
  return (established: () => void, closed: () => void) => {
    const ws = new WebSocket(url, "mqtt", { localAddress, perMessageDeflate: false });
    ws.on("open", () => {
      established();
      ws.send(connectPacket());
    });
    ws.on("message", () => {}); // the CONNACK: read and dropped
    ws.on("error", () => {});
    ws.on("close", closed);
  };
}

function nonReadingWebSocket(url: string, localAddress: string) {
  return (established: () => void, closed: () => void) => {
    const ws = new WebSocket(url, "mqtt", { localAddress, perMessageDeflate: false });
    let ping: NodeJS.Timeout | undefined;
    ws.on("open", () => {
      established();
      ws.send(connectPacket());
      ws.send(subscribeBlocks());
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      ping = setInterval(() => ws.send(PINGREQ), PING_MS);
    });
    ws.on("error", () => {});
    ws.on("close", () => {
      clearInterval(ping);
      closed();
    });
  };
}

function nonReadingTcp(port: number, localAddress: string) {
  return (established: () => void, closed: () => void) => {
    const socket = tcpConnect({ host: "127.0.0.1", port, localAddress });
    let ping: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      established();
      socket.write(connectPacket());
      socket.write(subscribeBlocks());
      socket.pause();
      ping = setInterval(() => socket.write(PINGREQ), PING_MS);
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(ping);
      closed();
    });
  };
}

function slowBody(port: number, localAddress: string) {
  const head =
    `POST /api/core/v2/blocks HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${SLOW_BODY.contentLength}\r\n\r\n{`;
  return (established: () => void, closed: () => void) => {
    const socket = tcpConnect({ host: "127.0.0.1", port, localAddress });
    let drip: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      established();
      socket.write(head);
      drip = setInterval(() => socket.write(" "), SLOW_BODY.dripMs);
    });
    socket.on("data", () => {}); // an answer (a 400 for a trickled body): read and dropped
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(drip);
      closed();
    });
  };
}

async function attacker(target: AttackTarget): Promise<void> {
  const counts = (): AttackCounts => ({ held: 0, opened: 0, established: 0, closed: 0 });
  const report: AttackReport = { idle: counts(), nonReading: counts(), slowBody: counts() };
  const url = `ws://127.0.0.1:${target.httpPort}/api/mqtt/v1`;
  const starts: (() => void)[][] = [[], [], []];
  for (const a of IDLE.addresses)
    for (let i = 0; i < IDLE.perAddress; i++)
      starts[0]!.push(() => hold(report.idle, IDLE.reopenMs, idleWebSocket(url, a)));
  for (const a of NON_READING.addresses) {
    for (let i = 0; i < NON_READING.tcpPerAddress; i++)
      starts[1]!.push(() => hold(report.nonReading, NON_READING.reopenMs, nonReadingTcp(target.mqttPort, a)));
    for (let i = 0; i < NON_READING.wsPerAddress; i++)
      starts[1]!.push(() => hold(report.nonReading, NON_READING.reopenMs, nonReadingWebSocket(url, a)));
  }
  for (const a of SLOW_BODY.addresses)
    for (let i = 0; i < SLOW_BODY.perAddress; i++)
      starts[2]!.push(() => hold(report.slowBody, SLOW_BODY.reopenMs, slowBody(target.httpPort, a)));
  process.on("message", (m: { cmd: string }) => {
    if (m.cmd !== "stop") return;
    stopping = true;
    // the sockets go with the process
    process.send!(report, () => process.exit(0));
  });
  // the three kinds interleaved, one opening every RAMP_STEP_MS
  const order: (() => void)[] = [];
  for (let i = 0; order.length < starts.flat().length; i++) for (const s of starts) if (i < s.length) order.push(s[i]!);
  for (const start of order) {
    if (stopping) return;
    start();
    await new Promise((r) => setTimeout(r, RAMP_STEP_MS));
  }
  process.send!({ ready: true });
}

// ---------------------------------------------------------------- probes (child process)

/** One fresh-connection GET of /api/core/v2/info: "ok" when a 200 came within the deadline, else what happened. */
function probeInfo(port: number): Promise<string> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: string) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      req.destroy();
      resolve(outcome);
    };
    const req = request(
      { host: "127.0.0.1", port, localAddress: "127.0.0.1", path: "/api/core/v2/info", agent: false },
      (res) => {
        res.resume();
        finish(res.statusCode === 200 ? "ok" : `status ${res.statusCode}`);
      },
    );
    let connected = false;
    req.once("socket", (s) =>
      s.once("connect", () => {
        connected = true;
      }),
    );
    const deadline = setTimeout(
      () => finish(connected ? "timeout, connected" : "timeout, not connected"),
      HTTP_DEADLINE_MS,
    );
    req.once("error", (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
    req.end();
  });
}

/** A fresh `mqtt` client over WebSocket: ms from its start to the SUBACK of `blocks`, or null. */
async function newcomer(port: number): Promise<number | null> {
  const start = performance.now();
  let client: mqtt.MqttClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), NEWCOMER_TIMEOUT_MS);
  });
  const attempt = (async () => {
    client = await mqtt.connectAsync(
      `ws://127.0.0.1:${port}/api/mqtt/v1`,
      {
        protocolVersion: 4,
        keepalive: 0,
        clean: true,
        reconnectPeriod: 0,
        connectTimeout: NEWCOMER_TIMEOUT_MS,
        wsOptions: { localAddress: "127.0.0.1" },
      },
      false,
    );
    const granted = await client.subscribeAsync("blocks");
    return granted.every((g) => g.qos !== 128) ? performance.now() - start : null;
  })().catch(() => null);
  const ms = await Promise.race([attempt, timeout]);
  clearTimeout(timer);
  client?.on("error", () => {});
  client?.end(true);
  return ms;
}

async function prober(target: AttackTarget): Promise<void> {
  const report: ProbeReport = { httpSent: 0, httpOk: 0, httpFailed: {}, newcomerMs: [] };
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    return p;
  };
  const http = setInterval(() => {
    report.httpSent++;
    void track(
      probeInfo(target.httpPort).then((outcome) => {
        if (outcome === "ok") report.httpOk++;
        else report.httpFailed[outcome] = (report.httpFailed[outcome] ?? 0) + 1;
      }),
    );
  }, HTTP_PROBE_MS);
  let newcomers = 0;
  let nextNewcomer: NodeJS.Timeout | undefined;
  const tryNewcomer = () => {
    newcomers++;
    void track(newcomer(target.httpPort).then((ms) => report.newcomerMs.push(ms)));
    if (newcomers < NEWCOMERS) nextNewcomer = setTimeout(tryNewcomer, NEWCOMER_EVERY_MS);
  };
  nextNewcomer = setTimeout(tryNewcomer, NEWCOMER_FIRST_MS);
  process.on("message", async (m: { cmd: string }) => {
    if (m.cmd !== "stop") return;
    clearInterval(http);
    clearTimeout(nextNewcomer);
    // what was sent is counted once it is answered or out of time
    await Promise.all(inFlight);
    process.send!(report, () => process.exit(0));
  });
  process.send!({ ready: true });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = { httpPort: Number(process.argv[3]), mqttPort: Number(process.argv[4]) };
  if (process.argv[2] === "--event-attacker") await attacker(target);
  if (process.argv[2] === "--event-prober") await prober(target);
}
