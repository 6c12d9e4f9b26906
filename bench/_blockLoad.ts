/**
 * The block load of `bench events` and `bench dashboard`: a worker thread that submits
 * tagged-data blocks as JSON to `POST /api/core/v2/blocks` (the node selects parents and, with
 * a minimum PoW score of 0, mines nothing) with 32 requests in flight on 32 keep-alive
 * connections at most, paced at `rate` blocks/s for `seconds`. A worker of its own per phase,
 * so the load's JavaScript does not share the node's event loop, and its connections end with
 * the phase. (The connections are capped: a client pool that opens more than the API's 64 per
 * address has its oldest idle one closed by the node, src/api/connectionLimits.ts, and a
 * request on it fails.)
 */
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

export interface LoadJob {
  port: number;
  /** Blocks offered per second; `Infinity`: as fast as the 32 requests in flight are answered. */
  rate: number;
  seconds: number;
  /** Sequence numbers of this phase start here (they go in the block's tag). */
  firstSeq: number;
  /** Tagged data bytes per block. */
  dataBytes: number;
}

export interface LoadResult {
  accepted: number;
  failed: number;
  seconds: number;
  /** Submission time of each block, by sequence number − firstSeq. */
  sentAt: number[];
  /** Submission to answer of each block, ms. */
  roundTrips: number[];
}

/** Requests in flight at most (connections of one address are capped at 64 by the API). */
const IN_FLIGHT = 32;

const now = () => performance.timeOrigin + performance.now();

/** One POST of `body`; resolves with the status, 0 when the request failed. */
function post(agent: Agent, port: number, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/core/v2/blocks",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
        res.once("error", () => resolve(0));
      },
    );
    req.once("error", () => resolve(0));
    req.end(body);
  });
}

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const paced = Number.isFinite(job.rate);
  const total = paced ? Math.round(job.rate * job.seconds) : Number.POSITIVE_INFINITY;
  const sentAt: number[] = [];
  const roundTrips: number[] = [];
  const data = `0x${"ab".repeat(job.dataBytes)}`;
  let accepted = 0;
  let failed = 0;
  let next = 0;
  const start = now();
  const end = start + job.seconds * 1000;
  const client = async () => {
    for (;;) {
      const i = next++;
      if (i >= total || (!paced && now() >= end)) return;
      if (paced) {
        // paced: block i is due at start + i / rate
        const due = start + (i * 1000) / job.rate;
        const wait = due - now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      }
      const seq = job.firstSeq + i;
      const tag = Buffer.alloc(4);
      tag.writeUInt32LE(seq);
      sentAt[i] = now();
      const status = await post(
        agent,
        job.port,
        JSON.stringify({ protocolVersion: 2, payload: { type: 5, tag: `0x${tag.toString("hex")}`, data } }),
      );
      roundTrips.push(now() - sentAt[i]!);
      if (status === 201) accepted++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, client));
  agent.destroy();
  return { accepted, failed, seconds: (now() - start) / 1000, sentAt, roundTrips };
}

/** Runs one phase of load in a fresh worker thread. */
export function load(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { blockLoad: job } });
    // ended after each phase, so its keep-alive connections do not count against the next one's
    worker.once("message", (r: LoadResult) => void worker.terminate().then(() => resolve(r)));
    worker.once("error", reject);
  });
}

if (!isMainThread && (workerData as { blockLoad?: LoadJob } | null)?.blockLoad) {
  parentPort!.postMessage(await runLoad((workerData as { blockLoad: LoadJob }).blockLoad));
}
