// The Lambda Node.js runtime inside one container process started by lambda-host.ts. Init: imports
// the handler `_HANDLER` names from LAMBDA_TASK_ROOT (`<module>.<export>`, the module tried as .js,
// .mjs then .cjs, as the runtime does) and reports `ready` or the init error typed as Lambda types it
// (Runtime.ImportModuleError, Runtime.UserCodeSyntaxError, Runtime.HandlerNotFound, or the thrown
// error's name). Then serves invocations sent over IPC, one at a time, with the Lambda context, and
// answers each with the JSON result or the error. console.* is rewritten as the runtime does: one
// JSON line per call when AWS_LAMBDA_LOG_FORMAT is JSON, else `time\trequestId\tLEVEL\tmessage`.
// Each invocation's X-Ray trace header is `_X_AMZN_TRACE_ID` while it runs, as the runtime sets it
// (the SDK copies it into the X-Amzn-Trace-Id of every call). After each invocation a marker line (\u001e<requestId>) goes to stdout and stderr so that the host
// hands the invocation's log lines out before its result.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

const END_MARK = '\u001e';
let currentRequestId;

function typed(errorType, errorMessage, trace = []) {
  return { errorType, errorMessage, trace };
}

function errorOf(error) {
  if (error instanceof Error) {
    return typed(error.name || 'Error', error.message, String(error.stack ?? '').split('\n'));
  }
  return typed(typeof error, typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)));
}

function patchConsole() {
  const json = process.env.AWS_LAMBDA_LOG_FORMAT === 'JSON';
  const levels = { log: 'INFO', info: 'INFO', warn: 'WARN', error: 'ERROR', debug: 'DEBUG', trace: 'TRACE' };
  for (const [method, level] of Object.entries(levels)) {
    console[method] = (...args) => {
      const timestamp = new Date().toISOString();
      const message = format(...args);
      const line = json
        ? JSON.stringify({ timestamp, level, requestId: currentRequestId, message })
        : `${timestamp}\t${currentRequestId ?? 'undefined'}\t${level}\t${message.replaceAll('\n', '\r')}`;
      process.stdout.write(`${line}\n`);
    };
  }
}

async function loadHandler() {
  const spec = process.env._HANDLER ?? '';
  const slash = spec.lastIndexOf('/');
  const base = spec.slice(slash + 1);
  const dot = base.indexOf('.');
  if (dot < 1) throw typed('Runtime.MalformedHandlerName', `Bad handler ${spec}`);
  const moduleName = spec.slice(0, slash + 1) + base.slice(0, dot);
  const modulePath = join(process.env.LAMBDA_TASK_ROOT ?? '.', moduleName);
  const file = ['.js', '.mjs', '.cjs'].map((ext) => modulePath + ext).find((f) => existsSync(f));
  if (!file) throw typed('Runtime.ImportModuleError', `Error: Cannot find module '${moduleName}'`);
  let loaded;
  try {
    loaded = await import(pathToFileURL(file).href);
  } catch (error) {
    if (error instanceof SyntaxError)
      throw typed('Runtime.UserCodeSyntaxError', `${error}`, errorOf(error).trace);
    if (['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'].includes(error?.code)) {
      throw typed('Runtime.ImportModuleError', `Error: ${error.message}`, errorOf(error).trace);
    }
    throw errorOf(error);
  }
  const path = base.slice(dot + 1).split('.');
  const pick = (root) => path.reduce((value, key) => value?.[key], root);
  const handler = pick(loaded) ?? pick(loaded.default);
  if (typeof handler !== 'function') {
    throw typed('Runtime.HandlerNotFound', `${spec} is undefined or not exported`);
  }
  return handler;
}

function contextOf(message) {
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: message.invokedFunctionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: message.requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
  };
  return context;
}

/** Runs the handler: its promise, or its callback when it takes one (and returns no promise). */
function run(handler, event, context) {
  return new Promise((resolve, reject) => {
    const callback = (error, value) => (error ? reject(error) : resolve(value));
    Object.assign(context, {
      done: callback,
      succeed: (value) => callback(null, value),
      fail: (error) => callback(error ?? new Error('fail')),
    });
    try {
      const returned = handler(event, context, callback);
      if (returned && typeof returned.then === 'function') returned.then(resolve, reject);
      else if (handler.length < 3) resolve(returned);
    } catch (error) {
      reject(error);
    }
  });
}

function finish(reply, then) {
  process.stdout.write(`${END_MARK}${reply.requestId}\n`);
  process.stderr.write(`${END_MARK}${reply.requestId}\n`);
  currentRequestId = undefined;
  process.send(reply, then);
}

process.on('disconnect', () => process.exit(0));
process.on('unhandledRejection', (reason) => {
  console.error(`Unhandled Promise Rejection\t${reason instanceof Error ? reason.stack : String(reason)}`);
  const error = typed(
    'Runtime.UnhandledPromiseRejection',
    String(reason instanceof Error ? reason.message : reason),
  );
  if (currentRequestId)
    finish({ type: 'error', requestId: currentRequestId, error }, () => process.exit(128));
  else process.exit(128);
});

patchConsole();
let handler;
try {
  handler = await loadHandler();
  process.send({ type: 'ready' });
} catch (error) {
  const failure = error?.errorType ? error : errorOf(error);
  console.error(JSON.stringify(failure));
  process.send({ type: 'init-error', error: failure }, () => process.exit(1));
}

process.on('message', async (message) => {
  if (message?.type !== 'invoke' || !handler) return;
  currentRequestId = message.requestId;
  if (message.traceId) process.env._X_AMZN_TRACE_ID = message.traceId;
  else delete process.env._X_AMZN_TRACE_ID;
  let reply;
  try {
    const result = await run(handler, message.event, contextOf(message));
    try {
      reply = { type: 'result', requestId: message.requestId, payload: JSON.stringify(result ?? null) };
    } catch (error) {
      reply = {
        type: 'error',
        requestId: message.requestId,
        error: typed('Runtime.MarshalError', String(error)),
      };
    }
  } catch (error) {
    reply = { type: 'error', requestId: message.requestId, error: errorOf(error) };
  }
  if (reply.type === 'error') console.error('Invoke Error', JSON.stringify(reply.error));
  finish(reply);
});
