import { useCallback, useRef, useState } from "preact/hooks";
import type { TangleNode, TangleWindow } from "./model";

/** The selected block as last seen in the window (it may have left it since), and its selection. */
export function useSelection(model: TangleWindow): {
  selectedId: string | undefined;
  selected: TangleNode | undefined;
  select: (node: TangleNode) => void;
} {
  const [selectedId, setSelectedId] = useState<string | undefined>(undefined);
  const last = useRef<TangleNode | undefined>(undefined);
  if (selectedId !== undefined) last.current = model.get(selectedId) ?? last.current;
  const select = useCallback((n: TangleNode) => {
    last.current = n;
    setSelectedId(n.id);
  }, []);
  return { selectedId, selected: selectedId === undefined ? undefined : last.current, select };
}
