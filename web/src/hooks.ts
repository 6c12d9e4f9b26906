import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError, messageOf } from "./api";
import { events, type Handler } from "./events";

/** The state of an asynchronous load: its value, its failure in words, whether it runs. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  /** The HTTP status of the failure (0: the node was not reached), when it was an answer. */
  errorStatus: number | undefined;
  loading: boolean;
  /** Loads again (keeps the last value shown meanwhile). */
  reload: () => void;
}

/**
 * Runs `load` when `deps` change, and every `everyMs` when given; the last value stays shown
 * while a reload runs, and a failure is kept in words next to it. A load still running when the
 * component leaves (or deps change) is aborted.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [errorStatus, setErrorStatus] = useState<number | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = () => {
      setLoading(true);
      loadRef
        .current(controller.signal)
        .then(
          (value) => {
            if (controller.signal.aborted) return;
            setData(value);
            setError(undefined);
            setErrorStatus(undefined);
            setLoading(false);
          },
          (e: unknown) => {
            if (controller.signal.aborted) return;
            setError(messageOf(e));
            setErrorStatus(e instanceof ApiError ? e.status : undefined);
            setLoading(false);
          },
        )
        .finally(() => {
          if (everyMs !== undefined && !controller.signal.aborted) timer = setTimeout(run, everyMs);
        });
    };
    run();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [...deps, tick, everyMs]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, errorStatus, loading, reload };
}

/** Subscribes to an event topic while the component is shown (undefined: none). */
export function useEvent(topic: string | undefined, handler: Handler): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (topic === undefined) return;
    return events.subscribe(topic, (payload, t) => ref.current(payload, t));
  }, [topic]);
}

/** Subscribes to a JSON event topic while the component is shown. */
export function useJsonEvent<T>(topic: string | undefined, handler: (value: T, topic: string) => void): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (topic === undefined) return;
    return events.subscribeJson<T>(topic, (v, t) => ref.current(v, t));
  }, [topic]);
}

/** The page's title in the tab: "<title> · ledger-node". */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · ledger-node`;
  }, [title]);
}
