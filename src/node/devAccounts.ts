import { mnemonicToSeedSync, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { HDKey } from "micro-key-producer/slip10.js";
import { ed25519AddressOf } from "../codec/address.js";
import type { Ed25519Address } from "../codec/types.js";
import { blake2b256 } from "../crypto/blake2b.js";
import { LedgerNodeError } from "../util/ledgerNodeError.js";
import { NodeErrorCode } from "./errors.js";
import type { Allocation } from "./genesis.js";

/**
 * The dev network's funded accounts (docs/decisions.md, A node for builders): keys derived from a
 * BIP-39 mnemonic along the path the IOTA SDK's wallet derives its accounts' first addresses on,
 * BIP-44 with SLIP-10 Ed25519 `m/44'/<coin type>'/<account>'/0'/0'` (every level hardened, as
 * SLIP-10 requires of Ed25519), so `new Wallet({ secretManager: { mnemonic }, coinType })` finds
 * account N's funds at its account N without a faucet. The mnemonic is Anvil's and Hardhat's
 * well-known one unless `--dev-mnemonic` names another: test funds only, public on purpose.
 */

/** The well-known mnemonic (Anvil's and Hardhat's): printed at start, never for real funds. */
export const DEFAULT_DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** SLIP-44 coin type of Shimmer (the SDK's `CoinType.Shimmer`); IOTA's is 4218. */
export const SHIMMER_COIN_TYPE = 4219;
/** What each dev account holds at genesis, in base units: 1,000,000 tokens of 6 decimals. */
export const DEV_ACCOUNT_BALANCE = 1_000_000_000_000n;
/** Dev accounts at most: with the dev key's output, a genesis holds 128 outputs at most (TIP-20). */
export const MAX_DEV_ACCOUNTS = 127;

export interface DevAccountsOptions {
  mnemonic: string;
  count: number;
  coinType: number;
}

export interface DevAccount {
  index: number;
  /** `m/44'/<coin type>'/<index>'/0'/0'` */
  path: string;
  /** The Ed25519 seed (SLIP-10's private key) signing for the address. */
  seed: Uint8Array;
  publicKey: Uint8Array;
  address: Ed25519Address;
}

/** The mnemonic in BIP-39's normal form (single spaces, lower case), or a refusal saying why not. */
export function normalMnemonic(text: string): string {
  const words = text.trim().toLowerCase().split(/\s+/);
  const mnemonic = words.join(" ");
  if (![12, 15, 18, 21, 24].includes(words.length)) {
    throw new LedgerNodeError(
      NodeErrorCode.InvalidMnemonic,
      `not a BIP-39 mnemonic: ${words.length} words, BIP-39 has 12, 15, 18, 21 or 24`,
    );
  }
  const unknown = words.find((w) => !wordlist.includes(w));
  if (unknown !== undefined) {
    throw new LedgerNodeError(
      NodeErrorCode.InvalidMnemonic,
      `not a BIP-39 mnemonic: "${unknown}" is not in BIP-39's English word list`,
    );
  }
  if (!validateMnemonic(mnemonic, wordlist)) {
    throw new LedgerNodeError(NodeErrorCode.InvalidMnemonic, "not a BIP-39 mnemonic: its checksum does not match");
  }
  return mnemonic;
}

/** Accounts 0..count-1 of the mnemonic (checked first) for `coinType`. */
export function deriveDevAccounts(options: DevAccountsOptions): DevAccount[] {
  if (options.count === 0) return [];
  const master = HDKey.fromMasterSeed(mnemonicToSeedSync(normalMnemonic(options.mnemonic)));
  return Array.from({ length: options.count }, (_, index) => {
    const path = `m/44'/${options.coinType}'/${index}'/0'/0'`;
    const key = master.derive(path);
    const publicKey = key.publicKeyRaw;
    return { index, path, seed: key.privateKey, publicKey, address: ed25519AddressOf(blake2b256(publicKey)) };
  });
}

/** The genesis allocations of the accounts, `DEV_ACCOUNT_BALANCE` each. */
export function devAccountAllocations(accounts: readonly DevAccount[]): Allocation[] {
  return accounts.map((a) => ({ address: a.address, amount: DEV_ACCOUNT_BALANCE }));
}
