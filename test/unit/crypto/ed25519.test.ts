import assert from "node:assert/strict";
import { createHash, createPublicKey, verify as nodeVerify } from "node:crypto";
import { describe, it } from "node:test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { fromHex, toHex } from "../../../src/codec/hex.js";
import {
  type Ed25519Engine,
  libsodium,
  libsodiumLoadError,
  opensslEngine,
} from "../../../src/crypto/ed25519Engines.js";
import { ed25519KeyPairFromSeed, ed25519Sign, ed25519Verify } from "../../../src/crypto/index.js";

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const leToBigInt = (b: Uint8Array) => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
const bigIntToLe32 = (v: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const sha512 = (...parts: Uint8Array[]) => new Uint8Array(createHash("sha512").update(Buffer.concat(parts)).digest());

describe("Ed25519", () => {
  it("derives the RFC 8032 test 1 key and signature", () => {
    const kp = ed25519KeyPairFromSeed(
      fromHex("0x9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "seed"),
    );
    assert.equal(toHex(kp.publicKey), "0xd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    const sig = ed25519Sign(kp, new Uint8Array());
    assert.equal(
      toHex(sig),
      "0xe5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
    assert.equal(ed25519Verify(kp.publicKey, new Uint8Array(), sig), true);
  });

  it("derives the well-known dev key of docs/decisions.md, The dev network", () => {
    const kp = ed25519KeyPairFromSeed(
      fromHex("0x64c2f3f1072df53b06173af7aa8a4b8e794e7980fca78bf7f3472ecc57e92a3c", "seed"),
    );
    assert.equal(toHex(kp.publicKey), "0x974e30f17525ef12571759792269eadd12100e4c3b2bfc765da4d88cac75576d");
  });

  it("rejects a wrong message, a flipped signature bit and wrong lengths", () => {
    const kp = ed25519KeyPairFromSeed(new Uint8Array(32).fill(7));
    const msg = Uint8Array.of(1, 2, 3);
    const sig = ed25519Sign(kp, msg);
    assert.equal(ed25519Verify(kp.publicKey, Uint8Array.of(1, 2, 4), sig), false);
    const bad = Uint8Array.from(sig);
    bad[10]! ^= 1;
    assert.equal(ed25519Verify(kp.publicKey, msg, bad), false);
    assert.equal(ed25519Verify(kp.publicKey.subarray(1), msg, sig), false);
    assert.equal(ed25519Verify(kp.publicKey, msg, sig.subarray(1)), false);
    // S ≥ L is rejected by ZIP-215 as well (non-canonical scalar)
    const highS = Uint8Array.from(sig);
    highS.set(bigIntToLe32(leToBigInt(sig.subarray(32)) + L), 32);
    assert.equal(ed25519Verify(kp.publicKey, msg, highS), false);
  });

  it("accepts under ZIP-215 a signature whose R carries a torsion component, which libsodium and OpenSSL reject", () => {
    // R = rB + T with T of order 8: the cofactored equation [8]SB = [8]R + [8]kA holds, the
    // cofactorless one SB = R + kA (RFC 8032 as OpenSSL checks it) does not.
    const seed = new Uint8Array(32).fill(42);
    const kp = ed25519KeyPairFromSeed(seed);
    const h = sha512(seed);
    h[0]! &= 248;
    h[31]! &= 127;
    h[31]! |= 64;
    const a = leToBigInt(h.subarray(0, 32)) % L;
    const msg = Uint8Array.of(9, 9, 9);
    const r = 123456789n;
    const T = ed25519.Point.fromHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05");
    const R = ed25519.Point.BASE.multiply(r).add(T).toBytes();
    const k = leToBigInt(sha512(R, kp.publicKey, msg)) % L;
    const S = (r + k * a) % L;
    const sig = new Uint8Array([...R, ...bigIntToLe32(S)]);

    const jwk = { kty: "OKP", crv: "Ed25519", x: Buffer.from(kp.publicKey).toString("base64url") };
    const openssl = nodeVerify(null, msg, createPublicKey({ key: jwk, format: "jwk" }), sig);
    assert.equal(openssl, false, "OpenSSL must reject the cofactorless equation");
    assert.equal(libsodium?.verify(kp.publicKey, msg, sig), false, "so must libsodium");
    assert.equal(ed25519Verify(kp.publicKey, msg, sig), true);
  });

  it("accepts a small-order public key's signature as ZIP-215 does, which libsodium rejects", () => {
    // A of order 8 and R = S·B with S = 0: ZIP-215's [8]SB = [8]R + [8]kA holds for any message
    const A = ed25519.Point.fromHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05").toBytes();
    const R = ed25519.Point.BASE.multiply(5n).toBytes();
    const sig = new Uint8Array([...R, ...bigIntToLe32(5n)]);
    const msg = Uint8Array.of(1);
    assert.equal(libsodium?.verify(A, msg, sig), false);
    assert.equal(ed25519.verify(sig, msg, A, { zip215: true }), true);
    assert.equal(ed25519Verify(A, msg, sig), true);
  });

  it("accepts ZIP-215's 196 small-order cases, every encoding of A and R with S = 0", () => {
    // the eight points of small order, each in every encoding that decodes to it (canonical,
    // y + p where that fits in 255 bits, x = 0 with the sign bit set): 14 encodings, 196 pairs
    const P = 2n ** 255n - 19n;
    const T8 = ed25519.Point.fromHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05");
    const points = [ed25519.Point.ZERO];
    for (let i = 1; i < 8; i++) points.push(points[i - 1]!.add(T8));
    const encodings = new Map<string, Uint8Array>();
    for (const point of points) {
      const { y } = point.toAffine();
      for (const yy of [y, y + P]) {
        for (const sign of [0n, 1n]) {
          const bytes = bigIntToLe32(yy | (sign << 255n));
          if (yy >= 2n ** 255n) continue;
          try {
            if (ed25519.Point.fromBytes(bytes, true).equals(point)) encodings.set(toHex(bytes), bytes);
          } catch {
            // not an encoding of a point
          }
        }
      }
    }
    assert.equal(encodings.size, 14);
    const msg = new TextEncoder().encode("Zcash");
    let accepted = 0;
    for (const A of encodings.values()) {
      for (const R of encodings.values()) {
        if (ed25519Verify(A, msg, new Uint8Array([...R, ...new Uint8Array(32)]))) accepted++;
      }
    }
    assert.equal(accepted, 196);
  });

  it("checks and signs with libsodium here, and OpenSSL writes and accepts the same signatures", () => {
    assert.equal(libsodiumLoadError, undefined, "sodium-native ships a binary for this platform");
    const fast: Ed25519Engine = libsodium ?? assert.fail("no libsodium engine");
    const openssl = opensslEngine();
    for (let i = 0; i < 16; i++) {
      const seed = sha512(Uint8Array.of(i)).subarray(0, 32);
      const a = fast.keyOf(seed);
      const b = openssl.keyOf(seed);
      assert.deepEqual(a.publicKey, b.publicKey);
      const msg = sha512(seed);
      const sig = fast.sign(a.signingKey, msg);
      assert.deepEqual(openssl.sign(b.signingKey, msg), sig, "RFC 8032 signatures are deterministic");
      assert.equal(openssl.verify(b.publicKey, msg, sig), true);
      assert.equal(fast.verify(a.publicKey, msg, sig), true);
      sig[i]! ^= 1;
      assert.equal(openssl.verify(b.publicKey, msg, sig), false);
      assert.equal(fast.verify(a.publicKey, msg, sig), false);
    }
  });

  it("answers as @noble/curves' ZIP-215 check does on valid, tampered and foreign signatures", () => {
    // the fast path (libsodium) must never accept what ZIP-215 refuses, nor refuse what it accepts
    const keys = Array.from({ length: 24 }, (_, i) => ed25519KeyPairFromSeed(new Uint8Array(32).fill(i + 1)));
    let accepted = 0;
    for (let i = 0; i < 240; i++) {
      const kp = keys[i % keys.length]!;
      const msg = sha512(Uint8Array.of(i)).subarray(0, 32);
      const sig = ed25519Sign(kp, msg);
      const cases: [Uint8Array, Uint8Array, Uint8Array][] = [[kp.publicKey, msg, sig]];
      const flipped = Uint8Array.from(sig);
      flipped[i % 64]! ^= 1 << (i % 8);
      cases.push([kp.publicKey, msg, flipped]);
      cases.push([keys[(i + 1) % keys.length]!.publicKey, msg, sig]);
      const otherKey = Uint8Array.from(kp.publicKey);
      otherKey[i % 32]! ^= 0x40;
      cases.push([otherKey, msg, sig]);
      for (const [pk, m, s] of cases) {
        const zip215 = ed25519.verify(s, m, pk, { zip215: true });
        assert.equal(ed25519Verify(pk, m, s), zip215);
        if (zip215) accepted++;
      }
    }
    assert.equal(accepted, 240, "every untouched signature verifies, no altered one does");
  });
});
