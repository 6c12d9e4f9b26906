import { useEffect, useRef, useState } from "preact/hooks";
import type { TangleWindow } from "./model";

/** Blocks a second (as they arrive) above which the page samples, and below which (in a burst) it stops again. */
const SAMPLE_ABOVE = 250;
const SAMPLE_BELOW = 150;
/** When sampling: a burst of blocks every CYCLE_MS, lasting BURST_MS or BURST_BLOCKS blocks, whichever is first. */
export const BURST_MS = 1000;
export const BURST_BLOCKS = 500;
const CYCLE_MS = 5000;
/** Blocks a second (the node's figure or the last burst's) above which bursts are FAST_CYCLE_MS apart. */
const FAST_ABOVE = 2000;
const FAST_CYCLE_MS = 10_000;

/** A burst: when it began, the blocks it brought, when its own count began, and its end. */
interface Burst {
  at: number;
  count: number;
  from: number;
  counted: number;
  end: () => void;
}

/** Where the page stands with `blocks` (pages/Tangle.tsx: "Sampled under heavy traffic"). */
export interface Sampling {
  /** Whether the page samples: follows `blocks` in bursts. */
  sampling: boolean;
  /** Whether `blocks` is followed now (always, unless sampling between two bursts). */
  followBlocks: boolean;
  /** Time from one burst's start to the next one's. */
  cycleMs: number;
  /** Blocks a second: the node's figure, or the page's own when higher. */
  rate: number;
  /** Whether a burst runs (its blocks are new: drawn and asked about once it ends). */
  burstRunning: () => boolean;
  /** Whether the window is not to be drawn now: a burst runs, or one is about to begin. */
  holdsDrawing: () => boolean;
  /**
   * Takes a block that arrived on `blocks`: `add` reads it into the window (true when the window
   * changed, undefined when it was no block). What arrives after a burst's end, before the node
   * has the unsubscription, is dropped unread.
   */
  take: (add: () => boolean | undefined) => void;
}

/**
 * Sampling under heavy traffic: above SAMPLE_ABOVE blocks a second (the page's own count of
 * arrivals, or the node's figure `nodeRate`), `blocks` is followed in bursts of BURST_MS or
 * BURST_BLOCKS blocks every CYCLE_MS (FAST_CYCLE_MS above FAST_ABOVE), each burst replacing the
 * last one in `model` and drawn once (`schedule`) when it ends, until a burst sees fewer than
 * SAMPLE_BELOW a second.
 */
export function useSampling(model: TangleWindow, nodeRate: number | undefined, schedule: () => void): Sampling {
  const [sampling, setSampling] = useState(false);
  const [followBlocks, setFollowBlocks] = useState(true);
  const [cycleMs, setCycleMs] = useState(CYCLE_MS);
  const samplingNow = useRef(sampling);
  samplingNow.current = sampling;
  /** Blocks a second as the page last saw them arrive (a second of following, or the last burst). */
  const seenRate = useRef(0);
  /**
   * While every block is followed, the times of the last SAMPLE_ABOVE arrivals (a ring): when they
   * span less than a second, the page samples (its own trigger, before the info route says so),
   * and they make the first burst.
   */
  const arrivals = useRef({ times: new Float64Array(SAMPLE_ABOVE), next: 0, filled: false });
  const trigger = useRef<{ at: number; count: number } | undefined>(undefined);
  /** The running burst (undefined between bursts). */
  const burst = useRef<Burst | undefined>(undefined);

  useEffect(() => {
    if (!sampling) {
      setFollowBlocks(true);
      return;
    }
    let stopped = false;
    let endTimer: ReturnType<typeof setTimeout> | undefined;
    let nextTimer: ReturnType<typeof setTimeout> | undefined;
    const begin = (carried?: { at: number; count: number }) => {
      if (stopped) return;
      const b: Burst = {
        ...(carried ?? { at: performance.now(), count: 0 }),
        // the rate is measured from the burst's own start (a carried one began at a slower pace)
        from: performance.now(),
        counted: 0,
        end: () => {
          if (burst.current !== b) return;
          burst.current = undefined;
          clearTimeout(endTimer);
          const now = performance.now();
          seenRate.current =
            b.counted >= 50
              ? (b.counted * 1000) / Math.max(1, now - b.from)
              : (b.count * 1000) / Math.max(1, now - b.at);
          setFollowBlocks(false);
          // the burst's blocks drawn at once, laid out once
          schedule();
          // traffic that calmed down: every block followed again
          if (seenRate.current < SAMPLE_BELOW) {
            setSampling(false);
            return;
          }
          // the next burst a cycle after this one began, the cycle by the rate this one saw
          const cycle = seenRate.current > FAST_ABOVE ? FAST_CYCLE_MS : CYCLE_MS;
          setCycleMs(cycle);
          nextTimer = setTimeout(() => begin(), Math.max(0, b.at + cycle - now));
        },
      };
      // a new burst replaces the last one in the window (the first keeps the blocks before it)
      if (carried === undefined) model.clear();
      burst.current = b;
      setFollowBlocks(true);
      endTimer = setTimeout(b.end, Math.max(0, BURST_MS - (performance.now() - b.at)));
    };
    // the first burst: the arrivals that made the page sample, if they did
    begin(trigger.current);
    trigger.current = undefined;
    return () => {
      stopped = true;
      burst.current = undefined;
      clearTimeout(endTimer);
      clearTimeout(nextTimer);
    };
  }, [sampling]);

  /** While every block is followed: the arrival's time, and sampling once SAMPLE_ABOVE arrived within a second. */
  const countArrival = () => {
    const now = performance.now();
    const a = arrivals.current;
    const oldest = a.times[a.next]!;
    a.times[a.next] = now;
    a.next = (a.next + 1) % SAMPLE_ABOVE;
    if (a.next === 0) a.filled = true;
    if (a.filled && now - oldest < 1000 && trigger.current === undefined) {
      seenRate.current = (SAMPLE_ABOVE * 1000) / Math.max(1, now - oldest);
      trigger.current = { at: oldest, count: SAMPLE_ABOVE };
      setSampling(true);
    }
  };

  const take = (add: () => boolean | undefined) => {
    const b = burst.current;
    if (samplingNow.current && b === undefined) return;
    const changed = add();
    if (changed === undefined) return;
    // a burst is drawn when it ends (one layout of its blocks rather than one per redraw slot)
    if (changed && b === undefined) schedule();
    if (b !== undefined) {
      b.counted++;
      if (++b.count >= BURST_BLOCKS) b.end();
    } else if (!samplingNow.current) countArrival();
  };

  return {
    sampling,
    followBlocks,
    cycleMs,
    rate: Math.max(nodeRate ?? 0, seenRate.current),
    burstRunning: () => burst.current !== undefined,
    holdsDrawing: () => burst.current !== undefined || trigger.current !== undefined,
    take,
  };
}
