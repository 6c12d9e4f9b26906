import { parentPort, workerData } from "node:worker_threads";
import { type SpillJob, type SpillReply, writeSortedRun } from "./externalSort.js";

/**
 * The thread of an `ExternalSort` (externalSort.ts): each run it is sent, in order, is sorted and
 * written to its file; the count of runs waiting, shared with the sort, goes down once it is.
 */
const inFlight = workerData as Int32Array;

parentPort!.on("message", (job: SpillJob) => {
  let reply: SpillReply;
  try {
    writeSortedRun(job.path, Buffer.from(job.run, job.offset, job.length));
    reply = { path: job.path };
  } catch (e) {
    reply = { path: job.path, error: (e as Error).message };
  }
  Atomics.sub(inFlight, 0, 1);
  Atomics.notify(inFlight, 0);
  parentPort!.postMessage(reply);
});
