/**
 * The column type of a Table, shared by the Table builder (table.ts) and the per-kind printers.
 */

/** One column of a Table (meta/v1 TableColumnDefinition). */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  /** 0 for the columns `kubectl get` shows; 1 for those only `-o wide` shows. */
  priority: number;
}
