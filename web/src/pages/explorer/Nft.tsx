import { ChainPage } from "../../explorer/chainPage";

/** `/dashboard/explorer/nft/:nftId`: the NFT's current output and its history (explorer/chainPage.tsx). */
export function NftPage({ nftId }: { nftId: string }) {
  return <ChainPage kind="nft" id={nftId} />;
}
