import { serializeAddressBytes } from "../codec/address.js";
import { bytesEqual } from "../codec/hex.js";
import { type Output, OutputType, UnlockConditionType } from "../codec/types.js";
import { type AddressConditionalEntry, ConditionalRole } from "../storage/index.js";

/**
 * The explorer balance of an address (Chronicle's `/api/explorer/v2/balance/{address}`, with the
 * ledger's rule for a reclaimed storage deposit return; docs/decisions.md, Explorer), decided at
 * read time against the latest milestone's timestamp T from the stored total (a plain sum of the
 * owned outputs, which the rankings use) and the address's AddressConditional entries:
 *
 * - an output the address owns counts for it while it has not expired (no expiration, or one
 *   later than T: at or after its unix time only the return address unlocks it, TIP-18), less
 *   its storage deposit return amount, which the owner pays back when it spends the output
 *   (TIP-18), unless that return address is the owner itself; it is available unless timelocked
 *   (timelock later than T);
 * - an expired output whose expiration names the address as return address counts for it in
 *   full, less the storage deposit return amount when that return address is another one: an
 *   input unlocked by its return address owes nothing (ledger/semantic/verifyBalances.ts);
 *   available unless timelocked, as above;
 * - an expired output counts for its owner in neither figure.
 */

/** The most AddressConditional entries one balance read examines (docs/decisions.md, Threats). */
export const MAX_CONDITIONAL_READ = 10_000;

/** One AddressConditional entry and the address it is filed under. */
export interface AddressConditionalWrite {
  address: Uint8Array;
  entry: AddressConditionalEntry;
}

/**
 * The AddressConditional entries of an unspent output owned by `owner` (33 serialized bytes):
 * the owner's when it has a timelock, an expiration or a storage deposit return; the expiration
 * return address's when it has an expiration. Every writer (a milestone's batch, a bulk load, a
 * rebuild) files them through this function, so they agree entry for entry.
 */
export function conditionalEntries(outputId: Uint8Array, output: Output, owner: Uint8Array): AddressConditionalWrite[] {
  if (output.type !== OutputType.Basic && output.type !== OutputType.Nft) return [];
  let timelock = 0;
  let expiration: { returnAddress: Uint8Array; unixTime: number } | undefined;
  let storageReturn: { returnAddress: Uint8Array; amount: bigint } | undefined;
  for (const uc of output.unlockConditions) {
    if (uc.type === UnlockConditionType.Timelock) timelock = uc.unixTime;
    if (uc.type === UnlockConditionType.Expiration)
      expiration = { returnAddress: serializeAddressBytes(uc.returnAddress), unixTime: uc.unixTime };
    if (uc.type === UnlockConditionType.StorageDepositReturn)
      storageReturn = { returnAddress: serializeAddressBytes(uc.returnAddress), amount: uc.amount };
  }
  if (!timelock && !expiration && !storageReturn) return [];
  const entryOf = (address: Uint8Array, role: ConditionalRole): AddressConditionalWrite => ({
    address,
    entry: {
      role,
      expiration: expiration?.unixTime ?? 0,
      outputId,
      amount: output.amount,
      timelock,
      storageReturn: storageReturn?.amount ?? 0n,
      returnsToSelf: storageReturn !== undefined && bytesEqual(storageReturn.returnAddress, address),
    },
  });
  const out = [entryOf(owner, ConditionalRole.Owner)];
  if (expiration) out.push(entryOf(expiration.returnAddress, ConditionalRole.ExpirationReturn));
  return out;
}

/** An address's explorer balance (see above): what it holds, and what it can unlock now. */
export interface ExplorerBalance {
  total: bigint;
  available: bigint;
}

/**
 * The explorer balance at `timestamp` from the stored total of the outputs the address owns and
 * its conditional entries: all of its owner entries, and its expiration return entries (those
 * not expired at `timestamp` count nothing).
 */
export function explorerBalance(
  storedTotal: bigint,
  entries: readonly AddressConditionalEntry[],
  timestamp: number,
): ExplorerBalance {
  let total = storedTotal;
  let available = storedTotal;
  for (const e of entries) {
    // TIP-18: expired at or after the expiration's unix time, timelocked before the timelock's
    const expired = e.expiration !== 0 && e.expiration <= timestamp;
    const locked = e.timelock !== 0 && e.timelock > timestamp;
    // what the address keeps of the output once it has paid the storage deposit return back
    const kept = e.amount - (e.returnsToSelf ? 0n : e.storageReturn);
    if (e.role === ConditionalRole.Owner) {
      // the stored total counts the whole amount
      const dropped = expired ? e.amount : e.amount - kept;
      total -= dropped;
      available -= dropped;
      if (!expired && locked) available -= kept;
    } else if (expired) {
      total += kept;
      if (!locked) available += kept;
    }
  }
  return { total, available };
}
