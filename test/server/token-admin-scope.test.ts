/**
 * Issue 49 row 1: other people's tokens are the console's, not a lock's. Over real HTTP on the
 * shared masters, with people arriving through the authenticating proxy: an admin over payments'
 * locks only may list and revoke her own tokens, never bob's (403, bob's token untouched on every
 * node and still working); an admin over every lock may do both.
 */
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody, SessionResponse, TokensResponse } from "@/lib/api";
import { recordKeyOf } from "@/lib/server/auth/personal-tokens/token-store";
import { connect, disconnect, sharedUrls } from "../masters";
import { useProxyPeople } from "./fixtures/proxy-people";

const people = useProxyPeople([
  { group: "payments-admins", role: "admin", resources: ["payments:*"] },
  { group: "sre", role: "admin" },
  { group: "everyone", role: "viewer" },
]);
const ALICE = ["payments-admins", "everyone"]; // admin of payments:* only
const BOB = ["everyone"];
const SAM = ["sre"]; // admin of every lock

let nodes: Redis[];
let bobs: { id: string; secret: string };
const recordsOnNodes = (id: string) =>
  Promise.all(nodes.map((node) => node.exists(recordKeyOf(id))));

beforeAll(async () => {
  nodes = connect(sharedUrls());
  const created = await people.as<{ token: { id: string }; secret: string }>(
    "bob",
    BOB,
    "/api/tokens",
    { body: { name: "bob-dashboard", grants: [{ role: "viewer" }], expiresInHours: 1 } },
  );
  expect(created.status).toBe(201);
  bobs = { id: created.body.token.id, secret: created.body.secret };
});
afterAll(async () => {
  await Promise.all(nodes.map((node) => node.del(recordKeyOf(bobs.id))));
  await disconnect(nodes);
});

describe("another person's tokens need admin over every lock", () => {
  it("refuses a payments-only admin everyone's tokens (403, saying why) and lists only her own", async () => {
    const all = await people.as<ErrorBody>("alice", ALICE, "/api/tokens?owner=all");
    expect(all.status).toBe(403);
    expect(all.body.error).toEqual({
      code: "forbidden",
      message:
        "Managing other people's tokens needs admin for every lock; you have admin for resource payments:*.",
    });
    const mine = await people.as<TokensResponse>("alice", ALICE, "/api/tokens");
    expect(mine.status).toBe(200);
    expect(mine.body.canRevokeOthers).toBe(false);
    expect(mine.body.tokens.map((token) => token.id)).not.toContain(bobs.id);
  });

  it("refuses a payments-only admin revoking bob's token: 403, on every node still, and it still works", async () => {
    const revoke = await people.as<ErrorBody>("alice", ALICE, `/api/tokens/${bobs.id}`, {
      method: "DELETE",
    });
    expect(revoke.status).toBe(403);
    expect(revoke.body.error.code).toBe("forbidden");
    expect(revoke.body.error.message).toContain("needs admin for every lock");
    expect(await recordsOnNodes(bobs.id)).toEqual([1, 1, 1, 1, 1]);
    const asBob = await people.direct<SessionResponse>(bobs.secret, "/api/session");
    expect(asBob.body).toMatchObject({ authenticated: true, credential: "personal-token" });
  });

  it("lets an admin over every lock list bob's token and revoke it: gone on every node, then 401", async () => {
    const all = await people.as<TokensResponse>("sam", SAM, "/api/tokens?owner=all");
    expect(all.status).toBe(200);
    expect(all.body.canRevokeOthers).toBe(true);
    expect(all.body.tokens.map((token) => token.id)).toContain(bobs.id);
    const revoke = await people.as("sam", SAM, `/api/tokens/${bobs.id}`, { method: "DELETE" });
    expect(revoke.status).toBe(200);
    expect(await recordsOnNodes(bobs.id)).toEqual([0, 0, 0, 0, 0]);
    expect((await people.direct(bobs.secret, "/api/session")).status).toBe(401);
  });
});
