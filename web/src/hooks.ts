import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError, messageOf } from "./api";
import { events, type Handler, type MilestoneInfoEvent, Topic } from "./events";

/** The state of an asynchronous load: its value, its failure in words, whether it runs. */
export interface FetchState<T> {
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
export function useFetched<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
  everyMs?: number,
): FetchState<T> {
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

/** Calls `handler` with each confirmed milestone the event API announces (the current one at once). */
export function useConfirmedMilestone(handler: (milestone: MilestoneInfoEvent) => void): void {
  useJsonEvent<MilestoneInfoEvent>(Topic.MilestoneInfoConfirmed, (m) => {
    if (Number.isInteger(m.index)) handler(m);
  });
}

/** Renders the component again every `ms`: texts such as "n s ago" and rates move on while nothing arrives. */
export function useTick(ms = 1000): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), ms);
    return () => clearInterval(timer);
  }, [ms]);
}

/** An action a form or a button starts (a POST, a DELETE): whether it runs, and its failure in words. */
export interface Action {
  busy: boolean;
  error: string | undefined;
  /** Says why the action is not started (the input is not what it needs). */
  refuse: (message: string) => void;
  /** Runs `action`, unless one runs already; its failure is said after `failed` ("The peer was not added: …"). */
  run: (action: () => Promise<void>) => Promise<void>;
}

export function useAction(failed: string): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(`${failed}: ${messageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, refuse: setError, run };
}
