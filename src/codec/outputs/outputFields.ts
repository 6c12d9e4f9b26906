import {
  deserializeFeatures,
  type FeatureJson,
  featuresFromJson,
  featuresToJson,
  serializeFeatures,
} from "../features.js";
import { expectObject, expectU8, expectU64String, type JsonObject } from "../json.js";
import {
  deserializeNativeTokens,
  type NativeTokenJson,
  nativeTokensFromJson,
  nativeTokensToJson,
  serializeNativeTokens,
} from "../nativeTokens.js";
import type { ReadStream } from "../readStream.js";
import {
  type AliasOutput,
  type BasicOutput,
  type Feature,
  type FoundryOutput,
  type NativeToken,
  type NftOutput,
  OutputType,
  type UnlockCondition,
} from "../types.js";
import {
  deserializeUnlockConditions,
  serializeUnlockConditions,
  type TypedListRules,
  type UnlockConditionJson,
  unlockConditionsFromJson,
  unlockConditionsToJson,
} from "../unlockConditions.js";
import type { WriteStream } from "../writeStream.js";
import { expectOutputType } from "./expectOutputType.js";

/**
 * The fields the basic, alias, foundry and NFT outputs share (TIP-18). Each layout begins
 * u8 type | u64 amount | native tokens (the head), then the kind's own fields, and ends
 * unlock conditions | features, and immutable features on every kind but the basic output
 * (the tail). A kind's module reads and writes its own fields between its `OutputKind`'s head
 * and tail.
 */

type HeadedOutput = BasicOutput | AliasOutput | FoundryOutput | NftOutput;
type HeadedType = HeadedOutput["type"];

/** The amount and native tokens (the type is the kind's). */
export interface OutputHead {
  amount: bigint;
  nativeTokens: NativeToken[];
}

export interface OutputTail {
  unlockConditions: UnlockCondition[];
  features: Feature[];
}

export interface ChainOutputTail extends OutputTail {
  immutableFeatures: Feature[];
}

/** TIP-25 JSON of the head and the tail; empty lists are left out, as Stardust nodes answer them. */
export interface HeadedOutputJson<T extends HeadedType> {
  type: T;
  amount: string;
  nativeTokens?: NativeTokenJson[];
  unlockConditions: UnlockConditionJson[];
  features?: FeatureJson[];
}

export interface ChainOutputJson<T extends HeadedType> extends HeadedOutputJson<T> {
  immutableFeatures?: FeatureJson[];
}

/** One kind of output: its type, its name in messages and the rules of its lists. */
export class OutputKind<T extends HeadedType, Tail extends OutputTail> {
  private constructor(
    readonly type: T,
    /** The kind in messages: "expected NFT output type 6". */
    readonly name: string,
    private readonly unlockConditions: TypedListRules,
    private readonly features: TypedListRules,
    private readonly immutableFeatures?: TypedListRules,
  ) {}

  /** The basic output's kind: no immutable features. */
  static basic(unlockConditions: TypedListRules, features: TypedListRules): OutputKind<3, OutputTail> {
    return new OutputKind(OutputType.Basic, "basic", unlockConditions, features);
  }

  /** A chain output's kind (alias, foundry, NFT): its tail ends with immutable features. */
  static chain<T extends HeadedType>(
    type: T,
    name: string,
    rules: { unlockConditions: TypedListRules; features: TypedListRules; immutableFeatures: TypedListRules },
  ): OutputKind<T, ChainOutputTail> {
    return new OutputKind(type, name, rules.unlockConditions, rules.features, rules.immutableFeatures);
  }

  serializeHead(w: WriteStream, o: HeadedOutput): void {
    w.u8(o.type);
    w.u64(o.amount);
    serializeNativeTokens(w, o.nativeTokens);
  }

  serializeTail(w: WriteStream, o: HeadedOutput): void {
    serializeUnlockConditions(w, o.unlockConditions);
    serializeFeatures(w, o.features);
    if (o.type !== OutputType.Basic) serializeFeatures(w, o.immutableFeatures);
  }

  /** Fails unless the type byte is the kind's; errors name fields below `field`, e.g. `${field}.amount`. */
  deserializeHead(r: ReadStream, field: string): OutputHead {
    expectOutputType(r.u8(`${field}.type`), this.type, this.name, field);
    return {
      amount: r.u64(`${field}.amount`),
      nativeTokens: deserializeNativeTokens(r, `${field}.nativeTokens`),
    };
  }

  deserializeTail(r: ReadStream, field: string): Tail {
    const unlockConditions = deserializeUnlockConditions(r, `${field}.unlockConditions`, this.unlockConditions);
    const features = deserializeFeatures(r, `${field}.features`, this.features);
    if (this.immutableFeatures === undefined) return { unlockConditions, features } as Tail;
    const immutableFeatures = deserializeFeatures(r, `${field}.immutableFeatures`, this.immutableFeatures);
    return { unlockConditions, features, immutableFeatures } as OutputTail as Tail;
  }

  /**
   * TIP-25 JSON of `o` with `own`, the kind's own fields, between the head's and the tail's (the
   * order of the layout); empty lists are left out, as Stardust nodes answer them.
   */
  toJson<J extends HeadedOutputJson<T>>(o: HeadedOutput, own: Omit<J, keyof ChainOutputJson<T>>): J {
    const json: JsonObject = { type: o.type, amount: o.amount.toString() };
    if (o.nativeTokens.length > 0) json.nativeTokens = nativeTokensToJson(o.nativeTokens);
    Object.assign(json, own);
    json.unlockConditions = unlockConditionsToJson(o.unlockConditions);
    if (o.features.length > 0) json.features = featuresToJson(o.features);
    if (o.type !== OutputType.Basic && o.immutableFeatures.length > 0) {
      json.immutableFeatures = featuresToJson(o.immutableFeatures);
    }
    return json as J;
  }

  /**
   * The output's JSON object, its keys checked (the shared ones, and the kind's: `own` required,
   * `ownOptional` not), and its type the kind's.
   */
  expectJson(json: unknown, field: string, own: readonly string[], ownOptional: readonly string[] = []): JsonObject {
    const optional = ["nativeTokens", ...ownOptional, "features"];
    if (this.immutableFeatures !== undefined) optional.push("immutableFeatures");
    const o = expectObject(json, field, ["type", "amount", ...own, "unlockConditions"], optional);
    expectOutputType(expectU8(o.type, `${field}.type`), this.type, this.name, field);
    return o;
  }

  /** Rejects what `deserializeHead` rejects, under the same code and field path; missing native tokens mean none. */
  headFromJson(o: JsonObject, field: string): OutputHead {
    return {
      amount: expectU64String(o.amount, `${field}.amount`),
      nativeTokens: nativeTokensFromJson(o.nativeTokens, `${field}.nativeTokens`),
    };
  }

  /** Rejects what `deserializeTail` rejects; missing features mean none. */
  tailFromJson(o: JsonObject, field: string): Tail {
    const unlockConditions = unlockConditionsFromJson(
      o.unlockConditions,
      `${field}.unlockConditions`,
      this.unlockConditions,
    );
    const features = featuresFromJson(o.features, `${field}.features`, this.features);
    if (this.immutableFeatures === undefined) return { unlockConditions, features } as Tail;
    const immutableFeatures = featuresFromJson(
      o.immutableFeatures,
      `${field}.immutableFeatures`,
      this.immutableFeatures,
    );
    return { unlockConditions, features, immutableFeatures } as OutputTail as Tail;
  }
}
