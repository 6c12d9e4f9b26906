/**
 * `npm run bench -- events [--subscribers N] [--rate R] [--seconds S] [--rounds K] [--attack]`: the event
 * API under load. A node opened in this process (LevelDB on a temporary dir, no PoW minimum,
 * milestones every second) serves HTTP and MQTT over WebSocket on loopback; a worker thread of
 * this process submits tagged-data blocks as JSON (the node selects parents) at R blocks/s
 * (default 2,000, the order of the ledger throughput `bench core` reports) for S seconds per
 * phase (the load of bench/_blockLoad.ts); a child process holds N WebSocket subscribers (default 100) of `blocks` and
 * `block-metadata/referenced`.
 *
 * Phases alternate K times (default 2): without subscribers (the same-run baseline: the
 * subscribers are connected but hold no subscription) and with them. Figures: blocks accepted
 * per second in each phase, and their ratio (target >= 0.9); messages delivered per second to
 * all subscribers; delivery latency of `blocks` from the block's submission to its receipt by
 * the first and the last subscriber, p50 and p99 (target p99 < 100 ms; <= 200 ms at 1,000
 * subscribers, issue 26). And CPU time, which other work on the machine does not skew as it
 * does rates: the node's main thread busy in each phase, and the delivery's CPU per 1,000
 * messages in the node's main thread (beyond what intake took per block without subscribers)
 * and in the subscribers' process. Then 8 KB blocks flow at 1,000/s for a phase without and a
 * phase with one more subscriber of `blocks` that stops reading: the node's RSS may grow by its
 * queue bound (8 MiB) more at most, and the subscriber is dropped.
 *
 * With `--attack`, all of this runs while an attacker (bench/_eventAttack.ts, a child process)
 * holds 1,000 idle event-API connections, 250 that subscribe to `blocks` and stop reading (200 of
 * them over MQTT/TCP, on the node's TCP listener) and 256 slow request bodies, from addresses
 * 127.0.0.2–127.0.0.24, reopening what the node closes. More figures: the peak RSS of this
 * process (the node's) under attack (target <= 1,024 MB); the throughput ratio above, now under
 * attack (target >= 0.8); the worst time of a few newcomer subscribers from 127.0.0.1 to their
 * SUBACK (target <= 2,000 ms); and the share of fresh-connection `GET /api/core/v2/info` from
 * 127.0.0.1, one every 100 ms, answered 200 within 2 s (target >= 95 %). The honest subscribers
 * connect before the attack starts; all are from 127.0.0.1 (100 by default: within the event API's
 * per-address cap of 256; for more, the bench raises its caps as --mqtt-max-clients-per-address
 * and --mqtt-max-clients would).
 *
 * The subscribers read WebSocket frames and MQTT packets by hand (frame header, fixed header,
 * topic) instead of client libraries: at millions of messages per second a full client would
 * measure itself on these two cores rather than the node.
 */

import { type ChildProcess, fork } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import type { Socket } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import mqttPacket from "mqtt-packet";
import WebSocket from "ws";
import { eventApiOf } from "../src/api/mqtt/eventApi.js";
import { buildServer, defaultApiServerOptions } from "../src/api/server.js";
import { LedgerNode } from "../src/node/node.js";
import { defaultNodeOptions } from "../src/node/options.js";
import { closeMinerPool } from "../src/pow/index.js";
import { argN, hasFlag } from "./_args.js";
import { benchNodeOptions } from "./_benchNode.js";
import { load } from "./_blockLoad.js";
import {
  type AttackReport,
  type Child,
  NEWCOMER_TIMEOUT_MS,
  type ProbeReport,
  startAttack,
  startProbes,
} from "./_eventAttack.js";
import { type BenchRow, printFigures, printTable } from "./_table.js";

