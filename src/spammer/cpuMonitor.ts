import { CORES } from "./options.js";

/**
 * The process's CPU use over the last second as a fraction of the machine's cores
 * (`process.cpuUsage`, which counts every thread of the process, the miner's and the verify
 * pool's included), sampled every `SAMPLE_MS`. inx-spammer measures the whole machine
 * (gopsutil `cpu.Percent`) and waits while it is above `cpuMaxUsage`; a node measures itself,
 * so another process on the machine does not stop its spammer.
 */

/** How often the CPU time is read. */
export const SAMPLE_MS = 100;

/** What the monitor reads: CPU time in µs, a monotonic clock in ms (tests hand in their own). */
export interface CpuMonitorDeps {
  cpuMicros(): number;
  now(): number;
  cores: number;
}

const processDeps: CpuMonitorDeps = {
  cpuMicros: () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  },
  now: () => performance.now(),
  cores: CORES,
};

export class CpuMonitor {
  /** Samples of the last second and a bit: [time ms, CPU µs], oldest first. */
  private readonly samples: [number, number][] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: CpuMonitorDeps = processDeps) {}

  /** Starts sampling (idempotent); the timer never keeps the process alive. */
  start(): void {
    if (this.timer) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.samples.length = 0;
  }

  /** Takes one sample and forgets those older than needed for a 1-s figure. */
  sample(): void {
    const now = this.deps.now();
    this.samples.push([now, this.deps.cpuMicros()]);
    // keep the newest sample at least a second old, and nothing older
    while (this.samples.length > 2 && now - this.samples[1]![0] >= 1000) this.samples.shift();
  }

  /** CPU use over the last second (or since the first sample), 0..1 of all cores; 0 before two samples. */
  usage(): number {
    if (this.samples.length < 2) return 0;
    const [t0, c0] = this.samples[0]!;
    const [t1, c1] = this.samples.at(-1)!;
    const wallMicros = (t1 - t0) * 1000;
    return wallMicros > 0 ? (c1 - c0) / (wallMicros * this.deps.cores) : 0;
  }
}
