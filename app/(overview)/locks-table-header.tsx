import type { LockSortKey, SortDirection } from "./sort-locks";
import styles from "./locks-table.module.css";

interface HeaderProps {
  sortKey: LockSortKey;
  sortDirection: SortDirection;
  onSort: (key: LockSortKey) => void;
}

function SortableHeader({
  label,
  column,
  className,
  ...props
}: HeaderProps & { label: string; column: LockSortKey; className?: string }) {
  const active = props.sortKey === column;
  const ariaSort = active ? (props.sortDirection === "asc" ? "ascending" : "descending") : "none";
  return (
    <span role="columnheader" aria-sort={ariaSort} className={className}>
      <button type="button" className={styles.sortButton} onClick={() => props.onSort(column)}>
        {label}
        <span aria-hidden="true">
          {active ? (props.sortDirection === "asc" ? " ▲" : " ▼") : ""}
        </span>
      </button>
    </span>
  );
}

export function LocksTableHeader(props: HeaderProps) {
  return (
    <div role="rowgroup" className={styles.headerGroup}>
      <div role="row" aria-rowindex={1} className={`${styles.row} ${styles.header}`}>
        <SortableHeader {...props} label="Resource" column="resource" className={styles.resource} />
        <SortableHeader {...props} label="State" column="state" className={styles.state} />
        <SortableHeader {...props} label="Quorum" column="quorum" className={styles.quorum} />
        <span role="columnheader" className={styles.owner}>
          Owner
        </span>
        <SortableHeader {...props} label="Held for" column="held" className={styles.held} />
        <SortableHeader {...props} label="Waiters" column="waiters" className={styles.waiters} />
        <span role="columnheader" className={styles.holder}>
          Holder value
        </span>
        <span role="columnheader" className={styles.nodes}>
          Nodes
        </span>
        <SortableHeader {...props} label="Validity" column="validity" className={styles.validity} />
      </div>
    </div>
  );
}
