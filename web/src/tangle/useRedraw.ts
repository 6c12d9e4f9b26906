import { useCallback, useEffect, useRef, useState } from "preact/hooks";

/** Shortest time between two redraws of the graph and the counts, in ms. */
export const REDRAW_MS = 250;
/** Share of one core the graph's redraws may take: after a redraw that cost c ms, the next waits c / DRAW_SHARE ms. */
const DRAW_SHARE = 0.04;

/** The time between two redraws, from the last one's cost (both in ms). */
export interface RedrawTiming {
  every: number;
  cost: number;
}

/**
 * The graph's and the counts' redraws: `schedule` asks for one, which comes on an animation frame
 * at most every REDRAW_MS, and further apart when the last one cost more than DRAW_SHARE of a
 * core would allow (`onCost`, from the graph). `version` counts the redraws: what is drawn is
 * rebuilt when it moves. While `held` says so (a sampling burst running), a redraw is skipped:
 * the burst is drawn once, when it ends.
 */
export function useRedraw(held: () => boolean): {
  version: number;
  timing: RedrawTiming;
  schedule: () => void;
  onCost: (ms: number) => void;
} {
  const [version, setVersion] = useState(0);
  const [timing, setTiming] = useState<RedrawTiming>({ every: REDRAW_MS, cost: 0 });
  const scheduled = useRef(false);
  const lastRedraw = useRef(0);
  const every = useRef(REDRAW_MS);
  const heldNow = useRef(held);
  heldNow.current = held;
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  const onCost = useCallback((ms: number) => {
    every.current = Math.max(REDRAW_MS, Math.ceil(ms / DRAW_SHARE));
    setTiming({ every: every.current, cost: ms });
  }, []);

  const schedule = useCallback(() => {
    if (scheduled.current) return;
    scheduled.current = true;
    const wait = Math.max(0, lastRedraw.current + every.current - performance.now());
    setTimeout(() => {
      requestAnimationFrame(() => {
        scheduled.current = false;
        if (!alive.current || heldNow.current()) return;
        lastRedraw.current = performance.now();
        setVersion((v) => v + 1);
      });
    }, wait);
  }, []);

  return { version, timing, schedule, onCost };
}
