"use client";

import Link from "next/link";
import { groupBadgeText, memberName, memberText } from "@/components/locks/group-text";
import { lockHref } from "@/components/locks/lock-href";
import type { LockGroupDetail } from "@/lib/api";
import { ForceReleaseSection } from "./force-release-section";

/**
 * A semaphore's permits, or a read-write lock's writer and reader slots, each on its line in words
 * with its own force-release: every member is an ordinary lock on its own key, so the action (and
 * revoke, asked from its dialog) is the lock's, on that key. Another library's format is read-only.
 */
export function GroupMembers({ group }: { group: LockGroupDetail }) {
  const title = group.kind === "semaphore" ? "Permits" : "Writer and readers";
  return (
    <section aria-labelledby="group-members-heading">
      <h2 id="group-members-heading">{title}</h2>
      <p>{groupBadgeText(group)}</p>
      {group.readOnly && (
        <p className="notice notice-info">
          The console reads this format only: it cannot force-release or revoke its holders.
        </p>
      )}
      <table aria-label={title}>
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Holder</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {group.members.map((member) => (
            <tr key={member.resource}>
              <td>
                <Link href={lockHref(member.resource, member.resourceBase64)}>
                  {memberName(member)}
                </Link>{" "}
                <span className="muted">{member.resource}</span>
              </td>
              <td>{memberText(group, member)}</td>
              <td>
                {/* Mounted while the member is free too: its dialog keeps the result on screen. */}
                {!group.readOnly && (
                  <ForceReleaseSection
                    lock={member.lock}
                    holderSession={member.holderSession}
                    label={`Force-release ${memberName(member)}…`}
                  />
                )}
                {(!member.lock || group.readOnly) && (
                  <span className="muted">{member.lock ? "read-only" : "nothing to release"}</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
