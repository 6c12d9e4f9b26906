import type { ComponentChildren } from "preact";
import { AddressType, FeatureType, OutputType, UnlockConditionType } from "../../../src/codec/types";
import type { OutputJson } from "../api";
import { Facts } from "../components";
import { formatAgo, formatNumber, formatTime } from "../format";
import { useFetched } from "../hooks";
import { outputKindName } from "../kindNames";
import { loadCodec } from "./codecLoader";
import { type AddressJson, foundryIdOf, isZeroId } from "./ids";
import { TokenAmount, TokenName } from "./ircMetadata";
import { AddressLink, Amount, DataTable, EntityLink, TextOrHex } from "./parts";

/**
 * Outputs in words (TIP-18): the kind, the amount and native tokens, every unlock condition and
 * feature, and the fields of each chain kind (alias, foundry, NFT), with links to the addresses,
 * chains and tokens they name.
 */

/** The v3 read's type codes (docs/decisions.md, The v3 full-output read) back to Stardust's. */
export const FROM_V3_TYPE: Record<number, number> = { 0: 3, 1: 4, 3: 5, 4: 6 };

interface UnlockConditionJson {
  type: number;
  address?: AddressJson;
  returnAddress?: AddressJson;
  amount?: string;
  unixTime?: number;
}
interface FeatureJson {
  type: number;
  address?: AddressJson;
  data?: string;
  tag?: string;
}
interface NativeTokenJson {
  id: string;
  amount: string;
}

const conditionsOf = (o: OutputJson) => (o.unlockConditions as UnlockConditionJson[] | undefined) ?? [];
const featuresOf = (o: OutputJson, key: "features" | "immutableFeatures") =>
  (o[key] as FeatureJson[] | undefined) ?? [];
export const nativeTokensOf = (o: OutputJson) => (o.nativeTokens as NativeTokenJson[] | undefined) ?? [];

/** The address that holds an output: its address, state controller or controlling alias condition. */
export function ownerOf(o: OutputJson): AddressJson | undefined {
  const owning: number[] = [
    UnlockConditionType.Address,
    UnlockConditionType.StateControllerAddress,
    UnlockConditionType.ImmutableAliasAddress,
  ];
  return conditionsOf(o).find((c) => owning.includes(c.type))?.address;
}

/** A point in time, and whether it has passed (how long ago, within the hour). */
function When({ unixTime }: { unixTime: number }) {
  const ago = Date.now() / 1000 - unixTime;
  return (
    <span data-unix-time={unixTime}>
      {formatTime(unixTime)} ({ago < 0 ? "still ahead" : ago < 3600 ? `passed, ${formatAgo(unixTime)}` : "passed"})
    </span>
  );
}

/** The unlock condition in words: a label and its value. */
function conditionFact(c: UnlockConditionJson, i: number): [string, ComponentChildren, string] {
  const address = c.address && <AddressLink address={c.address} />;
  switch (c.type) {
    case UnlockConditionType.Address:
      return ["Owner (address unlock condition)", address, `uc-address-${i}`];
    case UnlockConditionType.StorageDepositReturn:
      return [
        "Storage deposit return",
        <>
          <Amount value={c.amount ?? "0"} /> must go back to{" "}
          {c.returnAddress && <AddressLink address={c.returnAddress} />} when this output is spent
        </>,
        `uc-storage-deposit-return-${i}`,
      ];
    case UnlockConditionType.Timelock:
      return [
        "Timelock",
        <>
          Cannot be spent before <When unixTime={c.unixTime ?? 0} />
        </>,
        `uc-timelock-${i}`,
      ];
    case UnlockConditionType.Expiration:
      return [
        "Expiration",
        <>
          From <When unixTime={c.unixTime ?? 0} /> only {c.returnAddress && <AddressLink address={c.returnAddress} />}{" "}
          can spend it
        </>,
        `uc-expiration-${i}`,
      ];
    case UnlockConditionType.StateControllerAddress:
      return ["State controller", address, `uc-state-controller-${i}`];
    case UnlockConditionType.GovernorAddress:
      return ["Governor", address, `uc-governor-${i}`];
    case UnlockConditionType.ImmutableAliasAddress:
      return ["Controlling alias (immutable)", address, `uc-immutable-alias-${i}`];
    default:
      return [`Unlock condition of unknown type ${c.type}`, <code key="x">{JSON.stringify(c)}</code>, `uc-${i}`];
  }
}

