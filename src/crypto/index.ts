export { bech32Decode, bech32Encode } from "./bech32.js";
export { BLAKE2B_256_LENGTH, blake2b256 } from "./blake2b.js";
export {
  type Ed25519KeyPair,
  ed25519KeyPairFromSeed,
  ed25519Sign,
  ed25519Verify,
  ed25519VerifyZip215,
} from "./ed25519.js";
export {
  largestPowerOfTwoBelow,
  type MerkleProofNode,
  MerkleTree,
  merkleLeafHash,
  merkleNodeHash,
  merkleProof,
  merkleProofs,
  merkleProofValueHash,
  merkleRoot,
  merkleRootFromLeafHashes,
  merkleRootFromProof,
} from "./merkle.js";
