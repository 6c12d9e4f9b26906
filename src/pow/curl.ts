/**
 * Scalar Curl-P-81, the ternary sponge of TIP-12 (state 729 trits, rate 243, 81 rounds).
 * This is the slow, obviously-correct version: it scores single blocks and is the reference
 * against which the bit-sliced hashers are tested.
 */
/** Rate of the sponge: the trits absorbed or squeezed per transform, and the hash length. */
export const CURL_HASH_LENGTH = 243;
/** The whole state: the rate plus 486 trits of capacity. */
export const CURL_STATE_LENGTH = 3 * CURL_HASH_LENGTH;
/** Rounds of the permutation in Curl-P-81, the variant TIP-12 uses. */
export const CURL_P81_ROUNDS = 81;

/**
 * The order in which one round reads the state: output trit i is the s-box of
 * (state[CURL_INDICES[i]], state[CURL_INDICES[i + 1]]), where CURL_INDICES[i] = 364·i mod 729.
 * It has 730 entries so that the last output can read entry 729, which wraps to 0 again.
 */
export const CURL_INDICES: Uint16Array = (() => {
  const idx = new Uint16Array(CURL_STATE_LENGTH + 1);
  for (let i = 1; i <= CURL_STATE_LENGTH; i++) idx[i] = (idx[i - 1]! + 364) % CURL_STATE_LENGTH;
  return idx;
})();

/** The Curl s-box as a table indexed by a + 3·b + 4 for trits a, b. */
const SBOX = new Int8Array([1, 0, -1, 1, -1, 0, -1, 1, 0]);

/** Applies `rounds` rounds of the Curl permutation to `state` (729 trits) in place. */
export function curlTransform(state: Int8Array, rounds = CURL_P81_ROUNDS): void {
  let from: Int8Array = state;
  let to: Int8Array = new Int8Array(CURL_STATE_LENGTH);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < CURL_STATE_LENGTH; i++) {
      to[i] = SBOX[from[CURL_INDICES[i]!]! + 3 * from[CURL_INDICES[i + 1]!]! + 4]!;
    }
    const t = from;
    from = to;
    to = t;
  }
  if (from !== state) state.set(from);
}

/**
 * Curl-P-81 sponge hash: absorbs `input` (a multiple of 243 trits; TIP-12 always uses exactly
 * one block) and squeezes `outLength` trits (a multiple of 243).
 */
export function curlP81(input: Int8Array, outLength = CURL_HASH_LENGTH): Int8Array {
  if (input.length === 0 || input.length % CURL_HASH_LENGTH !== 0 || outLength % CURL_HASH_LENGTH !== 0) {
    throw new RangeError("Curl input and output must be non-empty multiples of 243 trits");
  }
  const state = new Int8Array(CURL_STATE_LENGTH);
  for (let o = 0; o < input.length; o += CURL_HASH_LENGTH) {
    state.set(input.subarray(o, o + CURL_HASH_LENGTH));
    curlTransform(state);
  }
  const out = new Int8Array(outLength);
  for (let o = 0; o < outLength; o += CURL_HASH_LENGTH) {
    if (o > 0) curlTransform(state);
    out.set(state.subarray(0, CURL_HASH_LENGTH), o);
  }
  return out;
}
