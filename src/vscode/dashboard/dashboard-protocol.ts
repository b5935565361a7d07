/**
 * The dashboard's message protocol. Messages from the webview are untrusted input:
 * parsed with zod before use. media/dashboard.js mirrors these shapes (JSDoc typedefs).
 */
import { z } from 'zod';
import type { DashboardData } from '../../core/app/types';

/** Extension → webview. */
export type ToWebview = { type: 'data'; data: DashboardData } | { type: 'error'; message: string };

/** Webview → extension. */
export const FromWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('refresh') }),
  z.object({ type: z.literal('openRecord'), recordId: z.string().min(1).max(200) }),
  /** Sent after each draw with the number of charts drawn (tests and logs use it). */
  z.object({ type: z.literal('rendered'), charts: z.number().int().min(0), tasks: z.number().int().min(0) }),
]);
export type FromWebview = z.infer<typeof FromWebviewSchema>;
