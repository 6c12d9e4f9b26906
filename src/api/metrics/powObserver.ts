import type { FastifyInstance } from "fastify";

/**
 * How the block submission route tells the metrics about the Proof-of-Work it does for clients
 * (Hornet's `RestAPIMetrics.Events.PoWCompleted`), without knowing of them: the metrics set an
 * observer on the app, and route scopes inherit it.
 */

/** Why the node's PoW on a submitted block ended without a nonce. */
export type PowFailure = "timeout" | "busy" | "aborted" | "disabled" | "error";

export interface PowObserver {
  /** A nonce was found for a block of `blockBytes` bytes after `seconds`. */
  completed(blockBytes: number, seconds: number): void;
  failed(reason: PowFailure): void;
}

const POW_OBSERVER = Symbol("powObserver");

/** Sets the observer of `app` (once) before its routes are ready; their scopes see it too. */
export function setPowObserver(app: FastifyInstance, observer: PowObserver): void {
  app.decorate(POW_OBSERVER, observer);
}

/** The observer of `app` or of the app a route scope belongs to; undefined without metrics. */
export function powObserverOf(app: FastifyInstance): PowObserver | undefined {
  return (app as unknown as Record<symbol, PowObserver | undefined>)[POW_OBSERVER];
}
