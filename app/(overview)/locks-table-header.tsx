import type { LockSort, SortOrder } from "@/lib/api";
import styles from "./locks-table.module.css";

interface HeaderProps {
  sort: LockSort;
  order: SortOrder;
  onSort: (key: LockSort) => void;
}

function SortableHeader({
  label,
  column,
  className,
  title,
  ...props
}: HeaderProps & { label: string; column: LockSort; className?: string; title?: string }) {
  const active = props.sort === column;
  const ariaSort = active ? (props.order === "asc" ? "ascending" : "descending") : "none";
  return (
    <span role="columnheader" aria-sort={ariaSort} className={className}>
      <button
        type="button"
        className={styles.sortButton}
        onClick={() => props.onSort(column)}
        title={title}
      >
        {label}
        <span aria-hidden="true">{active ? (props.order === "asc" ? " ▲" : " ▼") : ""}</span>
      </button>
    </span>
  );
}

/** The server sorts every lock (GET /api/locks?sort=): only the orders it knows are offered. */
export function LocksTableHeader(props: HeaderProps) {
  return (
    <div role="rowgroup" className={styles.headerGroup}>
      <div role="row" aria-rowindex={1} className={`${styles.row} ${styles.header}`}>
        <SortableHeader {...props} label="Resource" column="resource" className={styles.resource} />
        <span role="columnheader" className={styles.state}>
          State
        </span>
        <span role="columnheader" className={styles.quorum}>
          Quorum
        </span>
        <SortableHeader
          {...props}
          label="Owner"
          column="service"
          className={styles.owner}
          title="Sort by the owner's service label"
        />
        <SortableHeader {...props} label="Held for" column="heldFor" className={styles.held} />
        <span role="columnheader" className={styles.waiters}>
          Waiters
        </span>
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
