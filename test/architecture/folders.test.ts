/**
 * Imports flow one way between folders: app -> components -> lib, and lib/redlock imports nothing
 * of ours (it is published alone). Inside lib/server every folder has its zone (SERVER_ZONES:
 * boot -> console -> actions -> auth -> timeline/contention/health -> sessions -> locks -> base), and the
 * parts of lib/server/locks and of its watch stack the same way (zones.ts says the rule). Type-only
 * imports count too. ESLint's no-restricted-imports sees only the `@/…` spellings; madge's graph
 * has every import resolved to its file. Every forbidden pair of parts is also tried once on a
 * synthetic import, so a rule that could not fail is seen.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { GRAPH_BUDGET_MS, importGraph } from "./import-graph";
import { forbiddenPairs, partOf, rankOf, zoneViolations, type Zones } from "./zones";

/** Each file (relative to the root) and the files of ours it imports. */
let imports: Record<string, string[]> = {};

beforeAll(async () => {
  imports = (await importGraph()).obj();
}, GRAPH_BUDGET_MS);

const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`);

/** Each import from a file `from` accepts to one `forbidden` accepts, as "importer -> imported". */
function crossings(
  from: (file: string) => boolean,
  forbidden: (imported: string) => boolean,
): string[] {
  return Object.entries(imports)
    .filter(([file]) => from(file))
    .flatMap(([file, imported]) =>
      imported.filter(forbidden).map((target) => `${file} -> ${target}`),
    );
}

/** lib/server, bottom up. */
const SERVER_ZONES: Zones = {
  root: "lib/server",
  zones: [
    {
      name: "base",
      parts: [
        "config-vars.ts",
        "config.ts",
        "errors.ts",
        "heap-mode.ts",
        "logger.ts",
        "node-registry.ts",
        "resource-path.ts",
        "single-flight.ts",
        "wait-objectives-config.ts",
        "rbac-config.ts",
        "oidc-config.ts",
        "auth-proxy-config.ts",
        "metric-services.ts",
      ],
    },
    // What the console keeps of the nodes: the live index, the audit trail, latency history.
    { name: "locks", parts: ["locks/", "audit/", "latency/"] },
    { name: "sessions", parts: ["sessions/"] },
    { name: "views", parts: ["timeline/", "contention/", "health/", "metrics.ts"] },
    { name: "auth", parts: ["auth/"] },
    { name: "actions", parts: ["actions/"] },
    // One history for console replicas on a state store: lease, fenced append, follow (timeline/ below).
    { name: "replicas", parts: ["replicas/"] },
    // The composition root, the process-wide console built from it, and the server's start.
    { name: "console", parts: ["console.ts", "http-server-hooks.ts"] },
    { name: "default console", parts: ["default-console.ts"] },
    { name: "boot", parts: ["boot.ts"] },
  ],
};

/** lib/server/locks: detail -> pages -> rows -> watch -> read. */
const LOCKS_ZONES: Zones = {
  root: "lib/server/locks",
  zones: [
    { name: "read", parts: ["read/"] },
    { name: "watch", parts: ["watch/"] },
    { name: "rows", parts: ["rows/"] },
    { name: "pages", parts: ["pages/"] },
    { name: "detail", parts: ["detail/"] },
  ],
};

/** lib/server/locks/watch, by step: node -> list/events -> store -> io. */
const WATCH_ZONES: Zones = {
  root: "lib/server/locks/watch",
  zones: [
    { name: "io", parts: ["io/"] },
    { name: "store", parts: ["store/"] },
    { name: "steps", parts: ["list/", "events/"] },
    { name: "node", parts: ["node/"] },
  ],
};

/**
 * Actions that still take the whole context (`import type { ConsoleContext }`): issue 40 item 3
 * gives each the slice it uses; none may be added, and each line goes when its file is narrowed.
 */
const ACTIONS_ON_THE_CONTEXT = new Set(
  [
    "audited.ts",
    "force-release-audited.ts",
    "force-release-follow-up.ts",
    "holder-release.ts",
    "keyspace-events.ts",
    "lock-actions.ts",
    "release-session.ts",
    "revoke-audited.ts",
    "revoke-follow-up.ts",
  ].map((file) => `lib/server/actions/${file} -> lib/server/console.ts`),
);

describe("imports between folders", () => {
  it("are all seen: the `@/…` and `@redlock-console/redlock` paths resolve to files", () => {
    const targets = Object.values(imports).flat();
    expect(crossings(under("app"), under("components")).length).toBeGreaterThan(0);
    expect(crossings(under("app"), under("lib")).length).toBeGreaterThan(0);
    expect(targets).toContain("lib/redlock/index.ts");
  });

  it("lib/redlock imports nothing of ours outside it", () => {
    expect(crossings(under("lib/redlock"), (file) => !under("lib/redlock")(file))).toEqual([]);
  });

  it("lib imports nothing from app/ or components/", () => {
    const uiFile = (file: string) => under("app")(file) || under("components")(file);
    expect(crossings(under("lib"), uiFile)).toEqual([]);
  });

  it("components import nothing from app/", () => {
    expect(crossings(under("components"), under("app"))).toEqual([]);
  });

  for (const [zones, known] of [
    [SERVER_ZONES, ACTIONS_ON_THE_CONTEXT],
    [LOCKS_ZONES, new Set<string>()],
    [WATCH_ZONES, new Set<string>()],
  ] as const) {
    const order = zones.zones.map((zone) => zone.parts.join(" ")).join(" <- ");
    describe(`inside ${zones.root}: ${order}`, () => {
      it("every file is in a zone's part, and every part has files", () => {
        const parts = new Set(Object.keys(imports).flatMap((file) => partOf(zones, file) ?? []));
        expect([...parts].filter((part) => rankOf(zones, part) === -1)).toEqual([]);
        expect(
          zones.zones.flatMap((zone) => zone.parts).filter((part) => !parts.has(part)),
        ).toEqual([]);
      });

      it("no import runs up a zone or across to another part of its own", () => {
        const found = zoneViolations(zones, imports).filter((edge) => !known.has(edge));
        expect(found).toEqual([]);
      });

      it("each forbidden pair of parts fails the rule when tried on purpose", () => {
        const fileOf = (part: string) =>
          Object.keys(imports).find((file) => partOf(zones, file) === part)!;
        const pairs = forbiddenPairs(zones);
        expect(pairs.length).toBeGreaterThan(0);
        for (const [from, to] of pairs) {
          const edge = { [fileOf(from)]: [fileOf(to)] };
          expect(zoneViolations(zones, edge), `${from} -> ${to}`).toHaveLength(1);
          // The same two files the other way round are allowed unless that is forbidden too.
          const back = { [fileOf(to)]: [fileOf(from)] };
          const backForbidden = pairs.some(([a, b]) => a === to && b === from);
          expect(zoneViolations(zones, back), `${to} -> ${from}`).toHaveLength(
            backForbidden ? 1 : 0,
          );
        }
      });
    });
  }

  it("no folder of lib/server/locks holds more than 12 files", () => {
    const sizes: Record<string, number> = {};
    for (const file of Object.keys(imports).filter((f) => f.startsWith("lib/server/locks/")))
      sizes[path.dirname(file)] = (sizes[path.dirname(file)] ?? 0) + 1;
    expect(Object.keys(sizes).length).toBeGreaterThan(4);
    expect(Object.entries(sizes).filter(([, count]) => count > 12)).toEqual([]);
    // The graph holds every file: none is missed for importing nothing of ours.
    const watch = readdirSync("lib/server/locks/watch/node").filter((f) => f.endsWith(".ts"));
    expect(sizes["lib/server/locks/watch/node"]).toBe(watch.length);
  });
});
