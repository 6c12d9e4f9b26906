import { type ComponentChildren, createContext } from "preact";
import { useContext, useEffect, useRef } from "preact/hooks";
import { api, type NodeInfo } from "./api";
import { Topic } from "./events";
import { type FetchState, useEvent, useFetched } from "./hooks";

/**
 * `GET /api/core/v2/info`, shared by the shell (network name, synced state) and the pages:
 * loaded once, reloaded every `INFO_REFRESH_MS` and whenever the event API announces a milestone
 * (at most once per `INFO_MIN_GAP_MS`, so a fast network does not turn into a request per event).
 */

const INFO_REFRESH_MS = 10_000;
const INFO_MIN_GAP_MS = 500;

const NodeInfoContext = createContext<FetchState<NodeInfo> | undefined>(undefined);

export function NodeInfoProvider({ children }: { children: ComponentChildren }) {
  const info = useFetched((signal) => api.info({ signal }), [], INFO_REFRESH_MS);
  const last = useRef(0);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refresh = () => {
    if (pending.current !== undefined) return;
    const wait = Math.max(0, last.current + INFO_MIN_GAP_MS - Date.now());
    pending.current = setTimeout(() => {
      pending.current = undefined;
      last.current = Date.now();
      info.reload();
    }, wait);
  };
  useEvent(Topic.MilestoneInfoConfirmed, refresh);
  useEvent(Topic.MilestoneInfoLatest, refresh);
  useEffect(() => () => clearTimeout(pending.current), []);
  return <NodeInfoContext.Provider value={info}>{children}</NodeInfoContext.Provider>;
}

/** The shared node info (inside `NodeInfoProvider`). */
export function useNodeInfo(): FetchState<NodeInfo> {
  const info = useContext(NodeInfoContext);
  if (!info) throw new Error("useNodeInfo outside NodeInfoProvider");
  return info;
}
