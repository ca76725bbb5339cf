import type { LockFlag } from "@/lib/api";

const FLAG_TEXT: Record<LockFlag, { label: string; hint: string }> = {
  "long-held": { label: "long-held", hint: "Held longer than CONSOLE_LONG_HELD_MS" },
  "no-ttl": {
    label: "no TTL",
    hint: "Never expires on its own: only a release or a force-release frees it",
  },
  "long-wait": {
    label: "long wait",
    hint: "A contender has waited longer than CONSOLE_LONG_WAIT_MS",
  },
};

/** Warning badges of a lock that needs a look; nothing for a healthy one. */
export function LockFlags({ flags }: { flags: readonly LockFlag[] }) {
  if (flags.length === 0) return null;
  return (
    <span className="lock-flags">
      {flags.map((flag) => (
        <span key={flag} className="badge badge-flag" title={FLAG_TEXT[flag].hint}>
          {FLAG_TEXT[flag].label}
        </span>
      ))}
    </span>
  );
}
