import { ChainPage } from "../../explorer/chainPage";
import { NftMetadataCard } from "../../explorer/ircMetadata";

/**
 * `/dashboard/explorer/nft/:nftId`: the NFT's current output, its IRC-27 metadata (name,
 * collection, description, URI, image; explorer/ircMetadata.tsx) and its history
 * (explorer/chainPage.tsx).
 */
export function NftPage({ nftId }: { nftId: string }) {
  return <ChainPage kind="nft" id={nftId} details={(id) => <NftMetadataCard nftId={id} />} />;
}
