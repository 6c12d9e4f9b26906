/**
 * What the benches measure besides rates: CPU time by thread and CPU profiles. CPU time hardly
 * moves when other work shares the machine, where rates move by up to three times
 * (docs/performance.md), so the benches print it beside their rates.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";

/** CPU time a thread of this process has used, in µs (Linux's per-thread counters, 10 ms ticks; 0 elsewhere). */
function taskCpuUs(tid: string | number): number {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    // utime and stime, the 14th and 15th fields, counted after the parenthesized name
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return 0;
  }
}

/** CPU time this process's main thread has used, in µs. */
export function mainThreadCpuUs(): number {
  return taskCpuUs(process.pid);
}

/** CPU time the calling thread (a worker's too) has used, in µs. */
export function thisThreadCpuUs(): number {
  return taskCpuUs(threadSelf());
}

/** The calling thread's ID, from the link /proc/thread-self points to ("<pid>/task/<tid>"). */
function threadSelf(): string {
  try {
    return readlinkSync("/proc/thread-self").split("/").pop()!;
  } catch {
    return String(process.pid);
  }
}

/** CPU time of every thread of this process, in µs, by thread ID. */
export function threadCpuUs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync("/proc/self/task")) out.set(t, taskCpuUs(t));
  return out;
}

/**
 * Starts watching this thread's collector pauses (scavenges and the pauses of mark-compacts,
 * whose marking runs mostly on V8's own threads meanwhile); the function it answers stops and
 * gives their sum in ms.
 */
export function gcPauses(): () => number {
  let totalMs = 0;
  const add = (entries: readonly PerformanceEntry[]) => {
    for (const e of entries) totalMs += e.duration;
  };
  const observer = new PerformanceObserver((list) => add(list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  return () => {
    add(observer.takeRecords());
    observer.disconnect();
    return totalMs;
  };
}

/**
 * Starts a CPU profile of this thread (and, with `allocations`, an allocation profile: a sample
 * every 32 KB, collected objects included) when `dir` is given; the function it answers stops
 * it and writes `name`.cpuprofile (and `name`.heapprofile) to `dir`.
 */
export async function startProfile(
  dir: string | undefined,
  name: string,
  /**
   * `allocations`: also an allocation profile; `"survivors"` keeps only the objects that outlived
   * a scavenge (those the collector copied: what makes its pauses long), not the young garbage.
   */
  options: { intervalUs?: number; allocations?: boolean | "survivors" } = {},
): Promise<() => Promise<void>> {
  if (!dir) return async () => {};
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  if (options.intervalUs) await session.post("Profiler.setSamplingInterval", { interval: options.intervalUs });
  await session.post("Profiler.start");
  if (options.allocations) {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 32_768,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: options.allocations !== "survivors",
    });
  }
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    if (options.allocations) {
      const { profile: allocations } = await session.post("HeapProfiler.stopSampling");
      await writeFile(join(dir, `${name}.heapprofile`), JSON.stringify(allocations));
    }
    session.disconnect();
  };
}
