import type { HolderSessionsCoverage } from "@/lib/api";

/** What the sessions read could not see, said plainly (each notice names what may be missing). */
export function CoverageNotices({
  coverage,
  truncated = false,
}: {
  coverage: HolderSessionsCoverage;
  truncated?: boolean;
}) {
  return (
    <>
      {!coverage.indexComplete && (
        <p className="notice notice-info">
          The console is still listing a node: a lock it has not seen yet is missing here.
        </p>
      )}
      {coverage.waitListsSkipped > 0 && (
        <p className="notice notice-info">
          {coverage.waitListsSkipped} waited-for resources were not read this time (read budget):
          their waits show on a later refresh.
        </p>
      )}
      {truncated && (
        <p className="notice notice-warn">
          More sessions were found than are listed: those holding locks come first.
        </p>
      )}
    </>
  );
}
