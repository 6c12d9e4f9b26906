import { useCallback, useEffect, useRef } from "preact/hooks";
import { blockMetadataTopic, events } from "../events";
import type { ReferencedMetadata, TangleWindow } from "./model";

/** When sampling: `block-metadata/{id}` subscriptions at once, and how long one waits for its block to be referenced. */
export const WATCHED = 16;
const WATCH_MS = 30_000;

/**
 * While the page samples, `block-metadata/referenced` is left (as many messages as `blocks`
 * itself) and `block-metadata/{id}` of a few sampled blocks is asked instead: WATCHED at once,
 * transactions first, each for WATCH_MS at most, asked anew between bursts (`burstRunning`), when
 * `followBlocks` changes and at each confirmed milestone. A block found referenced marks its past
 * cone in the window referenced too (TIP-2), and `schedule`s a redraw. Refs and plain
 * subscriptions, not state: an answer must not cost a rendering of the page. Returns how many
 * asked blocks were found referenced since the page opened.
 */
export function useWatchedBlocks(
  model: TangleWindow,
  schedule: () => void,
  {
    sampling,
    followBlocks,
    confirmed,
    burstRunning,
  }: {
    sampling: boolean;
    followBlocks: boolean;
    confirmed: number | undefined;
    burstRunning: () => boolean;
  },
): number {
  const watched = useRef(new Map<string, { until: number; off: () => void }>());
  const givenUp = useRef(new Set<string>());
  const answered = useRef(0);
  const samplingNow = useRef(sampling);
  samplingNow.current = sampling;
  const burstRunningNow = useRef(burstRunning);
  burstRunningNow.current = burstRunning;
  const alive = useRef(true);
  const rewatchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const unwatch = useCallback((id: string) => {
    watched.current.get(id)?.off();
    watched.current.delete(id);
  }, []);

  const rewatch = useCallback(() => {
    const w = watched.current;
    if (!samplingNow.current) {
      for (const id of [...w.keys()]) unwatch(id);
      givenUp.current.clear();
      return;
    }
    // the blocks of a running burst are new: asked once it ended
    if (burstRunningNow.current() || !alive.current) return;
    const now = Date.now();
    for (const [id, entry] of [...w]) {
      if (!model.get(id)) unwatch(id);
      else if (now > entry.until) {
        unwatch(id);
        givenUp.current.add(id);
      }
    }
    // the given-up set holds window blocks only
    for (const id of givenUp.current) if (!model.get(id)) givenUp.current.delete(id);
    for (const id of model.worthAsking(WATCHED - w.size, (id) => w.has(id) || givenUp.current.has(id))) {
      const off = events.subscribeJson<ReferencedMetadata>(blockMetadataTopic(id), (meta) => {
        // the answer at subscription may be of a block not referenced yet: it is waited for
        if (typeof meta.referencedByMilestoneIndex !== "number") return;
        model.referenced(meta, Date.now());
        model.referencedCone(id, meta.referencedByMilestoneIndex);
        answered.current++;
        unwatch(id);
        schedule();
        // the answers of one milestone come together: one new round for them
        if (rewatchTimer.current === undefined)
          rewatchTimer.current = setTimeout(() => {
            rewatchTimer.current = undefined;
            rewatch();
          }, 50);
      });
      w.set(id, { until: now + WATCH_MS, off });
    }
  }, []);

  useEffect(rewatch, [sampling, followBlocks, confirmed]);
  useEffect(
    () => () => {
      alive.current = false;
      clearTimeout(rewatchTimer.current);
      for (const id of [...watched.current.keys()]) unwatch(id);
    },
    [],
  );
  return answered.current;
}
