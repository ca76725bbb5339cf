import type { NoSessionChoice as Choice } from "@/lib/api";
import styles from "./force-release-dialog.module.css";

const CHOICES: ReadonlyArray<{ value: Choice; label: string; detail: string }> = [
  {
    value: "release-now",
    label: "Release now, accepting an overlap",
    detail:
      "deleted at once: if the holder still runs, it and the next holder both act as the owner",
  },
  {
    value: "hold-until-ttl",
    label: "Hold until its TTL",
    detail:
      "replaced by a tombstone: nobody gets it before the holder's validity ends (nobody will acknowledge it)",
  },
];

/** For a holder without a session: the operator's choice, audited. Nothing is preselected. */
export function NoSessionChoice({
  value,
  onChange,
}: {
  value: Choice | null;
  onChange: (choice: Choice) => void;
}) {
  return (
    <fieldset className="stack">
      <legend>The holder has no session: choose how to release it</legend>
      {CHOICES.map((choice) => (
        <label key={choice.value} className={styles.checkbox}>
          <input
            type="radio"
            name="no-session"
            value={choice.value}
            required
            checked={value === choice.value}
            onChange={() => onChange(choice.value)}
          />
          <span>
            {choice.label} <span className="muted">({choice.detail})</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
