/**
 * The relay checkpoint on AWS: the SSM String parameter named by
 * `EVERYNODE_RELAY_CHECKPOINT_PARAMETER` (created by the stack with the value `{}`).
 */
import {
  GetParameterCommand,
  ParameterNotFound,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import {
  formatRelayCheckpoint,
  parseRelayCheckpoint,
  type RelayCheckpoint,
  type RelayCheckpointStore,
} from './checkpoint.ts';

/** Reads and overwrites one SSM parameter. */
export class SsmCheckpointStore implements RelayCheckpointStore {
  constructor(
    private readonly client: SSMClient,
    readonly parameterName: string,
  ) {}

  /** The checkpoint in the parameter; undefined when the parameter is missing or holds none. */
  async load(): Promise<RelayCheckpoint | undefined> {
    try {
      const answer = await this.client.send(new GetParameterCommand({ Name: this.parameterName }));
      return parseRelayCheckpoint(answer.Parameter?.Value);
    } catch (error) {
      if (error instanceof ParameterNotFound) return undefined;
      throw new Error(`reading the relay checkpoint parameter ${this.parameterName}`, { cause: error });
    }
  }

  /** Overwrites the parameter (a few hundred bytes: far below the 4 KB of a standard parameter). */
  async save(checkpoint: Readonly<RelayCheckpoint>): Promise<void> {
    try {
      await this.client.send(
        new PutParameterCommand({
          Name: this.parameterName,
          Value: formatRelayCheckpoint(checkpoint),
          Type: 'String',
          Overwrite: true,
        }),
      );
    } catch (error) {
      throw new Error(`writing the relay checkpoint parameter ${this.parameterName}`, { cause: error });
    }
  }
}
