"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef } from "react";
import type { LockRow } from "@/lib/api/locks";
import { LockRowView } from "./lock-row";
import { LocksTableHeader } from "./locks-table-header";
import type { LockSortKey, SortDirection } from "./sort-locks";
import { useMediaQuery } from "./use-media-query";
import styles from "./locks-table.module.css";

export interface LocksTableRow extends LockRow {
  /** Server-clock epoch ms at which validity ends; null when none or never. */
  validUntilMs: number | null;
}

interface LocksTableProps {
  rows: LocksTableRow[];
  sortKey: LockSortKey;
  sortDirection: SortDirection;
  onSort: (key: LockSortKey) => void;
}

/** Only the rows in view are in the DOM, so 10,000 locks scroll as smoothly as ten. */
export function LocksTable({ rows, sortKey, sortDirection, onSort }: LocksTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // Narrow screens fold each row onto two lines instead of scrolling sideways.
  const narrow = useMediaQuery("(max-width: 760px)");
  const rowHeightPx = narrow ? 68 : 42;
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read in this render only
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeightPx,
    overscan: 12,
    getItemKey: (index) => rows[index]?.resource ?? index,
  });

  return (
    <div role="table" aria-label="Locks" aria-rowcount={rows.length + 1} className={styles.table}>
      <LocksTableHeader sortKey={sortKey} sortDirection={sortDirection} onSort={onSort} />
      <div ref={scrollRef} className={styles.scroll} role="rowgroup" tabIndex={0} aria-label="Lock rows">
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <LockRowView
                key={item.key}
                row={row}
                rowIndex={item.index + 2}
                style={{ transform: `translateY(${item.start}px)`, height: rowHeightPx }}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
