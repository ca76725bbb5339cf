import type { ReactNode } from "react";

interface PlainTableProps {
  /** Accessible name of the table. */
  label: string;
  /** Column headings, in order; `false` leaves a column out. */
  columns: ReadonlyArray<string | false>;
  /** The body's rows (`<tr>`), one cell per column shown. */
  children: ReactNode;
}

/** A small table that scrolls sideways on a narrow screen; the long lists use a virtualised one. */
export function PlainTable({ label, columns, children }: PlainTableProps) {
  return (
    <div className="table-scroll">
      <table className="plain" aria-label={label}>
        <thead>
          <tr>
            {columns.map(
              (column) =>
                column !== false && (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
