import type { MqttClient } from "mqtt";
import type { MilestoneInfoJson } from "../../src/api/json/core";

/**
 * The node's event API (README, Event API: TIP-28 topics as inx-mqtt publishes them, MQTT 3.1.1
 * over WebSocket at `/api/mqtt/v1` of the same host) for the pages: one connection per page
 * load, shared by every subscriber, opened at the first subscription and reconnected with a
 * fixed delay when it drops (mqtt.js resubscribes the open topics itself). A topic is
 * subscribed once however many components listen to it and unsubscribed when the last leaves.
 * The MQTT client (mqtt.js's browser build, most of the bundle's weight) is loaded on first use,
 * so a page that shows no live data does not wait for it.
 */

/** The topics' names, the node's own (src/api/json/topics.ts). */
export { blockMetadataTopic, Topic } from "../../src/api/json/topics";

/** `milestone-info/*` payloads: the info route's milestone, always with its timestamp and ID. */
export type MilestoneInfoEvent = Required<MilestoneInfoJson>;

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "offline";

/** A topic's payload: the raw bytes (block and milestone topics) as mqtt.js hands them over. */
export type Handler = (payload: Uint8Array, topic: string) => void;

/** Delay between reconnection attempts, in ms. */
const RECONNECT_MS = 2000;

/** The node holds at most 1,000 subscriptions of a client (README, Event API); the pages stay far below. */
const MAX_TOPICS = 256;

/** `ws://` or `wss://` of the page's own host, at the event API's path. */
export function eventApiUrl(location: Location = window.location): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/mqtt/v1`;
}

class EventClient {
  private client: MqttClient | undefined;
  private starting: Promise<MqttClient> | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private currentState: ConnectionState = "offline";

  get state(): ConnectionState {
    return this.currentState;
  }

  /** Calls `listener` with the connection's state now and at each change; returns its removal. */
  onState(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    listener(this.currentState);
    return () => this.stateListeners.delete(listener);
  }

  /** Subscribes `handler` to `topic`; returns the unsubscription. */
  subscribe(topic: string, handler: Handler): () => void {
    let set = this.handlers.get(topic);
    if (!set) {
      if (this.handlers.size >= MAX_TOPICS) throw new Error(`at most ${MAX_TOPICS} event topics at once`);
      set = new Set();
      this.handlers.set(topic, set);
      this.connection().then(
        (client) => {
          // unsubscribed while the client loaded
          if (!this.handlers.has(topic)) return;
          client.subscribe(topic, { qos: 0 }, (error, granted) => {
            // the node refuses a topic it does not publish with the SUBACK failure code 128
            if (error || granted?.some((g) => g.qos === 128)) console.warn(`the node refused the topic ${topic}`);
          });
        },
        (e: Error) => console.warn(`the event API client failed to load: ${e.message}`),
      );
    }
    set.add(handler);
    return () => {
      const current = this.handlers.get(topic);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(topic);
      this.client?.unsubscribe(topic);
    };
  }

  /** Subscribes to a JSON topic; a payload that is not JSON is dropped with a warning. */
  subscribeJson<T>(topic: string, handler: (value: T, topic: string) => void): () => void {
    return this.subscribe(topic, (payload, t) => {
      let value: T;
      try {
        value = JSON.parse(new TextDecoder().decode(payload)) as T;
      } catch {
        console.warn(`an event on ${t} is not JSON`);
        return;
      }
      handler(value, t);
    });
  }

  private setState(state: ConnectionState): void {
    if (state === this.currentState) return;
    this.currentState = state;
    for (const l of this.stateListeners) l(state);
  }

  private connection(): Promise<MqttClient> {
    this.starting ??= this.start().catch((e: unknown) => {
      // a failed load (the node restarting mid-deploy) is tried again at the next subscription
      this.starting = undefined;
      this.setState("offline");
      throw e;
    });
    return this.starting;
  }

  private async start(): Promise<MqttClient> {
    this.setState("connecting");
    // the browser build (dist/mqtt.esm.js) has only a default export
    const { default: mqtt } = await import("mqtt");
    const client = mqtt.connect(eventApiUrl(), {
      protocolVersion: 4,
      reconnectPeriod: RECONNECT_MS,
      connectTimeout: 10_000,
      // native timers: mqtt.js's worker timers start a worker from a blob: URL, which the page's
      // CSP refuses (src/api/dashboard.ts); a background tab's throttled pings at worst cost a
      // reconnect
      timerVariant: "native",
      keepalive: 60,
      clean: true,
      resubscribe: true,
    });
    client.on("connect", () => this.setState("connected"));
    client.on("reconnect", () => this.setState("reconnecting"));
    client.on("offline", () => this.setState("offline"));
    // errors are followed by a reconnect; the state says it, the console need not shout
    client.on("error", (e) => console.warn(`event API: ${e.message}`));
    client.on("message", (topic, payload) => {
      const set = this.handlers.get(topic);
      if (!set) return;
      for (const h of set) {
        try {
          h(payload, topic);
        } catch (e) {
          console.warn(`a handler of ${topic} failed: ${(e as Error).message}`);
        }
      }
    });
    this.client = client;
    return client;
  }
}

/** The page's one event connection. */
export const events = new EventClient();
