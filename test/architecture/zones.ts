/**
 * Zones of a folder, bottom up: a file may import its own part and the parts of lower zones, never a
 * higher zone nor another part of its own zone. A part is a sub-folder (`timeline/`) or a file
 * (`metrics.ts`) of the folder; the ground zone's parts may import each other. Pure, so that the
 * architecture tests can show a forbidden edge failing on a synthetic import as well.
 */

export interface Zone {
  readonly name: string;
  /** Sub-folders (ending in "/") and files of the folder. */
  readonly parts: readonly string[];
}

export interface Zones {
  /** The folder, relative to the repository root, without a trailing slash. */
  readonly root: string;
  /** Bottom up; the first is the ground. */
  readonly zones: readonly Zone[];
}

/** The part of `file` under `zones.root` (`timeline/`, `metrics.ts`), or undefined outside it. */
export function partOf(zones: Zones, file: string): string | undefined {
  if (!file.startsWith(`${zones.root}/`)) return undefined;
  const rest = file.slice(zones.root.length + 1);
  const slash = rest.indexOf("/");
  return slash === -1 ? rest : rest.slice(0, slash + 1);
}

/** The zone index of `part`, or -1 when no zone names it. */
export function rankOf(zones: Zones, part: string): number {
  return zones.zones.findIndex((zone) => zone.parts.includes(part));
}

/** Whether an import from `from` to `to` breaks the zones (both files of the folder). */
export function breaksZones(zones: Zones, from: string, to: string): boolean {
  const fromPart = partOf(zones, from);
  const toPart = partOf(zones, to);
  if (fromPart === undefined || toPart === undefined || fromPart === toPart) return false;
  const fromRank = rankOf(zones, fromPart);
  const toRank = rankOf(zones, toPart);
  if (toRank < fromRank) return false;
  return !(toRank === 0 && fromRank === 0);
}

/** Each import that breaks the zones, as "importer -> imported". */
export function zoneViolations(zones: Zones, imports: Record<string, readonly string[]>): string[] {
  return Object.entries(imports).flatMap(([file, imported]) =>
    imported.filter((target) => breaksZones(zones, file, target)).map((t) => `${file} -> ${t}`),
  );
}

/** Every pair of parts (importer, imported) the zones forbid. */
export function forbiddenPairs(zones: Zones): Array<[from: string, to: string]> {
  const parts = zones.zones.flatMap((zone) => zone.parts);
  return parts.flatMap((from) =>
    parts
      .filter((to) => {
        if (from === to) return false;
        const fromRank = rankOf(zones, from);
        const toRank = rankOf(zones, to);
        return toRank > fromRank || (toRank === fromRank && fromRank !== 0);
      })
      .map((to): [string, string] => [from, to]),
  );
}
