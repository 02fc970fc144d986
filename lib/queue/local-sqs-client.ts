import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * An SQS client for a local SQS-compatible endpoint; the credentials are placeholders the emulator
 * ignores. Kept apart from `local-queues.ts` so that the Lambda bundles, which may point at a local
 * endpoint in tests, never pull in the emulator itself.
 */
export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}