/** The feature in words; `immutable` for the immutable features of a chain output. */
function featureFact(f: FeatureJson, i: number, immutable: boolean): [string, ComponentChildren, string] {
  const suffix = immutable ? " (immutable)" : "";
  const key = (name: string) => `${immutable ? "immutable-" : ""}${name}-${i}`;
  switch (f.type) {
    case FeatureType.Sender:
      return [`Sender${suffix}`, f.address && <AddressLink address={f.address} />, key("sender")];
    case FeatureType.Issuer:
      return [`Issuer${suffix}`, f.address && <AddressLink address={f.address} />, key("issuer")];
    case FeatureType.Metadata:
      return [`Metadata${suffix}`, <TextOrHex key="m" hex={f.data ?? "0x"} />, key("metadata")];
    case FeatureType.Tag:
      return [
        `Tag${suffix}`,
        <>
          <TextOrHex hex={f.tag ?? "0x"} />{" "}
          <EntityLink kind="tag" id={f.tag ?? "0x"}>
            outputs with this tag
          </EntityLink>
        </>,
        key("tag"),
      ];
    default:
      return [`Feature of unknown type ${f.type}`, <code key="x">{JSON.stringify(f)}</code>, key("feature")];
  }
}

/**
 * The ID of an alias or NFT output: its own field, or, on the output that created the chain
 * (zero ID, TIP-18), BLAKE2b-256 of the output ID, which takes the codec (loaded for it).
 */
export function useChainId(outputId: string | undefined, field: string | undefined): string | undefined {
  const zero = field !== undefined && isZeroId(field);
  const computed = useFetched(
    async () => (zero && outputId ? (await loadCodec()).chainIdOfOutput(outputId) : undefined),
    [zero, outputId],
  );
  return zero ? computed.data : field;
}

/**
 * Native tokens as a list of token (foundry) links with their amounts: scaled by the token's
 * decimals with its symbol and name when it has IRC-30 metadata (ircMetadata.tsx), else in base units.
 */
export function NativeTokens({ tokens }: { tokens: NativeTokenJson[] }) {
  if (tokens.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="plain-list">
      {tokens.map((t) => (
        <li key={t.id} data-token={t.id} data-token-amount={BigInt(t.amount).toString()}>
          <TokenAmount tokenId={t.id} amount={t.amount} /> of token <TokenName tokenId={t.id} />
          <EntityLink kind="foundry" id={t.id} />
        </li>
      ))}
    </ul>
  );
}

