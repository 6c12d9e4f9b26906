import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromHex, toHex } from "../../src/codec/hex.js";
import {
  b1t6Encode,
  curlP81,
  powCurlInput,
  powDigest,
  powHash,
  powScore,
  readNonce,
  trailingZeros,
} from "../../src/pow/index.js";
import { tritsToTrytes, trytesToTrits } from "./powTrytes.js";

// The first vectors of iota.go's curl/testdata/curlp81.json: one 243-trit block absorbed,
// 243 trits squeezed.
const CURL_VECTORS: [input: string, hash: string][] = [
  [
    "QZELVPOZTGSBCMEIZWZBGFSRPQNSMBREV9QD9JINWPNHHVCIFFGMHUH99OLWPXUZ9AWKJVYEC9JDTKRZO",
    "9MMGDFTUNMXVFRWTMVYWHKIUMJRWZPYVYDYHNATZWSLWPUSULDZVSJJXQPKXENXJFLTSEEMBJIWZLLXBX",
  ],
  [
    "ZYMHMWWBGGZYFLBGVBIUIRBWBIZOJEVOBUSIVUEIHI9S9EHIVZPZWGHG9THDDPBNIXDLCPYIAVQELZEFD",
    "KMNWODCXRXYVGKSTRTAOV9SQDHIVKACSHGQQINUNVFITWFHOCEWEZDVVUBDVJJLTESKTOUAXBSBICGL9K",
  ],
  [
    "IBCOIDJ9TCZZSDRD9XCILKQIFOZWQPDEGPXSBOTZPZROFJVCVOECEDNBOCMJIDWQSUKDVIIQDEU9CNDVH",
    "KNLJDCZEXQZOSUIZWTJIQPEUOKERQXUNAEHRGQHIJUUSIRKRJYRFUHG9KKCPTAZTHPC9PEHIIUFWYKBFV",
  ],
  [
    "DW9CCXYXELKVWZBC9SRAXXZF9GZB9CPEOGCNZUHJOKVZVOMITPCVQVPN9HSVX9YGUOGXGVNAEYXWMNXYX",
    "FDKAZRWMHEL9GQY9RQVGKHCZSXVJJMFHVAJMMGWGDUZQC9WVMNISPKY9VZBHNHODWXHDTWGOHODLIRYJG",
  ],
  [
    "REHTYFYFKGJOVXKSBCENUNPIDONAVVAVSXPRCDEASVJTBTOJCZPUJRGNEYAGVLXEGAESFHMRBBYAHKIXI",
    "GAJLUCMLPWLGOZLNBS9RC9ILYAUQZXNWKUEZXFUYSPROCIRLNKKNIUV9GGVJSQFWRIMXNEEMRDSCBEBDJ",
  ],
];

// Vectors of iota.go's encoding/b1t6 tests (TIP-5 examples among them).
const B1T6_VECTORS: [hex: string, trytes: string][] = [
  ["0x", ""],
  ["0x01", "A9"],
  ["0x7f", "SE"],
  ["0x80", "GV"],
  ["0xff", "Z9"],
  ["0x0001", "99A9"],
  ["0x00", "99"],
  ["0x0001027e7f8081fdfeff", "99A9B9RESEGVHVX9Y9Z9"],
  [
    "0x9ba06c78552776a596dfe360cc2b5bf644c0f9d343a10e2e71debecd30730d03",
    "GWLW9DLDDCLAJDQXBWUZYZODBYPBJCQ9NCQYT9IYMBMWNASBEDTZOYCYUBGDM9C9",
  ],
];

describe("TIP-12 / TIP-5 vectors", () => {
  it("Curl-P-81 matches the iota.go curlp81 vectors", () => {
    for (const [input, hash] of CURL_VECTORS) {
      assert.equal(tritsToTrytes(curlP81(trytesToTrits(input))), hash);
    }
  });

  it("b1t6 matches the reference vectors", () => {
    for (const [hex, trytes] of B1T6_VECTORS) {
      assert.equal(tritsToTrytes(b1t6Encode(fromHex(hex, "vector"))), trytes, hex);
    }
    const long = new Uint8Array(50).map((_, i) => i & 1);
    assert.equal(tritsToTrytes(b1t6Encode(long)), "99A9".repeat(25));
  });

  it("reproduces every step of the TIP-12 example", () => {
    const block = fromHex("0x48656c6c6f2c20576f726c64215ee6aaaaaaaaaaaa", "block");
    const digest = powDigest(block);
    assert.equal(toHex(digest), "0x511bc81dde11180838c562c82bb35f3223f46061ebde4a955c27b3f489cf1e03");
    const nonce = readNonce(block);
    assert.equal(nonce, 12297829382473049694n);
    assert.equal(
      tritsToTrytes(powCurlInput(digest, nonce)),
      "9C9AYYBATZQAXAH9BBVYQDYYPBDXNDWBHAO9ODPDFZTZTCAWKCLADXO9PWEYCAC9MCAZVXVXVXVXVXVX9",
    );
    assert.equal(
      tritsToTrytes(powHash(digest, nonce)),
      "DJCAGKILZPLXNXWFTNXFLCHRFVUHHMTPFIOFKQXMGIKITSEVWECMQOKCFXDIIHK9YVHGQICAIVEVDJ999",
    );
    assert.equal(trailingZeros(digest, nonce), 9);
    assert.equal(powScore(block), 937.2857142857143);
  });

  it("matches iota.go's score vectors", () => {
    assert.equal(powScore(new Uint8Array(8)), 3 / 8);
    assert.equal(powScore(Uint8Array.of(203, 124, 2, 0, 0, 0, 0, 0)), 3 ** 10 / 8);
    assert.equal(powScore(Uint8Array.of(65, 235, 119, 85, 85, 85, 85, 85)), 3 ** 14 / 8);
    assert.equal(powScore(new Uint8Array(10000)), 1 / 10000);
  });
});
