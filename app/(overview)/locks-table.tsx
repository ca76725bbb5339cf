"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef, type CSSProperties } from "react";
import { useMediaQuery } from "@/hooks/use-media-query";
import type { LiveLockRow } from "@/lib/api/locks";
import { useHolderAlerts } from "./holder-alerts";
import { LockRowView } from "./lock-row";
import { LocksTableHeader } from "./locks-table-header";
import { groupByLabel, type GroupedItem } from "./owner-groups";
import type { LockSortKey, SortDirection } from "./sort-locks";
import styles from "./locks-table.module.css";

interface LocksTableProps {
  rows: LiveLockRow[];
  sortKey: LockSortKey;
  sortDirection: SortDirection;
  onSort: (key: LockSortKey) => void;
  /** Owner label whose values group the rows under headers; null: no groups. */
  groupBy?: string | null;
}

const GROUP_ROW_HEIGHT_PX = 34;

function itemKey(item: GroupedItem<LiveLockRow> | undefined, index: number): string | number {
  if (!item) return index;
  return item.kind === "lock" ? item.row.resource : `group:${item.value ?? ""}`;
}

function GroupHeader({
  item,
  groupBy,
  rowIndex,
  style,
}: {
  item: Extract<GroupedItem<LiveLockRow>, { kind: "group" }>;
  groupBy: string;
  rowIndex: number;
  style: CSSProperties;
}) {
  return (
    <div
      role="row"
      aria-rowindex={rowIndex}
      className={`${styles.row} ${styles.groupRow}`}
      style={style}
    >
      <span role="rowheader" aria-colspan={9}>
        {item.value === null ? (
          <span className="muted">no {groupBy} label</span>
        ) : (
          `${groupBy}=${item.value}`
        )}{" "}
        <span className="muted">
          ({item.count} {item.count === 1 ? "lock" : "locks"})
        </span>
      </span>
    </div>
  );
}

/** Only the rows in view are in the DOM, so 10,000 locks scroll as smoothly as ten. */
export function LocksTable({
  rows,
  sortKey,
  sortDirection,
  onSort,
  groupBy = null,
}: LocksTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const items = useMemo(() => groupByLabel(rows, groupBy), [rows, groupBy]);
  const holderAlerts = useHolderAlerts();
  // Narrow screens fold each row onto two lines instead of scrolling sideways.
  const narrow = useMediaQuery("(max-width: 760px)");
  const rowHeightPx = narrow ? 68 : 42;
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read in this render only
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => (items[index]?.kind === "group" ? GROUP_ROW_HEIGHT_PX : rowHeightPx),
    overscan: 12,
    getItemKey: (index) => itemKey(items[index], index),
  });

  return (
    <div role="table" aria-label="Locks" aria-rowcount={items.length + 1} className={styles.table}>
      <LocksTableHeader sortKey={sortKey} sortDirection={sortDirection} onSort={onSort} />
      <div
        ref={scrollRef}
        className={styles.scroll}
        role="rowgroup"
        tabIndex={0}
        aria-label="Lock rows"
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((virtual) => {
            const item = items[virtual.index];
            if (!item) return null;
            const style = { transform: `translateY(${virtual.start}px)`, height: virtual.size };
            if (item.kind === "group")
              return (
                <GroupHeader
                  key={virtual.key}
                  item={item}
                  groupBy={groupBy ?? ""}
                  rowIndex={virtual.index + 2}
                  style={style}
                />
              );
            return (
              <LockRowView
                key={virtual.key}
                row={item.row}
                holderAlert={holderAlerts.get(item.row.resource)}
                rowIndex={virtual.index + 2}
                style={style}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}
