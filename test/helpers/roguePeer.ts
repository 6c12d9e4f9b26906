import "../../src/network/polyfill.js";
import { execFileSync } from "node:child_process";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { gossipsub } from "@libp2p/gossipsub";
import { identify } from "@libp2p/identify";
import type { Stream } from "@libp2p/interface";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import * as lp from "it-length-prefixed";
import { createLibp2p, type Libp2p } from "libp2p";
import { blocksTopic, requestProtocolId } from "../../src/network/index.js";
import { encodeMessage, type Message } from "../../src/network/messages.js";
import { readMessages } from "../../src/network/protocol.js";

/**
 * An attacker's libp2p peer built from the project's own network code: it speaks the node's
 * gossip topic and request protocol, and answers or sends whatever a test makes it.
 */
export interface RoguePeer {
  node: Libp2p<{ pubsub: ReturnType<ReturnType<typeof gossipsub>> }>;
  id: string;
  /** Answers every request the node sends it with `answer` (which may write anything). */
  answer(answer: (request: Message, stream: Stream) => Promise<void>): Promise<void>;
  /** Sends one request-protocol message to the node and returns what it answers. */
  send(address: string, message: Message): Promise<Message[]>;
  stop(): Promise<void>;
}

export async function createRoguePeer(networkName = "dev"): Promise<RoguePeer> {
  const node = await createLibp2p({
    addresses: { listen: ["/ip4/127.0.0.1/tcp/0"] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify(), pubsub: gossipsub({ globalSignaturePolicy: "StrictNoSign" }) },
  });
  node.services.pubsub.subscribe(blocksTopic(networkName));
  const protocol = requestProtocolId(networkName);
  return {
    node,
    id: node.peerId.toString(),
    async answer(answer) {
      await node.handle(protocol, async (stream) => {
        const received: Message[] = [];
        await readMessages(stream, (m) => {
          received.push(m);
          return true;
        }).catch(() => {});
        try {
          if (received[0]) await answer(received[0], stream);
          await stream.close();
        } catch {
          stream.abort(new Error("rogue answer cut off"));
        }
      });
    },
    async send(address, message) {
      const stream = await node.dialProtocol(multiaddr(address), protocol);
      const answer: Message[] = [];
      const reading = readMessages(stream, (m) => {
        answer.push(m);
        return undefined;
      });
      stream.send(lp.encode.single(encodeMessage(message)));
      await stream.close();
      await reading;
      return answer;
    },
    stop: async () => {
      await node.stop();
    },
  };
}

/** Writes `frames` raw frames of `size` bytes each (a Block type byte, then garbage) to a stream. */
export async function flood(stream: Stream, frames: number, size: number): Promise<number> {
  const frame = lp.encode.single(new Uint8Array(size).fill(0xab).fill(0x02, 0, 1)).subarray();
  let sent = 0;
  for (let i = 0; i < frames; i++) {
    if (!stream.send(frame)) await stream.onDrain();
    sent += frame.length;
  }
  return sent;
}

/** Resident memory of a process in MiB (from ps). */
export function rssMiB(pid: number): number {
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim()) / 1024;
}