/** Everything an output says, in words. `outputId` lets a chain output created here name its chain. */
export function OutputFields({ output, outputId }: { output: OutputJson; outputId?: string }) {
  const type = output.type;
  const aliasId = useChainId(outputId, type === OutputType.Alias ? (output.aliasId as string) : undefined);
  const nftId = useChainId(outputId, type === OutputType.Nft ? (output.nftId as string) : undefined);
  const controller = conditionsOf(output).find((c) => c.type === UnlockConditionType.ImmutableAliasAddress)?.address;
  const scheme = output.tokenScheme as
    | { type: number; mintedTokens: string; meltedTokens: string; maximumSupply: string }
    | undefined;
  const foundryId =
    type === OutputType.Foundry && controller?.type === AddressType.Alias && scheme
      ? foundryIdOf(controller.aliasId as string, output.serialNumber as number, scheme.type)
      : undefined;

  return (
    <Facts
      items={[
        ["Kind", outputKindName(type), "kind"],
        ["Amount", <Amount key="a" value={output.amount} />, "amount"],
        ["Native tokens", <NativeTokens key="n" tokens={nativeTokensOf(output)} />, "native-tokens"],
        type === OutputType.Alias && ["Alias", aliasId ? <EntityLink kind="alias" id={aliasId} /> : "…", "alias-id"],
        type === OutputType.Alias && ["State index", formatNumber(output.stateIndex as number), "state-index"],
        type === OutputType.Alias &&
          output.stateMetadata !== undefined && [
            "State metadata",
            <TextOrHex key="s" hex={output.stateMetadata as string} />,
            "state-metadata",
          ],
        type === OutputType.Alias && [
          "Foundries created",
          formatNumber(output.foundryCounter as number),
          "foundry-counter",
        ],
        type === OutputType.Nft && ["NFT", nftId ? <EntityLink kind="nft" id={nftId} /> : "…", "nft-id"],
        type === OutputType.Foundry && [
          "Foundry (token ID)",
          foundryId ? <EntityLink kind="foundry" id={foundryId} /> : "unreadable",
          "foundry-id",
        ],
        type === OutputType.Foundry && ["Serial number", String(output.serialNumber), "serial-number"],
        type === OutputType.Foundry &&
          scheme !== undefined && [
            "Token scheme",
            <span key="t" data-minted={BigInt(scheme.mintedTokens).toString()}>
              {scheme.type === 0 ? "simple" : `type ${scheme.type}`}:{" "}
              <TokenAmount tokenId={foundryId} amount={scheme.mintedTokens} /> minted,{" "}
              <TokenAmount tokenId={foundryId} amount={scheme.meltedTokens} /> melted, at most{" "}
              <TokenAmount tokenId={foundryId} amount={scheme.maximumSupply} />
            </span>,
            "token-scheme",
          ],
        ...conditionsOf(output).map(conditionFact),
        ...featuresOf(output, "features").map((f, i) => featureFact(f, i, false)),
        ...featuresOf(output, "immutableFeatures").map((f, i) => featureFact(f, i, true)),
      ]}
    />
  );
}

/**
 * A table of outputs (a transaction's inputs or outputs): a row each (`OutputRow`) with the
 * columns output, kind, amount and owner, and the caller's columns `lead` before and `extra`
 * after them. `label` names the table's scrolling region; `tableData` is a `data-*` attribute
 * that names the table for tests and styling.
 */
export function OutputTable({
  label,
  tableData,
  lead,
  extra,
  children,
}: {
  label: string;
  tableData: Record<`data-${string}`, string | true>;
  lead?: string;
  extra?: string;
  children: ComponentChildren;
}) {
  return (
    <DataTable label={label} headings={[lead, "Output", "Kind", "Amount", "Owner", extra]} tableData={tableData}>
      {children}
    </DataTable>
  );
}

/**
 * A row of an `OutputTable`: the output's link, kind, amount and owner, "…" for what is not
 * known yet (the ID while the transaction ID is hashed, the output while it is read); `lead` and
 * `extra` are the caller's cells before and after them. `data-output-row` names the output.
 */
export function OutputRow({
  id,
  output,
  lead,
  extra,
}: {
  id: string | undefined;
  output: OutputJson | undefined;
  lead?: ComponentChildren;
  extra?: ComponentChildren;
}) {
  const owner = output && ownerOf(output);
  return (
    <tr data-output-row={id}>
      {lead}
      <td>{id ? <EntityLink kind="output" id={id} /> : "…"}</td>
      <td>{output ? outputKindName(output.type) : "…"}</td>
      <td>{output ? <Amount value={output.amount} /> : "…"}</td>
      <td>{owner ? <AddressLink address={owner} /> : output ? "—" : "…"}</td>
      {extra}
    </tr>
  );
}
