/**
 * sorted-btree's B+ tree class, whatever loads this module: Node's own ESM loader (scripts, fixtures
 * run by tsx) hands a CommonJS module over whole as the default import, bundlers (Next.js, vitest)
 * hand over its `default` export, the class itself.
 */
import SortedBTree from "sorted-btree";

type BTreeClass = typeof SortedBTree;
const loaded = SortedBTree as BTreeClass & { default?: BTreeClass };

export const BTree: BTreeClass = loaded.default ?? loaded;
export type BTree<K, V> = SortedBTree<K, V>;
