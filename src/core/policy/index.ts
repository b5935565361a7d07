/** Memory management policies: utility, addition, deletion, rules, metrics, and the per-task manager. */
export * from './answers';
export * from './utility';
export * from './addition';
export * from './deletion';
export * from './rules';
export * from './metrics';
export * from './memory-manager';
