/**
 * `npm run bench -- spammer [--seconds S] [--rates 50,200,1000] [--min-pow-score P]
 * [--interval-ms M] [--workers W]`: the spammer of a real node process (`/api/spammer/v1`) held
 * at each rate for S seconds (default 60), measured from outside.
 *
 * An MQTT client (the event API over TCP) timestamps every block of the spammer's tag as the
 * node publishes it, and every confirmed milestone. Per rate: the blocks of each 1-s window
 * (from 1 s after the start, the first second filling the submitters' pipeline), their mean, the
 * fullest window and the fullest sliding 1-s window; the fullest sliding 1-s window by the time
 * each block was issued (its permit's, which the spammer stamps at the end of its data);
 * whether the mean is within 10 % of the rate and no window by issue time above it (by arrival
 * a broker batch or a late turn of a loaded machine may move a few blocks across an edge); the
 * milestones' largest gap and the node process's CPU (of one core, from /proc), and the answers to an honest client meanwhile (a
 * tagged-data block every 250 ms over the submit route: median and largest latency, failures).
 * Baseline in the same run: the same node idle for 5 s (milestone gaps, CPU and the client's
 * answers with no spam). The node runs with a minimum PoW score of P (default 0,
 * as a dev network under load test may; the dev default is 100) and a milestone every M ms
 * (default 1,000, the dev default).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import mqtt from "mqtt";
import { decodeBlock } from "../src/codec/block.js";
import type { TaggedDataPayload } from "../src/codec/types.js";
import { argS } from "./_args.js";
import { printFigures, printTable } from "./_table.js";

const arg = (name: string, def: string) => argS(name) ?? def;
const SECONDS = Number(arg("--seconds", "60"));
const RATES = arg("--rates", "50,200,1000").split(",").map(Number);
const MIN_POW = arg("--min-pow-score", "0");
const INTERVAL_MS = Number(arg("--interval-ms", "1000"));
const WORKERS = Number(arg("--workers", String(availableParallelism() * 4)));
const IDLE_SECONDS = 5;
const TAG_HEX = `0x${Buffer.from("ledger-node spammer").toString("hex")}`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** CPU seconds (user + system) of a process so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Measured {
  windows: number[];
  mean: number;
  maxWindow: number;
  maxSliding: number;
  /** The fullest sliding 1-s window by the time each block was issued. */
  maxIssued: number;
  milestoneGapMaxMs: number;
  milestones: number;
  cpu: number;
}

const blocks: number[] = [];
/** When each block of `blocks` was issued: its data ends with its permit's time (the node's monotonic clock, ms). */
const issued: number[] = [];
const milestones: number[] = [];

function fullest(times: readonly number[]): number {
  let lo = 0;
  let most = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while (times[hi]! - times[lo]! >= 1000) lo++;
    most = Math.max(most, hi - lo + 1);
  }
  return most;
}

