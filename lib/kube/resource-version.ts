/**
 * Ordering two resourceVersions of the same resource (port of client-go
 * util/resourceversion CompareResourceVersion, KEP-5504 "Comparable Resource Version"): since
 * Kubernetes 1.35 resourceVersions are documented as monotonically increasing integers, comparable
 * between objects of one resource. Every etcd3-backed API server, and the simulated one, has always
 * served them so; older servers merely did not promise it, which is why a value that is not a
 * well-formed integer compares as unknown and the relay then assumes nothing.
 */

// client-go accepts only a non-empty run of digits without a leading zero.
const wellFormed = /^[1-9][0-9]*$/;

/**
 * -1 when `a` is older than `b`, 0 when equal, 1 when newer; undefined when either is not a
 * well-formed resourceVersion (so the caller must not rely on an order).
 */
export function compareResourceVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  if (!wellFormed.test(a) || !wellFormed.test(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * True when `version` is known to be at least `wanted`; false when it is older or the two do not
 * compare (a version that is not well-formed promises nothing).
 */
export function isAtLeast(version: string, wanted: string): boolean {
  return (compareResourceVersions(version, wanted) ?? -1) >= 0;
}

/** True when `version` is known to be newer than `than`; false when it is not or the two do not compare. */
export function isNewer(version: string, than: string): boolean {
  return compareResourceVersions(version, than) === 1;
}
