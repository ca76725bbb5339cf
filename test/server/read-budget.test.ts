/**
 * Issue 49 row 12: the read budget is who asks, known before it is charged. Over real HTTP on the
 * shared masters (CONSOLE_READ_LIMIT_PER_S=1: bursts of 10): anonymous reads that spent an
 * address's budget leave the break-glass token, a person through the proxy and a personal token
 * from that very address reading; each of those is limited by its own budget; and a flood of wrong
 * `rlc_` tokens is stopped by the wrong-credential budget, each of its node reads counted.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody } from "@/lib/api";
import { recordKeyOf } from "@/lib/server/auth/personal-tokens/token-store";
import { connect, disconnect, sharedUrls } from "../masters";
import { PROXY_ADDRESS, useProxyPeople } from "./fixtures/proxy-people";
import { ADMIN_TOKEN } from "./helpers";

const people = useProxyPeople([{ group: "everyone", role: "viewer" }], {
  publicRead: true,
  readLimitPerS: 1,
});
const EVERYONE = ["everyone"];
/** More reads than any budget here holds (10), whatever the speed the bucket refills at. */
const FLOOD = 200;

let nodes: Redis[];
let dana: { id: string; secret: string };

beforeAll(async () => {
  nodes = connect(sharedUrls());
  const created = await people.as<{ token: { id: string }; secret: string }>(
    "dana",
    EVERYONE,
    "/api/tokens",
    { body: { name: "dana-dashboard", grants: [{ role: "viewer" }], expiresInHours: 1 } },
  );
  expect(created.status).toBe(201);
  dana = { id: created.body.token.id, secret: created.body.secret };
});
afterAll(async () => {
  await Promise.all(nodes.map((node) => node.del(recordKeyOf(dana.id))));
  await disconnect(nodes);
});

/** Reads with `read` until one is refused; that refusal (or the last answer, if none was). */
async function spend(read: () => Promise<{ status: number; body: unknown }>) {
  let answer = await read();
  for (let sent = 1; sent < FLOOD && answer.status === 200; sent += 1) answer = await read();
  return answer as { status: number; body: ErrorBody };
}

const statusesOf = async (count: number, read: () => Promise<{ status: number }>) => {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 1) statuses.push((await read()).status);
  return statuses;
};

describe("each read is charged to who asks", () => {
  it("an address's anonymous reads spent, the break-glass token, a person and a token from it still read", async () => {
    const anonymous = await spend(() => people.direct(null, "/api/nodes", { from: PROXY_ADDRESS }));
    expect(anonymous.status).toBe(429);
    expect(anonymous.body.error.message).toMatch(
      /^Too many anonymous reads from this client address: retry in \d+ s\.$/,
    );
    const fromThere = { from: PROXY_ADDRESS };
    // Five each, at once after the refusal: the address's budget would have refilled one a second.
    expect(await statusesOf(5, () => people.direct(ADMIN_TOKEN, "/api/nodes", fromThere))).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect(await statusesOf(5, () => people.as("dana", EVERYONE, "/api/nodes"))).toEqual([
      200, 200, 200, 200, 200,
    ]);
    expect(await statusesOf(5, () => people.direct(dana.secret, "/api/nodes", fromThere))).toEqual([
      200, 200, 200, 200, 200,
    ]);
  });

  it("limits the break-glass token by its own budget, which anonymous reads from that address do not share", async () => {
    const from = "127.0.0.5";
    const breakGlass = await spend(() => people.direct(ADMIN_TOKEN, "/api/nodes", { from }));
    expect(breakGlass.status).toBe(429);
    expect(breakGlass.body.error.message).toMatch(/^Too many break-glass reads from this client/);
    expect(await statusesOf(5, () => people.direct(null, "/api/nodes", { from }))).toEqual([
      200, 200, 200, 200, 200,
    ]);
  });

  it("limits a person by their own budget, whatever address they come from", async () => {
    const person = await spend(() => people.as("erin", EVERYONE, "/api/nodes"));
    expect(person.status).toBe(429);
    expect(person.body.error.message).toMatch(/^Too many reads by erin@example\.com: retry in/);
    expect((await people.as("frank", EVERYONE, "/api/nodes")).status).toBe(200);
  });
});

/**
 * Which of `wanted` one master is asked about, from MONITOR read on a raw socket (a client's reply
 * parser is not made for MONITOR beside other traffic). Resolves once MONITOR is on.
 */
async function watchMaster(url: string, wanted: readonly string[]) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.setEncoding("utf8");
  const seen = new Set<string>();
  let tail = "";
  // MONITOR's "+OK" comes first; it is remembered, as the shared masters' traffic soon follows it
  // and pushes it out of `tail`.
  let monitoring = false;
  socket.on("data", (chunk: string) => {
    const text = tail + chunk;
    if (text.includes("+OK")) monitoring = true;
    for (const each of wanted) if (text.includes(each)) seen.add(each);
    tail = text.slice(-200); // a name split across two chunks is still found
  });
  socket.write("MONITOR\r\n");
  await expect.poll(() => monitoring, { timeout: 20_000 }).toBe(true);
  return { seen, stop: () => socket.destroy() };
}

describe("wrong personal tokens", () => {
  it("are stopped by the wrong-credential budget (10 a minute per client); only those checked cost a node read", async () => {
    const wrong = Array.from(
      { length: 30 },
      () => `rlc_${randomBytes(8).toString("hex")}_${randomBytes(32).toString("base64url")}`,
    );
    const recordKeys = wrong.map((secret) => recordKeyOf(secret.slice(4, 20)));
    const sentinel = `read-budget-sentinel:${randomBytes(4).toString("hex")}`;
    const master = await watchMaster(sharedUrls()[0]!, [...recordKeys, sentinel]);
    try {
      const statuses: number[] = [];
      for (const secret of wrong)
        statuses.push((await people.direct(secret, "/api/nodes", { from: "127.0.0.6" })).status);
      expect(statuses).toEqual([...Array(10).fill(401), ...Array(20).fill(429)]);
      // Every command the console sent before this one has reached the monitor.
      await nodes[0]!.exists(sentinel);
      await expect.poll(() => master.seen.has(sentinel), { timeout: 20_000 }).toBe(true);
      expect(recordKeys.filter((key) => master.seen.has(key))).toEqual(recordKeys.slice(0, 10));
    } finally {
      master.stop();
    }
  });
});
