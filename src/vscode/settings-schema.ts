/** The settings schema lives in the core (the CLI and the app use it too); re-exported for the adapter. */
export * from '../core/settings';
