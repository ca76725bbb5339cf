/** The down-cause rule and the margin words, as tables. */
import { describe, expect, it } from "vitest";
import { lackingWords, marginWords } from "@/lib/api";
import { downCauseOf, type DownCauseInput } from "@/lib/server/health/down-cause";

const RETRY_WRAPPER = new Error(
  'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
);
const TIMED_OUT = new Error("Command timed out");
const base: DownCauseInput = {
  error: TIMED_OUT,
  clientStatus: "reconnecting",
  fault: { code: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:7001" },
  address: "127.0.0.1:7001",
  deadlineMs: 300,
};

describe("downCauseOf", () => {
  const cases: Array<[string, Partial<DownCauseInput>, string, RegExp]> = [
    [
      "refused, the command timed out",
      {},
      "refused",
      /^connection refused: nothing listens on 127\.0\.0\.1:7001$/,
    ],
    ["refused, the retry wrapper", { error: RETRY_WRAPPER }, "refused", /nothing listens on/],
    ["refused, while connecting", { clientStatus: "connecting" }, "refused", /nothing listens/],
    [
      "connected, no answer",
      { clientStatus: "ready", fault: null },
      "timeout",
      /^no answer within 300 ms/,
    ],
    [
      "connect timeout",
      { fault: { code: "ETIMEDOUT", message: "connect ETIMEDOUT" } },
      "connect_timeout",
      /accepted no connection/,
    ],
    [
      "wrong password on connect",
      { fault: { code: undefined, message: "WRONGPASS invalid username-password pair" } },
      "auth",
      /^authentication refused: WRONGPASS/,
    ],
    [
      "NOAUTH reply once connected",
      { clientStatus: "ready", error: new Error("NOAUTH Authentication required.") },
      "auth",
      /NOAUTH/,
    ],
    [
      "host not found",
      {
        fault: { code: "ENOTFOUND", message: "getaddrinfo ENOTFOUND redis-a" },
        address: "redis-a:6379",
      },
      "dns",
      /^host not found: redis-a does not resolve$/,
    ],
    [
      "no route",
      { fault: { code: "EHOSTUNREACH", message: "connect EHOSTUNREACH" } },
      "no_route",
      /^no route to 127\.0\.0\.1:7001$/,
    ],
    ["closed, nothing heard yet", { fault: null }, "connection_lost", /^not connected/],
  ];
  for (const [name, input, kind, message] of cases) {
    it(name, () => {
      const cause = downCauseOf({ ...base, ...input });
      expect(cause.kind).toBe(kind);
      expect(cause.message).toMatch(message);
    });
  }
});

describe("margin words (5 nodes, quorum 3)", () => {
  const cases: Array<[number, string]> = [
    [5, "2 more nodes lost and they stand on 3, the bare majority"],
    [4, "one more node lost and they stand on 3, the bare majority"],
    [3, "the bare majority: one more node lost and another client can take them"],
    [2, "below the majority: another client can take them"],
  ];
  for (const [holders, words] of cases)
    it(`${holders} holders`, () => expect(marginWords(holders, 3)).toBe(words));

  it("groups in one sentence, singular and plural", () => {
    expect(
      lackingWords(
        [
          { holders: 4, locks: 37 },
          { holders: 3, locks: 1 },
        ],
        5,
        3,
      ),
    ).toBe(
      "37 locks now hold on 4 of 5 nodes (one more node lost and they stand on 3, the bare majority); 1 lock now holds on 3 of 5 nodes (the bare majority: one more node lost and another client can take them)",
    );
    expect(lackingWords([], 5, 3)).toBe("no held lock lacks it now");
  });
});
