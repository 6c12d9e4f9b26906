import "./polyfill.js";
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { type GossipSub, gossipsub } from "@libp2p/gossipsub";
import { identify } from "@libp2p/identify";
import type { PrivateKey } from "@libp2p/interface";
import { tcp } from "@libp2p/tcp";
import { createLibp2p, type Libp2p } from "libp2p";
import { MAX_BLOCK_LENGTH } from "../codec/block.js";
import { blockIdFromBytes } from "../codec/ids.js";

/**
 * The libp2p host of a node: TCP, noise, yamux, identify and gossipsub with `StrictNoSign`,
 * under the node's identity key. A taken port falls back to a free one, so two nodes on one
 * machine (or tests running side by side) never fail to start over the default port.
 */

export type NetworkHost = Libp2p<{ identify: ReturnType<ReturnType<typeof identify>>; pubsub: GossipSub }>;

export interface HostOptions {
  privateKey: PrivateKey;
  listenHost: string;
  port: number;
  /** Connections at most; libp2p closes the least valuable beyond it. */
  maxConnections: number;
  /** Peers refused at dialling and after the handshake (banned ones). */
  isBanned(peer: string): boolean;
}

async function createHost(options: HostOptions, port: number): Promise<NetworkHost> {
  const ip = options.listenHost.includes(":") ? "ip6" : "ip4";
  const host = await createLibp2p({
    privateKey: options.privateKey,
    start: false,
    addresses: { listen: [`/${ip}/${options.listenHost}/tcp/${port}`] },
    transports: [tcp()],
    connectionManager: { maxConnections: options.maxConnections },
    connectionEncrypters: [noise()],
    // requests open many streams at once, also on a connection still being set up
    streamMuxers: [yamux({ maxEarlyStreams: 512 })],
    connectionGater: {
      denyDialPeer: (peer) => options.isBanned(peer.toString()),
      denyInboundEncryptedConnection: (peer) => options.isBanned(peer.toString()),
    },
    services: {
      identify: identify(),
      pubsub: gossipsub({
        globalSignaturePolicy: "StrictNoSign",
        allowPublishToZeroTopicPeers: true,
        ignoreDuplicatePublishError: true,
        emitSelf: false,
        // the block ID names a message: the same block from two peers is one message
        msgIdFn: (message) => blockIdFromBytes(message.data),
        maxInboundDataLength: MAX_BLOCK_LENGTH,
      }),
    },
  });
  try {
    await host.start();
  } catch (e) {
    await Promise.resolve(host.stop()).catch(() => {});
    throw e;
  }
  return host;
}

/** Starts the host on `options.port`, or on a free port when that one is taken (`fellBack`). */
export async function startHost(options: HostOptions): Promise<{ host: NetworkHost; fellBack: boolean }> {
  try {
    return { host: await createHost(options, options.port), fellBack: false };
  } catch (e) {
    if (options.port === 0 || !/EADDRINUSE/.test((e as Error).message)) throw e;
    return { host: await createHost(options, 0), fellBack: true };
  }
}
