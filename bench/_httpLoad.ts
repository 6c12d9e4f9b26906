/**
 * The HTTP load client of `bench indexer` and `bench scale`: `connections` keep-alive
 * connections, one request in flight each, from a worker thread of its own (pre-serialized
 * requests, responses framed by Content-Length), so the client does not saturate before the
 * server. A warm-up of `warmMs`, then the 200 answers of `maxMs` are counted.
 */
import { connect, type Socket } from "node:net";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

export interface LoadJob {
  port: number;
  connections: number;
  /** One request sent over and over, or several sent in turn (each connection takes the next). */
  request: Uint8Array | Uint8Array[];
  warmMs: number;
  maxMs: number;
}
export interface LoadResult {
  ok: number;
  failed: number;
  elapsedMs: number;
}

/** A GET request's bytes, as `loadFromWorker` sends them. */
export const getRequest = (port: number, path: string) =>
  Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n\r\n`);

/** Sends `job.request` over keep-alive sockets until the time is up; counts 200 answers. */
async function runLoad(job: LoadJob): Promise<LoadResult> {
  const sockets = await Promise.all(
    Array.from(
      { length: job.connections },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(job.port, "127.0.0.1");
          s.setNoDelay(true);
          s.once("connect", () => resolve(s));
          s.once("error", reject);
        }),
    ),
  );
  const requests = Array.isArray(job.request) ? job.request : [job.request];
  let next = 0;
  let ok = 0;
  let failed = 0;
  let counting = false;
  const warmEnd = performance.now() + job.warmMs;
  let start = 0;
  let deadline = Number.POSITIVE_INFINITY;
  await new Promise<void>((resolveAll, rejectAll) => {
    let open = sockets.length;
    for (const s of sockets) {
      let buffer: Buffer = Buffer.alloc(0);
      const send = () => {
        const now = performance.now();
        if (!counting && now >= warmEnd) {
          counting = true;
          start = now;
          deadline = now + job.maxMs;
        }
        if (now >= deadline) {
          s.destroy();
          if (--open === 0) resolveAll();
          return;
        }
        s.write(requests[next++ % requests.length]!);
      };
      s.on("error", rejectAll);
      s.on("data", (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        for (;;) {
          const headEnd = buffer.indexOf("\r\n\r\n");
          if (headEnd < 0) return;
          const head = buffer.toString("latin1", 0, headEnd);
          const length = /\r\ncontent-length: *(\d+)/i.exec(head);
          if (!length) {
            rejectAll(new Error(`a response without Content-Length: ${head}`));
            return;
          }
          const end = headEnd + 4 + Number(length[1]);
          if (buffer.length < end) return;
          buffer = buffer.subarray(end);
          if (counting) {
            if (head.startsWith("HTTP/1.1 200")) ok++;
            else failed++;
          }
          send();
        }
      });
      send();
    }
  });
  return { ok, failed, elapsedMs: performance.now() - start };
}

/** Runs `job` on a worker thread of its own and answers its counts. */
export function loadFromWorker(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { ...job, httpLoad: true } });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`the load worker exited with ${code}`)));
  });
}

if (!isMainThread && (workerData as { httpLoad?: boolean } | undefined)?.httpLoad) {
  parentPort!.postMessage(await runLoad(workerData as LoadJob));
}
