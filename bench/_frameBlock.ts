/**
 * A block's bytes framed around an encoded payload, as a client sends finished bytes: protocol
 * version 2, the parents, the payload's length and bytes, nonce 0 (TIP-24 layout). The benches
 * encode payloads before their clock starts and frame each when its parents (the node's tips)
 * are known.
 */
export function frameBlock(parents: readonly Uint8Array[], payloadBytes: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(2 + 32 * parents.length + 4 + payloadBytes.length + 8);
  bytes[0] = 2;
  bytes[1] = parents.length;
  parents.forEach((p, i) => {
    bytes.set(p, 2 + 32 * i);
  });
  const at = 2 + 32 * parents.length;
  new DataView(bytes.buffer).setUint32(at, payloadBytes.length, true);
  bytes.set(payloadBytes, at + 4);
  return bytes;
}