const args = process.argv.slice(2);
const SUBSCRIBERS = argN("--subscribers", 100);
const RATE = argN("--rate", 2000);
const SECONDS = argN("--seconds", 5);
const ROUNDS = argN("--rounds", 2);
const ATTACK = hasFlag("--attack");
/** Event API clients of 127.0.0.1 beyond the subscribers: the one that stops reading, the newcomers under attack. */
const HEADROOM = 16;
/** Blocks/s of 8 KB while one subscriber stops reading: 40 MB in a 5 s phase, past the kernel's socket buffers. */
const STALL_RATE = 1000;
const TOPICS = ["blocks", "block-metadata/referenced"];
/** The topic an honest subscriber holds under attack between phases: one message a second. */
const QUIET_TOPIC = "milestone-info/confirmed";
/** Subscribers' keep-alive: the node closes a connection silent for 1.5 times it (MQTT 3.1.1 §3.1.2.10). */
const KEEP_ALIVE_S = 30;
const PINGREQ = mqttPacket.generate({ cmd: "pingreq" });
const now = () => performance.timeOrigin + performance.now();
/** The node's event loop under attack: what makes an honest request late. */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });

// ---------------------------------------------------------------- subscribers (child process)

/** What the child reports: messages received, and receipt times of `blocks` by sequence number. */
interface SubscriberReport {
  messages: number;
  /** CPU time of the subscribers' process since the previous report, user and system, in s. */
  cpuSeconds: number;
  systemSeconds: number;
  first: [number, number][];
  last: [number, number][];
}

/** ws's frame builder (not in its type declarations): a client's frames are masked (RFC 6455 §5.3). */
const { Sender } = WebSocket as unknown as {
  Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] };
};
const CLIENT_FRAME = { fin: true, opcode: 0x02, mask: true, readOnly: false, rsv1: false };
/** RFC 6455 §1.3: what the server's Sec-WebSocket-Accept hashes with the key. */
const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** The length of the MQTT packet at `offset` (fixed header and body), -1 while its fixed header is cut off at `end`. */
function packetLength(buf: Buffer, offset: number, end: number): number {
  let length = 0;
  let mul = 1;
  for (let i = offset + 1; i < end && i < offset + 5; i++) {
    length += (buf[i]! & 0x7f) * mul;
    mul *= 128;
    if ((buf[i]! & 0x80) === 0) return i + 1 - offset + length;
  }
  return -1;
}

/**
 * A WebSocket MQTT subscriber that reads the frames and packets by hand and counts them: after
 * the opening handshake (an HTTP upgrade), the server's frames (RFC 6455 §5.2, unmasked) are
 * followed by offsets in the bytes as they come from the socket, so nothing is copied or
 * allocated per frame or packet but a packet cut across two reads. (`ws` reassembled every frame
 * that two socket reads cut, copying it: at 1,000 subscribers, most of them, and a third of this
 * process's time.)
 */
class Subscriber {
  private socket: Socket | undefined;
  /** The frame header being read, then the payload bytes of its frame still to come. */
  private readonly header = Buffer.alloc(14);
  private headerLength = 0;
  private payloadLeft = 0;
  private opcode = 0;
  /** An MQTT packet cut across frames or reads. */
  private pending: Buffer = NOTHING;
  messages = 0;
  /** seq → receipt time, when this subscriber samples latency. */
  readonly times = new Map<number, number>();
  readonly ready: Promise<void>;

  private pinger: NodeJS.Timeout | undefined;

