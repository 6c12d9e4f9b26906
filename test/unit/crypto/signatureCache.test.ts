import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ed25519KeyPairFromSeed, ed25519Sign, ed25519Verify } from "../../../src/crypto/index.js";
import { forgetVerified, isKnownVerified, rememberVerified } from "../../../src/crypto/signatureCache.js";

describe("signature cache", () => {
  const key = ed25519KeyPairFromSeed(new Uint8Array(32).fill(4));
  const message = Uint8Array.of(1, 2, 3);
  const signature = ed25519Sign(key, message);

  it("knows a remembered triple by its signature array, with the key and message compared by value", () => {
    rememberVerified(key.publicKey, message, signature);
    assert.equal(isKnownVerified(key.publicKey, message, signature), true);
    assert.equal(isKnownVerified(Uint8Array.from(key.publicKey), Uint8Array.from(message), signature), true);
    assert.equal(isKnownVerified(key.publicKey, Uint8Array.of(1, 2, 4), signature), false, "another message");
    assert.equal(isKnownVerified(new Uint8Array(32), message, signature), false, "another key");
    assert.equal(isKnownVerified(key.publicKey, message, Uint8Array.from(signature)), false, "a copy is checked anew");
    forgetVerified();
    assert.equal(isKnownVerified(key.publicKey, message, signature), false);
  });

  it("never turns a bad signature good: ed25519Verify checks what the cache does not know", () => {
    const forged = Uint8Array.from(signature);
    forged[0]! ^= 1;
    rememberVerified(key.publicKey, Uint8Array.of(9), forged);
    assert.equal(ed25519Verify(key.publicKey, message, forged), false);
    assert.equal(ed25519Verify(key.publicKey, message, signature), true);
  });
});
