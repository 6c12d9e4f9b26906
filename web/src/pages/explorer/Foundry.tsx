import { ChainPage } from "../../explorer/chainPage";
import { TokenMetadataCard } from "../../explorer/ircMetadata";

/**
 * `/dashboard/explorer/foundry/:foundryId`: the foundry's current output, its token's IRC-30
 * metadata (explorer/ircMetadata.tsx) and its history (explorer/chainPage.tsx).
 */
export function FoundryPage({ foundryId }: { foundryId: string }) {
  return <ChainPage kind="foundry" id={foundryId} details={(id) => <TokenMetadataCard tokenId={id} />} />;
}