  constructor(
    url: string,
    readonly id: number,
    private readonly sample: boolean,
    private readonly holdQuietTopic: boolean,
  ) {
    this.ready = new Promise((resolve, reject) => {
      const u = new URL(url);
      const key = randomBytes(16).toString("base64");
      const req = request({
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-key": key,
          "sec-websocket-version": "13",
          "sec-websocket-protocol": "mqtt",
        },
      });
      req.once("upgrade", (res, socket: Socket, head: Buffer) => {
        // kept for the socket's life: an error after the opening (the node reset it) is no crash
        socket.on("error", reject);
        const accept = createHash("sha1")
          .update(key + WEBSOCKET_GUID)
          .digest("base64");
        if (res.headers["sec-websocket-accept"] !== accept) {
          socket.destroy();
          reject(new Error("a wrong Sec-WebSocket-Accept"));
          return;
        }
        this.socket = socket;
        socket.on("data", (chunk: Buffer) => this.read(chunk));
        if (head.length > 0) this.read(head);
        this.send(
          mqttPacket.generate({
            cmd: "connect",
            protocolId: "MQTT",
            protocolVersion: 4,
            clean: true,
            clientId: `bench-${id}`,
            keepalive: KEEP_ALIVE_S,
          }),
        );
        // under attack an honest subscriber holds a quiet topic through the baseline phase too: a
        // connection holding no subscription is what makes room for newcomers (docs/decisions.md, Fair slots)
        if (this.holdQuietTopic) this.subscribe([QUIET_TOPIC], 0xffff);
        this.pinger = setInterval(() => this.send(PINGREQ), (KEEP_ALIVE_S * 1000) / 2);
        resolve();
      });
      // refused before the upgrade (no room for it, a 503 or 403)
      req.once("response", (res) => {
        res.resume();
        reject(new Error(`HTTP ${res.statusCode}`));
      });
      req.once("error", reject);
      req.end();
    });
  }

  subscribe(topics: string[], messageId: number): void {
    this.send(
      mqttPacket.generate({ cmd: "subscribe", messageId, subscriptions: topics.map((topic) => ({ topic, qos: 0 })) }),
    );
  }

  unsubscribe(topics: string[], messageId: number): void {
    this.send(mqttPacket.generate({ cmd: "unsubscribe", messageId, unsubscriptions: topics }));
  }

  close(): void {
    clearInterval(this.pinger);
    this.socket?.destroy();
  }

  /** One MQTT packet as one masked binary frame. */
  private send(packet: Buffer): void {
    this.socket?.write(Buffer.concat(Sender.frame(packet, CLIENT_FRAME)));
  }

  /** The server's frames: the payloads of binary frames (and their continuations) are MQTT bytes. */
  private read(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.payloadLeft === 0) {
        // the header: 2 bytes, then 2 or 8 of extended payload length (no masking key from a server)
        this.header[this.headerLength++] = chunk[at++]!;
        if (this.headerLength < 2) continue;
        const short = this.header[1]! & 0x7f;
        const size = short === 126 ? 4 : short === 127 ? 10 : 2;
        if (this.headerLength < size) continue;
        this.opcode = this.header[0]! & 0x0f;
        this.payloadLeft =
          short === 126 ? this.header.readUInt16BE(2) : short === 127 ? Number(this.header.readBigUInt64BE(2)) : short;
        this.headerLength = 0;
        continue;
      }
      const end = at + Math.min(this.payloadLeft, chunk.length - at);
      if (this.opcode === 0x2 || this.opcode === 0x0) this.receive(chunk, at, end);
      this.payloadLeft -= end - at;
      at = end;
    }
  }

  /** Counts the PUBLISH packets of `chunk[from, end)`, joining only a packet cut across two of them. */
  private receive(chunk: Buffer, from: number, end: number): void {
    const at = now();
    let offset = from;
    while (this.pending.length > 0 && offset < end) {
      const total = packetLength(this.pending, 0, this.pending.length);
      const take = Math.min(total < 0 ? 1 : total - this.pending.length, end - offset);
      this.pending = Buffer.concat([this.pending, chunk.subarray(offset, offset + take)]);
      offset += take;
      if (total > 0 && this.pending.length === total) {
        this.count(this.pending, 0, at);
        this.pending = NOTHING;
      }
    }
    for (;;) {
      const total = packetLength(chunk, offset, end);
      if (total < 0 || offset + total > end) break;
      this.count(chunk, offset, at);
      offset += total;
    }
    if (offset < end) this.pending = Buffer.from(chunk.subarray(offset, end));
  }

  /** Counts the packet at `offset` if it is a PUBLISH; of `blocks`, notes its receipt time by sequence number. */
  private count(buf: Buffer, offset: number, at: number): void {
    if (buf[offset]! >> 4 !== 3) return;
    this.messages++;
    if (!this.sample) return;
    let i = offset + 1;
    while (buf[i]! & 0x80) i++;
    const start = i + 1;
    const topicLength = buf.readUInt16BE(start);
    if (topicLength !== 6) return;
    // `blocks`: the block's bytes; its tagged-data tag holds the sequence number
    const block = start + 2 + topicLength;
    const payload = block + 2 + 32 * buf[block + 1]! + 4;
    if (buf.readUInt32LE(payload) === 5 && buf[payload + 4]! >= 4) this.times.set(buf.readUInt32LE(payload + 5), at);
  }
}

