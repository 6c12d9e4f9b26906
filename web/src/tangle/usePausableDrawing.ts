import { useMemo, useRef, useState } from "preact/hooks";
import type { TangleWindow } from "./model";

type GraphData = ReturnType<TangleWindow["graphData"]>;

/**
 * What the graph draws: the window's data, rebuilt at each redraw (`version`), kept as it is
 * while paused (the window and its counts go on). `seenAtPause` is the count of blocks seen when
 * the drawing was paused.
 */
export function usePausableDrawing(
  model: TangleWindow,
  version: number,
): { data: GraphData; paused: boolean; seenAtPause: number; toggle: () => void } {
  const [paused, setPaused] = useState(false);
  const seenAtPause = useRef(0);
  const drawn = useRef<GraphData | undefined>(undefined);
  const data = useMemo(() => {
    if (!paused || drawn.current === undefined) drawn.current = model.graphData();
    return drawn.current;
  }, [version, paused]);
  const toggle = () => {
    seenAtPause.current = model.figures(Date.now()).seen;
    setPaused(!paused);
  };
  return { data, paused, seenAtPause: seenAtPause.current, toggle };
}
