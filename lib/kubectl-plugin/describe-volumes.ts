/**
 * The volumes part of kubectl's pod template description (kubectl pkg/describe describe.go
 * describeVolumes) for the volume sources a DaemonSet's pods commonly use — hostPath, emptyDir,
 * configMap, secret, projected, downwardAPI, persistentVolumeClaim, nfs; any other source is
 * named by its field, where kubectl prints its details.
 */
import type { V1Volume } from '@kubernetes/client-node';
import type { PrefixWriter } from './prefix-writer.ts';

type Source = Omit<V1Volume, 'name'>;

function describeSource(volume: Readonly<V1Volume>, w: PrefixWriter): void {
  const v: Readonly<Source> = volume;
  if (v.hostPath) {
    w.write(
      2,
      `Type:\tHostPath (bare host directory volume)\n    Path:\t${v.hostPath.path}\n    HostPathType:\t${v.hostPath.type || '<none>'}\n`,
    );
  } else if (v.emptyDir) {
    const limit =
      v.emptyDir.sizeLimit === undefined || String(v.emptyDir.sizeLimit) === '0'
        ? '<unset>'
        : String(v.emptyDir.sizeLimit);
    w.write(
      2,
      `Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t${v.emptyDir.medium ?? ''}\n    SizeLimit:\t${limit}\n`,
    );
  } else if (v.secret) {
    w.write(
      2,
      `Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t${v.secret.secretName ?? ''}\n    Optional:\t${v.secret.optional === true}\n`,
    );
  } else if (v.configMap) {
    w.write(
      2,
      `Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t${v.configMap.name ?? ''}\n    Optional:\t${v.configMap.optional === true}\n`,
    );
  } else if (v.nfs) {
    w.write(
      2,
      `Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n    Server:\t${v.nfs.server}\n    Path:\t${v.nfs.path}\n    ReadOnly:\t${v.nfs.readOnly === true}\n`,
    );
  } else if (v.persistentVolumeClaim) {
    w.write(
      2,
      `Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:\t${v.persistentVolumeClaim.claimName}\n    ReadOnly:\t${v.persistentVolumeClaim.readOnly === true}\n`,
    );
  } else if (v.downwardAPI) {
    w.write(2, 'Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n');
    for (const item of v.downwardAPI.items ?? []) {
      if (item.fieldRef) w.write(3, `${item.fieldRef.fieldPath} -> ${item.path}\n`);
      if (item.resourceFieldRef) w.write(3, `${item.resourceFieldRef.resource} -> ${item.path}\n`);
    }
  } else if (v.projected) {
    describeProjected(v.projected, w);
  } else {
    const field = Object.keys(v).find((key) => key !== 'name');
    w.write(1, field === undefined ? '<unknown>\n' : `Type:\t${field}\n`);
  }
}

function describeProjected(projected: NonNullable<Source['projected']>, w: PrefixWriter): void {
  w.write(2, 'Type:\tProjected (a volume that contains injected data from multiple sources)\n');
  for (const source of projected.sources ?? []) {
    if (source.secret) {
      w.write(
        2,
        `SecretName:\t${source.secret.name ?? ''}\n    Optional:\t${source.secret.optional === true}\n`,
      );
    } else if (source.downwardAPI) {
      w.write(2, 'DownwardAPI:\ttrue\n');
    } else if (source.configMap) {
      w.write(
        2,
        `ConfigMapName:\t${source.configMap.name ?? ''}\n    Optional:\t${source.configMap.optional === true}\n`,
      );
    } else if (source.serviceAccountToken) {
      w.write(2, `TokenExpirationSeconds:\t${source.serviceAccountToken.expirationSeconds ?? 0}\n`);
    }
  }
}

/** Writes the `Volumes:` section of a pod template (`space` is the indent of its heading). */
export function describeVolumes(volumes: readonly V1Volume[], w: PrefixWriter, space: string): void {
  if (volumes.length === 0) {
    w.write(0, `${space}Volumes:\t<none>\n`);
    return;
  }
  w.write(0, `${space}Volumes:\n`);
  for (const volume of volumes) {
    w.write(1, `${space === '' ? '' : ' '}${volume.name}:\n`);
    describeSource(volume, w);
  }
}
