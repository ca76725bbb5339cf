/**
 * Imports flow one way between folders: app -> components -> lib, and lib/redlock imports nothing
 * of ours (it is published alone). Inside lib/server/locks the parts stack the same way:
 * detail -> rows -> watch -> read. Type-only imports count too. ESLint's no-restricted-imports
 * sees only the `@/…` spellings; madge's graph has every import resolved to its file.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { importGraph } from "./import-graph";

/** Each file (relative to the root) and the files of ours it imports. */
let imports: Record<string, string[]> = {};

beforeAll(async () => {
  imports = (await importGraph()).obj();
});

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

const LOCKS = "lib/server/locks";

/** The part of lib/server/locks a file is in (`read`, `watch`…), or undefined outside it. */
const locksPart = (file: string) =>
  under(LOCKS)(file) ? file.slice(LOCKS.length + 1).split("/")[0] : undefined;

/** Each part of lib/server/locks and the other parts it may import. */
const LOCKS_LAYERS: Array<[part: string, mayImport: string[]]> = [
  ["read", []],
  ["watch", ["read"]],
  ["rows", ["watch", "read"]],
  ["detail", ["rows", "read"]],
];

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

  describe("inside lib/server/locks: detail -> rows -> watch -> read", () => {
    for (const [part, mayImport] of LOCKS_LAYERS) {
      const allowed = mayImport.length > 0 ? `only ${mayImport.join(" and ")}` : "none";
      it(`${part} imports ${allowed} of the other parts`, () => {
        const inPart = (file: string) => locksPart(file) === part;
        expect(Object.keys(imports).filter(inPart).length).toBeGreaterThan(0);
        const otherPart = (file: string) => {
          const target = locksPart(file);
          return target !== undefined && target !== part && !mayImport.includes(target);
        };
        expect(crossings(inPart, otherPart)).toEqual([]);
      });
    }

    it("has no part besides those four", () => {
      const parts = new Set(Object.keys(imports).map(locksPart));
      parts.delete(undefined);
      expect([...parts].sort()).toEqual(LOCKS_LAYERS.map(([part]) => part).sort());
    });
  });
});