const NOTHING = Buffer.alloc(0);

async function subscriberProcess(url: string, n: number, quiet: boolean): Promise<void> {
  // a few at a time: connections not yet upgraded count against the API's per-address cap
  // the batches. A subscriber the node refuses (its socket reset) is counted as failed, not a crash
  const subs: Subscriber[] = [];
  let failed = 0;
  for (let i = 0; i < n; i += 16) {
    const batch = Array.from(
      { length: Math.min(16, n - i) },
      (_, k) => new Subscriber(url, i + k, i + k === 0 || i + k === n - 1, quiet),
    );
    const opened = await Promise.allSettled(batch.map((s) => s.ready));
    batch.forEach((s, k) => {
      if (opened[k]!.status === "fulfilled") subs.push(s);
      else {
        failed++;
        s.close();
      }
    });
  }
  let messageId = 1;
  let cpuFrom = process.cpuUsage();
  process.on("message", (m: { cmd: string }) => {
    if (m.cmd === "subscribe") for (const s of subs) s.subscribe(TOPICS, messageId++);
    if (m.cmd === "unsubscribe") for (const s of subs) s.unsubscribe(TOPICS, messageId++);
    if (m.cmd === "report") {
      const cpu = process.cpuUsage(cpuFrom);
      cpuFrom = process.cpuUsage();
      const report: SubscriberReport = {
        messages: subs.reduce((sum, s) => sum + s.messages, 0),
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        systemSeconds: cpu.system / 1e6,
        first: [...(subs[0]?.times ?? [])],
        last: [...(subs.at(-1)?.times ?? [])],
      };
      for (const s of subs) {
        s.messages = 0;
        s.times.clear();
      }
      process.send!(report);
    }
    if (m.cmd === "exit") {
      for (const s of subs) s.close();
      process.exit(0);
    }
    process.send!({ done: m.cmd });
  });
  process.send!({ done: "ready", failed });
}

function ask<T>(child: ChildProcess, cmd: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: T & { done?: string }) => {
      if (cmd === "report" ? m.done === undefined : m.done === cmd) {
        child.off("message", on);
        resolve(m);
      }
    };
    child.on("message", on);
    child.send({ cmd });
  });
}

// ---------------------------------------------------------------- main

const percentile = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const median = (xs: number[]) => percentile(xs, 50);

/**
 * CPU time of this process's main thread, user and system, in s (Linux's /proc: the node's
 * other threads, the block load's worker among them, are not counted); NaN elsewhere.
 */
