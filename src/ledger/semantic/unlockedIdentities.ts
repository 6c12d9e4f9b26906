/**
 * The identities (addresses) a transaction has unlocked so far, walking its inputs in order
 * (TIP-20 unlock semantics, TIP-18 chain unlocking). Each identity remembers the input index
 * whose unlock established it, and the later inputs that referenced it:
 * - an Ed25519 address is established by a Signature Unlock and referenced by Reference Unlocks;
 * - an alias address is established by its alias input when that alias is state transitioned,
 *   an NFT address by its NFT input, and both are referenced by Alias / NFT Unlocks.
 * A reference must name the exact establishing index, never another referencing input.
 */
export class UnlockedIdentities {
  private readonly idents = new Map<string, { unlockedAt: number; referencedBy: Set<number> }>();

  /** True when the identity was unlocked by some input of the transaction. */
  has(key: string): boolean {
    return this.idents.has(key);
  }

  /** Index of the input that established the identity, if any. */
  unlockedAt(key: string): number | undefined {
    return this.idents.get(key)?.unlockedAt;
  }

  /** Records that input `inputIndex` established the identity. */
  establish(key: string, inputIndex: number): void {
    this.idents.set(key, { unlockedAt: inputIndex, referencedBy: new Set() });
  }

  /**
   * Records that input `inputIndex` is unlocked by referencing input `reference`; false when
   * the identity was not established at exactly that index.
   */
  reference(key: string, reference: number, inputIndex: number): boolean {
    const ident = this.idents.get(key);
    if (ident === undefined || ident.unlockedAt !== reference) return false;
    ident.referencedBy.add(inputIndex);
    return true;
  }

  /** True when input `inputIndex` was unlocked by the identity, directly or by reference. */
  unlockedBy(inputIndex: number, key: string): boolean {
    const ident = this.idents.get(key);
    return ident !== undefined && (ident.unlockedAt === inputIndex || ident.referencedBy.has(inputIndex));
  }
}
