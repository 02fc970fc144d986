/**
 * `meta.k8s.io/v1` Table responses (what `kubectl get` prints), with the columns and cell formats of
 * pkg/printers/internalversion/printers.go for built-in kinds (name and creation time for kinds
 * without a printer, as the default table convertor) and the CRD's printer columns for everynode
 * DaemonSets. The server always prints the wide form; kubectl hides priority-1 columns
 * unless `-o wide`.
 */
import { everynodeCrdVersion } from '../schema/crd.ts';
import type { ResourceKey } from '../schema/resources.ts';
import type { KubeObject } from '../schema/store-types.ts';
import {
  bindingCells,
  clusterRoleBindingColumns,
  createdAtCells,
  createdAtColumns,
  roleBindingColumns,
} from './table-access.ts';
import {
  eventCells,
  eventColumns,
  namespaceCells,
  namespaceColumns,
  nodeCells,
  nodeColumns,
} from './table-cluster.ts';
import type { TableColumnDefinition } from './table-column-definition.ts';
import { customCells, customColumns } from './table-custom.ts';
import { podCells, podColumns, podRowConditions } from './table-pods.ts';
import {
  controllerRevisionCells,
  controllerRevisionColumns,
  daemonSetCells,
  daemonSetColumns,
} from './table-workloads.ts';

/** One row of a Table: the cells, row conditions, and the object as `includeObject` asked. */
export interface TableRow {
  cells: unknown[];
  conditions?: Record<string, unknown>[];
  object?: unknown;
}

/** A meta.k8s.io/v1 Table. */
export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** How a Table is built. */
export interface TableOptions {
  /** The clock for AGE cells. */
  now: Date;
  /**
   * Keep priority-1 columns. The real server always sends them (kubectl hides them unless
   * `-o wide`), so the HTTP layer passes true or omits it; false is for in-process callers.
   */
  wide?: boolean;
  /** The `includeObject` query parameter; the API server defaults to Metadata. */
  includeObject?: 'None' | 'Metadata' | 'Object';
  /** List metadata copied to the Table (resourceVersion, continue). */
  listMeta?: Table['metadata'];
}

interface Printer {
  columns: TableColumnDefinition[];
  cells: (object: Readonly<KubeObject>, now: Readonly<Date>) => unknown[];
}

function printerFor(key: ResourceKey): Printer {
  switch (key) {
    case 'apps/daemonsets':
      return { columns: daemonSetColumns, cells: daemonSetCells };
    case 'apps/controllerrevisions':
      return { columns: controllerRevisionColumns, cells: controllerRevisionCells };
    case 'pods':
      return { columns: podColumns, cells: podCells };
    case 'nodes':
      return { columns: nodeColumns, cells: nodeCells };
    case 'namespaces':
      return { columns: namespaceColumns, cells: namespaceCells };
    case 'events':
      return { columns: eventColumns, cells: eventCells };
    case 'rbac.authorization.k8s.io/roles':
    case 'rbac.authorization.k8s.io/clusterroles':
    case 'apiextensions.k8s.io/customresourcedefinitions':
    case 'authorization.k8s.io/selfsubjectaccessreviews':
      return { columns: createdAtColumns, cells: createdAtCells };
    case 'rbac.authorization.k8s.io/rolebindings':
      return { columns: roleBindingColumns, cells: bindingCells };
    case 'rbac.authorization.k8s.io/clusterrolebindings':
      return { columns: clusterRoleBindingColumns, cells: bindingCells };
    case 'everynode.dev/daemonsets': {
      const printerColumns = everynodeCrdVersion().additionalPrinterColumns ?? [];
      return {
        columns: customColumns(printerColumns),
        cells: (o, now) => customCells(printerColumns, o, now),
      };
    }
  }
}

/** The row object for `includeObject`: PartialObjectMetadata by default (apiserver asTable). */
function rowObject(object: Readonly<KubeObject>, include: TableOptions['includeObject']): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

/**
 * The Table the real API server answers for `objects` of resource `key`: its column definitions,
 * one row per object with cells formatted exactly as kubectl prints them (row conditions for
 * finished pods), and each row's object as `includeObject` asks (PartialObjectMetadata by default).
 */
export function toTable(
  key: ResourceKey,
  objects: readonly KubeObject[],
  options: Readonly<TableOptions>,
): Table {
  const printer = printerFor(key);
  const keep = printer.columns.map((c) => options.wide !== false || c.priority === 0);
  const rows = objects.map((object): TableRow => {
    const conditions = key === 'pods' ? podRowConditions(object) : undefined;
    const embedded = rowObject(object, options.includeObject);
    return {
      cells: printer.cells(object, options.now).filter((_, i) => keep[i]),
      ...(conditions ? { conditions } : {}),
      ...(embedded === undefined ? {} : { object: embedded }),
    };
  });
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { ...options.listMeta },
    columnDefinitions: printer.columns.filter((_, i) => keep[i]),
    rows,
  };
}