function mainThreadCpuSeconds(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    // the fields after the command's closing parenthesis: utime and stime are the 12th and 13th
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "ledger-node-bench-events-"));
  const options = benchNodeOptions(dir, {
    // all honest subscribers come from 127.0.0.1: past the per-address cap (256) an operator load
    // testing from one address raises it (and the total) with --mqtt-max-clients-per-address and
    // --mqtt-max-clients, as here; otherwise the subscribers past it close one another for room
    // and the address is then refused as a churner (src/api/connectionBudget.ts)
    mqttMaxClients: Math.max(defaultNodeOptions.mqttMaxClients, SUBSCRIBERS + HEADROOM),
    mqttMaxClientsPerAddress: Math.max(defaultNodeOptions.mqttMaxClientsPerAddress, SUBSCRIBERS + HEADROOM),
  });
  const node = await LedgerNode.open(options);
  // the event API's options as src/cli/main.ts passes them from the node's options
  const app = buildServer(node, "silent", {
    ...defaultApiServerOptions,
    eventApi: {
      maxClients: options.mqttMaxClients,
      maxClientsPerAddress: options.mqttMaxClientsPerAddress,
      maxTotalSubscriptions: options.mqttMaxSubscriptions,
      maxTotalQueuedBytes: options.mqttMaxQueuedMiB * 1024 * 1024,
      maxLagMs: options.mqttMaxLagSeconds * 1000,
    },
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  node.start();
  const url = `ws://127.0.0.1:${port}/api/mqtt/v1`;
  const child = fork(fileURLToPath(import.meta.url), ["--child", url, String(SUBSCRIBERS), String(ATTACK)]);
  const problems: string[] = [];
  const rates = { without: [] as number[], with: [] as number[] };
  const latencies: number[] = [];
  const roundTrips = { without: [] as number[], with: [] as number[] };
  let delivered = 0;
  let deliveredSeconds = 0;
  // CPU seconds by phase: the node's main thread, the subscribers' process (system share apart)
  const cpuPhase = () => ({ main: 0, seconds: 0, blocks: 0, subscribers: 0, subscribersSystem: 0, messages: 0 });
  const cpu = { without: cpuPhase(), with: cpuPhase() };
  let stalled = { rssGrowthMiB: 0, dropped: false };
  // the attack, when asked for: from after the honest subscribers connected to the end of the run
  let attacker: Child<AttackReport> | undefined;
  let prober: Child<ProbeReport> | undefined;
  let attackReport: AttackReport | undefined;
  let probeReport: ProbeReport | undefined;
  let attackRss = 0;
  let rssSampler: NodeJS.Timeout | undefined;
  // every connection of the attacker's addresses, to see whether the node closes each once the
  // attacker is gone (one it leaves open would keep app.close() waiting)
  const attackSockets = new Set<Socket>();
  const trackAttack = (socket: Socket) => {
    if (socket.remoteAddress === "127.0.0.1") return;
    attackSockets.add(socket);
    socket.once("close", () => attackSockets.delete(socket));
  };
  const upgraded = new WeakSet<Socket>();
  let leftOpen = "";
  const endAttack = async () => {
    clearInterval(rssSampler);
    probeReport ??= await prober?.stop();
    const stopped = attacker !== undefined;
    attackReport ??= await attacker?.stop();
    prober = undefined;
    attacker = undefined;
    if (!stopped) return;
    for (let waited = 0; attackSockets.size > 0 && waited < 3_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100));
    const left = [...attackSockets];
    const http = left.filter((x) => x.localPort === port);
    const ws = http.filter((x) => upgraded.has(x)).length;
    leftOpen = `${left.length} (${http.length - ws} HTTP, ${ws} upgraded to WebSocket, ${left.length - http.length} MQTT/TCP)`;
    for (const socket of attackSockets) socket.destroy();
  };
  try {
    const { failed } = await new Promise<{ failed: number }>((resolve, reject) => {
      child.once("message", resolve);
      child.once("exit", (code) => reject(new Error(`the subscribers' process exited (${code})`)));
    });
    if (failed > 0) problems.push(`${failed} of ${SUBSCRIBERS} subscribers could not connect`);
    if (ATTACK) {
      const tcp = await eventApiOf(app)!.listenTcp("127.0.0.1", 0);
      app.server.on("connection", trackAttack);
      app.server.on("upgrade", (_request, socket: Socket) => upgraded.add(socket));
      tcp.on("connection", trackAttack);
      const target = { httpPort: port, mqttPort: (tcp.address() as { port: number }).port };
      attackRss = process.memoryUsage().rss;
      rssSampler = setInterval(() => {
        attackRss = Math.max(attackRss, process.memoryUsage().rss);
      }, 100);
      loopDelay.enable();
      attacker = await startAttack(target);
      prober = await startProbes(target);
      await new Promise((r) => setTimeout(r, 1_000)); // the first reopenings
    }
    let seq = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const withSubs of [false, true]) {
        if (withSubs) await ask(child, "subscribe");
        await ask<SubscriberReport>(child, "report"); // reset the counts
        const cpuFrom = mainThreadCpuSeconds();
        const r = await load({ port, rate: RATE, seconds: SECONDS, firstSeq: seq, dataBytes: 0 });
        await new Promise((res) => setTimeout(res, 300)); // the last deliveries
        const report = await ask<SubscriberReport>(child, "report");
        const phase = withSubs ? cpu.with : cpu.without;
        phase.main += mainThreadCpuSeconds() - cpuFrom;
        phase.seconds += r.seconds + 0.3;
        phase.blocks += r.accepted;
        phase.subscribers += report.cpuSeconds;
        phase.subscribersSystem += report.systemSeconds;
        phase.messages += report.messages;
        if (r.failed > 0) problems.push(`${r.failed} submissions failed`);
        (withSubs ? rates.with : rates.without).push(r.accepted / r.seconds);
        (withSubs ? roundTrips.with : roundTrips.without).push(...r.roundTrips);
        if (withSubs) {
          delivered += report.messages;
          deliveredSeconds += r.seconds;
          for (const [s, at] of [...report.first, ...report.last]) {
            const sent = r.sentAt[s - seq];
            if (sent !== undefined) latencies.push(at - sent);
          }
          if (report.first.length < r.accepted * 0.99)
            problems.push(`the first subscriber got ${report.first.length} of ${r.accepted} blocks`);
          await ask(child, "unsubscribe");
        } else if (report.messages > (ATTACK ? SUBSCRIBERS * (SECONDS + 2) : 0)) {
          // under attack the subscribers hold the quiet topic: about one message a second each
          problems.push(`${report.messages} messages without subscriptions`);
        }
        seq += Math.round(RATE * SECONDS);
      }
    }

    // one subscriber of `blocks` that stops reading, while 8 KB blocks flow: the node's RSS
    // growth against the same load without it
    const broker = eventApiOf(app)!.broker;
    const rssGrowth = async () => {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 50);
      await load({ port, rate: STALL_RATE, seconds: SECONDS, firstSeq: seq, dataBytes: 8_000 });
      seq += STALL_RATE * SECONDS;
      clearInterval(sampler);
      return (peak - before) / 2 ** 20;
    };
    const withoutStuck = await rssGrowth();
    const droppedBefore = broker.stats.dropped.slow;
    const stuck = new WebSocket(url, "mqtt");
    stuck.on("error", () => {});
    // closed instead of opened: the node had no slot for it (under attack)
    await new Promise((resolve) => {
      stuck.once("open", resolve);
      stuck.once("close", resolve);
    });
    stuck.send(
      mqttPacket.generate({
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: 4,
        clean: true,
        clientId: "stuck",
        keepalive: 0,
      }),
    );
    stuck.send(mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "blocks", qos: 0 }] }));
    await new Promise((r) => setTimeout(r, 200));
    (stuck as unknown as { _socket: { pause(): void } | null })._socket?.pause();
    const withStuck = await rssGrowth();
    stalled = { rssGrowthMiB: withStuck - withoutStuck, dropped: broker.stats.dropped.slow > droppedBefore };
    stuck.terminate();
    await endAttack();
  } finally {
    await endAttack();
    // the subscribers' process exits on its own (writing its CPU profile under --cpu-prof), or is killed
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ cmd: "exit" });
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    }
    child.kill();
    await app.close();
    await node.close();
    await closeMinerPool();
    await rm(dir, { recursive: true, force: true });
  }

  const without = median(rates.without);
  const withSubs = median(rates.with);
  const throughputRatio = withSubs / without;
  const deliveredPerSec = delivered / deliveredSeconds;
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  // the delivery's share of the main thread: its CPU with subscribers less what intake took per
  // block without them, per 1,000 messages delivered (CPU time: what other work on the machine
  // takes does not count, as it does in the rates)
  const kMessages = cpu.with.messages / 1000;
  const intakePerBlock = cpu.without.main / cpu.without.blocks;
  const nodeUsPerK = ((cpu.with.main - intakePerBlock * cpu.with.blocks) / kMessages) * 1e6;
  const subscribersUsPerK = (cpu.with.subscribers / kMessages) * 1e6;
  const attack = ATTACK
    ? attackFigures(attackRss, throughputRatio, deliveredPerSec, attackReport, probeReport)
    : undefined;
  printTable(
    `events: ${SUBSCRIBERS} WebSocket subscribers of ${TOPICS.join(" and ")}, blocks offered at ${RATE}/s, ` +
      `${ROUNDS} alternating rounds of ${SECONDS} s, ${availableParallelism()} cores` +
      (ATTACK
        ? ", under attack (1,000 idle event-API connections, 250 subscribers not reading, 256 slow request bodies)"
        : ""),
    [
      { name: "blocks accepted, no subscriptions", value: without, unit: "blocks/s", baseline: "same-run baseline" },
      {
        name: `blocks accepted, ${SUBSCRIBERS} subscribers`,
        value: withSubs,
        unit: "blocks/s",
        target: ">= 0.9 of baseline",
        baseline: `ratio ${throughputRatio.toFixed(3)}`,
      },
      { name: "messages delivered", value: deliveredPerSec, unit: "msg/s" },
      { name: "latency submission → receipt, p50", value: p50, unit: "ms" },
      {
        name: "latency submission → receipt, p99",
        value: p99,
        unit: "ms",
        // issue 16 set < 100 ms at 100 subscribers; issue 26, <= 200 ms at 1,000
        target: SUBSCRIBERS >= 1000 ? "<= 200 ms (issue 26)" : "< 100 ms",
        baseline: `HTTP round trip p99: ${percentile(roundTrips.without, 99).toFixed(0)} ms without, ${percentile(roundTrips.with, 99).toFixed(0)} ms with`,
      },
      {
        name: "node's main thread busy, no subscriptions / subscribers",
        value: cpu.with.main / cpu.with.seconds,
        unit: "cores",
        baseline: `${(cpu.without.main / cpu.without.seconds).toFixed(2)} cores without; load average ${loadavg()[0]!.toFixed(1)}`,
      },
      {
        name: "delivery's CPU per 1,000 messages: node main thread",
        value: nodeUsPerK,
        unit: "µs",
        baseline: "beyond intake's CPU per block",
      },
      {
        name: "delivery's CPU per 1,000 messages: subscribers' process",
        value: subscribersUsPerK,
        unit: "µs",
        baseline: `${Math.round((100 * cpu.with.subscribersSystem) / cpu.with.subscribers)} % of it in the kernel`,
      },
      {
        name: "RSS growth, one subscriber not reading (vs none)",
        value: stalled.rssGrowthMiB,
        unit: "MiB",
        target: "<= 8 MiB queue bound",
        baseline: stalled.dropped ? "the subscriber was dropped" : "not dropped",
      },
      ...(attack?.rows ?? []),
    ],
  );
  if (attack) {
    const s = eventApiOf(app)!.broker.stats;
    console.log(
      `${attack.summary}; the broker dropped ${s.dropped.full} clients as full, ${s.dropped.slow} as slow, ` +
        `${s.dropped.budget} over the queued-bytes budget, ${s.dropped.evicted} to make room; ` +
        `the node's event loop delay p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms; ` +
        `${leftOpen} of the attacker's connections still open on the node 3 s after it was gone (then destroyed)`,
    );
  } else {
    // subscribers that fell behind: a rate with subscribers is then that of the others
    const s = eventApiOf(app)!.broker.stats;
    console.log(
      `the broker dropped ${s.dropped.slow} subscribers as slow (the one that stops reading among them), ` +
        `${s.dropped.budget} over the queued-bytes budget`,
    );
  }
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exitCode = 1;
  printFigures("events", {
    subscribers: SUBSCRIBERS,
    deliveredPerSec: Math.round(deliveredPerSec),
    latencyP50Ms: Math.round(p50 * 10) / 10,
    latencyP99Ms: Math.round(p99 * 10) / 10,
    roundTripP99MsWithout: Math.round(percentile(roundTrips.without, 99)),
    throughputRatio: Math.round(throughputRatio * 1000) / 1000,
    blocksPerSecWithout: Math.round(without),
    blocksPerSecWith: Math.round(withSubs),
    stalledRssGrowthMiB: Math.round(stalled.rssGrowthMiB * 10) / 10,
    mainThreadCoresWithout: Math.round((cpu.without.main / cpu.without.seconds) * 100) / 100,
    mainThreadCoresWith: Math.round((cpu.with.main / cpu.with.seconds) * 100) / 100,
    nodeCpuUsPer1kMessages: Math.round(nodeUsPerK),
    subscribersCpuUsPer1kMessages: Math.round(subscribersUsPerK),
    loadAverage: Math.round(loadavg()[0]! * 10) / 10,
    ...attack?.figures,
  });
}

