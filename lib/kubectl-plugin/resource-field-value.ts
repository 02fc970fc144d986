/**
 * The value kubectl describe shows for an environment variable set from a container resource
 * (kubectl resourcehelper.ExtractContainerResourceValue): the limit or request divided by the
 * divisor (default 1) and rounded up — CPU in millicores, the others in bytes — with an unset CPU or
 * memory limit shown as `node allocatable`.
 */
import type { V1Container, V1ResourceFieldSelector } from '@kubernetes/client-node';

const SUFFIXES: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The number a Kubernetes quantity (`500m`, `128Mi`, `1e3`, `2`) stands for; 0 when unreadable. */
export function quantityValue(quantity: string | number | undefined): number {
  if (quantity === undefined) return 0;
  const text = String(quantity).trim();
  const match = /^([+-]?\d*\.?\d+(?:[eE][+-]?\d+)?)([a-zA-Z]*)$/.exec(text);
  const factor = SUFFIXES[match?.[2] ?? ''];
  return match && factor !== undefined ? Number(match[1]) * factor : 0;
}

/** What `ref` resolves to for `container`, as kubectl describe prints it. */
export function resourceFieldValue(
  container: Readonly<V1Container>,
  ref: Readonly<V1ResourceFieldSelector>,
): string {
  const [list, name = ''] = ref.resource.split('.');
  const resources = list === 'limits' ? container.resources?.limits : container.resources?.requests;
  const divisor = quantityValue(ref.divisor ?? '1') || 1;
  const amount = quantityValue(resources?.[name]);
  const value =
    name === 'cpu'
      ? Math.ceil(Math.round(amount * 1000) / Math.round(divisor * 1000))
      : Math.ceil(amount / divisor);
  if (value === 0 && (ref.resource === 'limits.cpu' || ref.resource === 'limits.memory'))
    return 'node allocatable';
  return String(value);
}
