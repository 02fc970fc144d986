/**
 * Label values derived from names: a Kubernetes name may be a 253-character DNS subdomain, a label
 * value holds at most 63 characters (upstream apimachinery IsValidLabelValue), so a name that does
 * not fit stands for itself by a hash.
 */
import { labelValueErrors } from './object-names.ts';

/** FNV-1a 64 of the UTF-8 bytes of `s`, as a BigInt (Go hash/fnv New64a). */
export function fnv1a64(s: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(s)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

/**
 * The label value standing for `name`: `name` itself when it is a non-empty valid label value (at
 * most 63 characters, so every name that could be a label value stays one), else `h-` and the 16
 * hex digits of its FNV-1a 64 hash (19 characters). Deterministic, so every writer and reader of a
 * label computes the same value; distinct names may collide only by a 64-bit hash collision, so a
 * reader selecting by the value must still check the name it finds.
 */
export function safeLabelValue(name: string): string {
  if (name !== '' && labelValueErrors(name).length === 0) return name;
  return `h-${fnv1a64(name).toString(16).padStart(16, '0')}`;
}
