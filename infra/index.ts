/**
 * `everynode/cdk`: the construct that deploys everynode for one EKS cluster, and its props.
 *
 * ```ts
 * import { Everynode } from 'everynode/cdk';
 * new Everynode(this, 'Everynode', { cluster });
 * ```
 */
export { Everynode } from './everynode.ts';
export { type EverynodeProps, EverynodePropsError, type EverynodeSettings } from './everynode-props.ts';
