import type { Metadata } from "next";
import { TokensClient } from "./client";

export const metadata: Metadata = { title: "Tokens" };

export default function TokensPage() {
  return <TokensClient />;
}
