"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, type CSSProperties } from "react";
import { useMediaQuery } from "@/hooks/use-media-query";
import type { LiveLockRow, LockSort, SortOrder } from "@/lib/api";
import { useHolderAlerts, useReleasingHolders } from "./holder-alerts";
import { LockRowView } from "./lock-row";
import { LocksTableHeader } from "./locks-table-header";
import { groupByLabel, type GroupedItem } from "./owner-groups";
import styles from "./locks-table.module.css";

interface LocksTableProps {
  /** The rows loaded, in the server's order. */
  rows: LiveLockRow[];
  /** Rows in this order on the server: those not loaded yet show as placeholders until asked for. */
  rowCount: number;
  /** Scrolled near the last row loaded: asks for the first `count` rows. */
  onNeedRows: (count: number) => void;
  sort: LockSort;
  order: SortOrder;
  onSort: (key: LockSort) => void;
  /** Owner label whose values group the rows under headers; null: no groups. */
  groupBy?: string | null;
}

/** Rows past the last one in view asked for ahead, so scrolling rarely meets a placeholder. */
const ROWS_AHEAD = 200;

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

/** A row the server has but the browser has not loaded yet. */
function PlaceholderRow({ rowIndex, style }: { rowIndex: number; style: CSSProperties }) {
  return (
    <div role="row" aria-rowindex={rowIndex} className={styles.row} style={style}>
      <span role="cell" className={`${styles.resource} muted`}>
        Loading…
      </span>
    </div>
  );
}

/**
 * Only the rows in view are in the DOM, so 10,000 locks scroll as smoothly as ten; and only the
 * rows scrolled to are loaded (grouped: the loaded rows, more asked for at the end).
 */
export function LocksTable({
  rows,
  rowCount,
  onNeedRows,
  sort,
  order,
  onSort,
  groupBy = null,
}: LocksTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const items = useMemo(() => groupByLabel(rows, groupBy), [rows, groupBy]);
  const count = groupBy ? items.length : Math.max(rowCount, items.length);
  const holderAlerts = useHolderAlerts();
  const releasingHolders = useReleasingHolders();
  // Narrow screens fold each row onto two lines instead of scrolling sideways.
  const narrow = useMediaQuery("(max-width: 760px)");
  // Room for the name and, below it, its badges.
  const rowHeightPx = narrow ? 76 : 52;
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read in this render only
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => (items[index]?.kind === "group" ? GROUP_ROW_HEIGHT_PX : rowHeightPx),
    overscan: 12,
    getItemKey: (index) => itemKey(items[index], index),
  });
  const lastInView = virtualizer.getVirtualItems().at(-1)?.index ?? 0;
  useEffect(() => {
    if (rows.length < rowCount && lastInView >= items.length - ROWS_AHEAD / 4)
      onNeedRows(lastInView + 1 + ROWS_AHEAD);
  }, [lastInView, items.length, rows.length, rowCount, onNeedRows]);

  return (
    <div role="table" aria-label="Locks" aria-rowcount={count + 1} className={styles.table}>
      <LocksTableHeader sort={sort} order={order} onSort={onSort} />
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
            const style = { transform: `translateY(${virtual.start}px)`, height: virtual.size };
            if (!item)
              return (
                <PlaceholderRow key={virtual.key} rowIndex={virtual.index + 2} style={style} />
              );
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
                releasingLabels={releasingHolders.get(item.row.resource) ?? null}
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