function measure(from: number, seconds: number, cpu: number): Measured {
  const windows = Array.from(
    { length: seconds },
    (_, k) => blocks.filter((t) => t >= from + 1000 * k && t < from + 1000 * (k + 1)).length,
  );
  const maxSliding = fullest(blocks.filter((t) => t >= from && t < from + 1000 * seconds));
  const maxIssued = fullest(
    issued.filter((_, i) => blocks[i]! >= from && blocks[i]! < from + 1000 * seconds).sort((a, b) => a - b),
  );
  const ms = milestones.filter((t) => t >= from && t < from + 1000 * seconds);
  const gaps = ms.slice(1).map((t, i) => t - ms[i]!);
  return {
    windows,
    mean: windows.reduce((a, b) => a + b, 0) / Math.max(1, windows.length),
    maxWindow: Math.max(0, ...windows),
    maxSliding,
    maxIssued,
    milestoneGapMaxMs: Math.max(0, ...gaps),
    milestones: ms.length,
    cpu,
  };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "bench-spammer-"));
  const [apiPort, mqttPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${apiPort}`;
  const node: ChildProcess = spawn(
    process.execPath,
    [
      "dist/src/cli/main.js",
      "--data-dir",
      dataDir,
      "--api-port",
      String(apiPort),
      "--mqtt-port",
      String(mqttPort),
      "--p2p-port",
      "0",
      "--min-pow-score",
      MIN_POW,
      "--milestone-interval",
      String(INTERVAL_MS),
      "--log-level",
      "warn",
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${url}/health`).catch(() => undefined))?.status === 200) break;
      if (i > 200) throw new Error("the node did not become healthy");
      await sleep(100);
    }
    const token = spawnSync(process.execPath, ["dist/src/cli/main.js", "token", "--data-dir", dataDir], {
      encoding: "utf8",
    })
      .stdout.trim()
      .split("\n")
      .at(-1)!;
    const spam = async (path: string, body?: object) => {
      const res = await fetch(`${url}/api/spammer/v1/${path}`, {
        method: path === "status" ? "GET" : "POST",
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    // an honest client meanwhile: a tagged-data block every 250 ms, its answer's latency
    const clientLatencies: number[] = [];
    let clientFailures = 0;
    let clientRunning = true;
    const client = (async () => {
      let n = 0;
      while (clientRunning) {
        const body = {
          protocolVersion: 2,
          payload: {
            type: 5,
            tag: "0x636c69656e74",
            data: `0x${Buffer.from(`client ${n++} ${Date.now()}`).toString("hex")}`,
          },
        };
        const t = performance.now();
        const res = await fetch(`${url}/api/core/v2/blocks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }).catch(() => undefined);
        if (res?.status === 201) clientLatencies.push(performance.now() - t);
        else clientFailures++;
        await res?.arrayBuffer().catch(() => {});
        await sleep(250);
      }
    })();
    /** The client's answers since the last call: their median and largest latency (ms), and failures. */
    const clientFigures = () => {
      const l = clientLatencies.splice(0).sort((a, b) => a - b);
      const failures = clientFailures;
      clientFailures = 0;
      return { p50: l[Math.floor(l.length / 2)] ?? 0, max: l.at(-1) ?? 0, failures };
    };
    const events = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    events.on("message", (topic, payload) => {
      if (topic === "milestone-info/confirmed") {
        milestones.push(performance.now());
        return;
      }
      blocks.push(performance.now());
      // the event API publishes blocks as their bytes
      const data = Buffer.from((decodeBlock(payload).payload as TaggedDataPayload).data).toString();
      issued.push(Number(data.slice(data.lastIndexOf(" ") + 1)));
    });
    await events.subscribeAsync([`blocks/tagged-data/${TAG_HEX}`, "milestone-info/confirmed"]);

    // baseline: the node idle
    let cpu0 = cpuSeconds(node.pid!);
    let t0 = performance.now();
    clientFigures();
    await sleep(IDLE_SECONDS * 1000);
    const idle = measure(t0, IDLE_SECONDS, (cpuSeconds(node.pid!) - cpu0) / IDLE_SECONDS);
    const idleClient = clientFigures();

    const results: {
      rate: number;
      m: Measured;
      ok: boolean;
      status: number;
      c: ReturnType<typeof clientFigures>;
    }[] = [];
    for (const rate of RATES) {
      await spam("start", { bpsRateLimit: rate, cpuMaxUsage: 1, spammerWorkers: WORKERS, valueSpamEnabled: false });
      const started = performance.now();
      await sleep(1000);
      cpu0 = cpuSeconds(node.pid!);
      t0 = performance.now();
      clientFigures();
      await sleep(SECONDS * 1000);
      const m = measure(t0, SECONDS, (cpuSeconds(node.pid!) - cpu0) / SECONDS);
      const c = clientFigures();
      const status = (await spam("status")).blocksPerSecond as number;
      await spam("stop");
      await sleep(500);
      const ok = m.mean >= rate * 0.9 && m.maxIssued <= rate;
      results.push({ rate, m, ok, status, c });
      console.log(
        `${rate}/s (${((t0 - started) / 1000).toFixed(1)} s warm-up): windows ${m.windows.join(" ")}; mean ${m.mean.toFixed(1)}, max ${m.maxWindow}, sliding max ${m.maxSliding} by arrival, ${m.maxIssued} by issue time; within 10 % and never above: ${ok}`,
      );
      blocks.length = 0;
      issued.length = 0;
    }
    await events.endAsync(true);
    clientRunning = false;
    await client;

    printTable(
      `spammer: ${SECONDS} s per rate, ${WORKERS} submitters, min PoW score ${MIN_POW}, a milestone every ${INTERVAL_MS} ms, ${availableParallelism()} cores`,
      [
        { name: "idle: largest milestone gap", value: idle.milestoneGapMaxMs, unit: "ms", baseline: "(baseline)" },
        { name: "idle: node CPU", value: idle.cpu * 100, unit: "% of a core", baseline: "(baseline)" },
        { name: "idle: a client's block, median answer", value: idleClient.p50, unit: "ms", baseline: "(baseline)" },
        ...results.flatMap(({ rate, m, ok, status, c }) => [
          {
            name: `${rate}/s: mean of 1-s windows`,
            value: m.mean,
            unit: "blocks/s",
            target: `${(rate * 0.9).toFixed(0)}..${rate}: ${ok ? "yes" : "NO"}`,
          },
          {
            name: `${rate}/s: fullest sliding 1-s window, issue time`,
            value: m.maxIssued,
            unit: "blocks",
            target: `<= ${rate}`,
          },
          { name: `${rate}/s: fullest 1-s window, arrival`, value: m.maxWindow, unit: "blocks" },
          { name: `${rate}/s: fullest sliding 1-s window, arrival`, value: m.maxSliding, unit: "blocks" },
          { name: `${rate}/s: status blocksPerSecond`, value: status, unit: "blocks/s" },
          {
            name: `${rate}/s: largest milestone gap`,
            value: m.milestoneGapMaxMs,
            unit: "ms",
            baseline: `${idle.milestoneGapMaxMs.toFixed(0)} ms idle`,
          },
          {
            name: `${rate}/s: node CPU`,
            value: m.cpu * 100,
            unit: "% of a core",
            baseline: `${(idle.cpu * 100).toFixed(1)} % idle`,
          },
          {
            name: `${rate}/s: a client's block, median / largest answer`,
            value: c.p50,
            unit: `ms / ${c.max.toFixed(0)} ms, ${c.failures} failed`,
            baseline: `${idleClient.p50.toFixed(1)} ms idle`,
          },
        ]),
      ],
    );
    printFigures("spammer", {
      seconds: SECONDS,
      workers: WORKERS,
      minPowScore: Number(MIN_POW),
      idleMilestoneGapMaxMs: Math.round(idle.milestoneGapMaxMs),
      idleClientP50Ms: Number(idleClient.p50.toFixed(1)),
      ...Object.fromEntries(
        results.flatMap(({ rate, m, ok, c }) => [
          [`mean${rate}`, Number(m.mean.toFixed(1))],
          [`maxWindow${rate}`, m.maxWindow],
          [`maxSliding${rate}`, m.maxSliding],
          [`maxIssued${rate}`, m.maxIssued],
          [`within10pct${rate}`, ok ? 1 : 0],
          [`milestoneGapMaxMs${rate}`, Math.round(m.milestoneGapMaxMs)],
          [`cpuPct${rate}`, Number((m.cpu * 100).toFixed(1))],
          [`clientP50Ms${rate}`, Number(c.p50.toFixed(1))],
          [`clientMaxMs${rate}`, Math.round(c.max)],
          [`clientFailed${rate}`, c.failures],
        ]),
      ),
    });
    if (results.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    node.kill("SIGTERM");
    await new Promise((r) => node.once("exit", r));
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