/** The figures of `--attack`: table rows, JSON fields and a line of what the attack did. */
function attackFigures(
  rss: number,
  throughputRatio: number,
  deliveredPerSec: number,
  attack: AttackReport | undefined,
  probes: ProbeReport | undefined,
): { rows: BenchRow[]; figures: Record<string, number>; summary: string } {
  const rssMB = rss / 2 ** 20;
  const tries = probes?.newcomerMs ?? [];
  const failed = tries.filter((ms) => ms === null).length;
  // a newcomer without its SUBACK counts at the timeout
  const newcomerMs = tries.length ? Math.max(...tries.map((ms) => ms ?? NEWCOMER_TIMEOUT_MS)) : Number.NaN;
  const httpOkPct = probes && probes.httpSent > 0 ? (100 * probes.httpOk) / probes.httpSent : Number.NaN;
  const kinds = attack
    ? (["idle", "nonReading", "slowBody"] as const)
        .map((k) => `${k} ${attack[k].held} held, ${attack[k].opened} opened, ${attack[k].closed} closed`)
        .join("; ")
    : "no report from the attacker";
  return {
    rows: [
      { name: "peak RSS under attack", value: rssMB, unit: "MB", target: "<= 1,024 MB" },
      {
        name: "blocks accepted with/without subscribers, under attack",
        value: throughputRatio,
        unit: "",
        target: ">= 0.8",
        // the ratio says nothing of the subscribers when the node closed them
        baseline: `while ${Math.round(deliveredPerSec).toLocaleString("en-US")} msg/s reached the subscribers`,
      },
      {
        name: "newcomer subscriber from 127.0.0.1, CONNECT to SUBACK (worst)",
        value: newcomerMs,
        unit: "ms",
        target: "<= 2,000 ms",
        baseline: `${tries.length} tries, ${failed} without a SUBACK in ${NEWCOMER_TIMEOUT_MS / 1000} s`,
      },
      {
        name: "GET /api/core/v2/info from 127.0.0.1 answered 200 within 2 s",
        value: httpOkPct,
        unit: "%",
        target: ">= 95 %",
        baseline: `${probes?.httpOk ?? 0} of ${probes?.httpSent ?? 0}; failed: ${JSON.stringify(probes?.httpFailed ?? {})}`,
      },
    ],
    figures: {
      attackRssMB: Math.round(rssMB),
      honestThroughputRatioUnderAttack: Math.round(throughputRatio * 1000) / 1000,
      newcomerConnectMs: Math.round(newcomerMs),
      honestHttpOkPct: Math.round(httpOkPct * 10) / 10,
    },
    summary: `attack: ${kinds}`,
  };
}

if (args[0] === "--child") {
  await subscriberProcess(args[1]!, Number(args[2]), args[3] === "true");
} else {
  await main();
}
