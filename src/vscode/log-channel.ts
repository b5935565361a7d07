/** Backs the core's Logger port with a VS Code LogOutputChannel. */
import type * as vscode from 'vscode';
import { redactingLogger, type Logger } from '../core/logger';

/**
 * @example
 * const logger = channelLogger(vscode.window.createOutputChannel('Agent Memory', { log: true }));
 * tagged(logger, 'tree').info('refreshed');
 */
export function channelLogger(channel: vscode.LogOutputChannel): Logger {
  // Every line passes the redaction module: no secret reaches the Output panel or its log file.
  return redactingLogger({
    trace: (m, ...a) => channel.trace(m, ...a),
    debug: (m, ...a) => channel.debug(m, ...a),
    info: (m, ...a) => channel.info(m, ...a),
    warn: (m, ...a) => channel.warn(m, ...a),
    error: (m, ...a) => channel.error(m, ...a),
  });
}
