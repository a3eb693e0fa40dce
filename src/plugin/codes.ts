/**
 * Res.Code values: the gRPC status numbering (DESIGN, "Plugin RPC protocol"). A function's outcome
 * is a Res with one of these; only a malformed envelope or an auth failure is a Connect error.
 */
export const ResCode = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

export type ResCodeValue = (typeof ResCode)[keyof typeof ResCode];

/** Thrown by plugin functions; rendered as a Res with this Code and Desc. */
export class PluginError extends Error {
  constructor(
    readonly code: ResCodeValue,
    readonly desc: string,
  ) {
    super(desc);
    this.name = "PluginError";
  }
}

export const invalidArgument = (desc: string) => new PluginError(ResCode.INVALID_ARGUMENT, desc);
export const notFound = (desc: string) => new PluginError(ResCode.NOT_FOUND, desc);
export const resourceExhausted = (desc: string) => new PluginError(ResCode.RESOURCE_EXHAUSTED, desc);
