import { createRequire } from "node:module";
import type { Json } from "../../helpers/iota.js";
import { waitFor } from "../../helpers/waitFor.js";

/**
 * A subscriber of the node's event API through `@iota/mqtt.js@2.0.0-rc.3`, the Stardust MQTT
 * client, unmodified: it connects over WebSocket to `/api/mqtt/v1`, subscribes to raw and JSON
 * topics and records every message it receives, in arrival order.
 */

interface MqttClient {
  subscribeJson(topic: string, callback: (topic: string, data: Json) => void): string;
  subscribeRaw(topic: string, callback: (topic: string, data: Uint8Array) => void): string;
  statusChanged(callback: (status: { type: string; message: string; error?: Error }) => void): string;
  /** Ends the connection and the client's timers (the client has no public close). */
  mqttDisconnect(): void;
}
const require = createRequire(import.meta.url);
const { MqttClient } = require("@iota/mqtt.js") as { MqttClient: new (endpoint: string) => MqttClient };

export interface Received {
  topic: string;
  data: Json | Uint8Array;
}

export class EventSubscriber {
  readonly received: Received[] = [];
  readonly errors: string[] = [];
  private constructor(readonly client: MqttClient) {}

  /**
   * Connects to `endpoint` (http://host:port of the node), subscribes to `json` and `raw` topics
   * and resolves once the subscriptions are in place: `milestone-info/confirmed` is among them and
   * its current state has arrived (the node answers it after the SUBACK of the one SUBSCRIBE the
   * client sends for all its topics).
   */
  static async connect(endpoint: string, json: string[], raw: string[] = []): Promise<EventSubscriber> {
    const url = `${endpoint.replace(/^http/, "ws")}/api/mqtt/v1`;
    const s = new EventSubscriber(new MqttClient(url));
    s.client.statusChanged((status) => {
      if (status.type === "error") s.errors.push(`${status.message}: ${status.error?.message}`);
    });
    for (const topic of ["milestone-info/confirmed", ...json]) {
      s.client.subscribeJson(topic, (t, data) => s.received.push({ topic: t, data }));
    }
    for (const topic of raw) s.client.subscribeRaw(topic, (t, data) => s.received.push({ topic: t, data }));
    await waitFor(
      async () => (s.on("milestone-info/confirmed").length > 0 ? true : undefined),
      10_000,
      "the event API's current confirmed milestone",
    );
    return s;
  }

  close(): void {
    this.client.mqttDisconnect();
  }

  /** The messages received on `topic`, in arrival order. */
  on<T = Json>(topic: string): T[] {
    return this.received.filter((r) => r.topic === topic).map((r) => r.data as T);
  }
}
