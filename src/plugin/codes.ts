import { AppError, type ErrorCode } from "../domain/errors";

/**
 * Res.Code values: the gRPC status numbering (DESIGN, "Plugin RPC protocol"). A function's outcome
 * is a Res with one of these; only a malformed envelope or an auth failure is a Connect error.
 */
export const ResCode = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export type ResCodeValue = (typeof ResCode)[keyof typeof ResCode];

/**
 * Each code of the error family as a Res.Code and as the Connect error it is on the wire (Connect
 * protocol, "Error Codes": the code's name and its HTTP status).
 */
export const PLUGIN_CODES: Record<ErrorCode, { res: ResCodeValue; connect: string; http: number }> = {
  invalid: { res: ResCode.INVALID_ARGUMENT, connect: "invalid_argument", http: 400 },
  unauthenticated: { res: ResCode.UNAUTHENTICATED, connect: "unauthenticated", http: 401 },
  forbidden: { res: ResCode.PERMISSION_DENIED, connect: "permission_denied", http: 403 },
  not_found: { res: ResCode.NOT_FOUND, connect: "not_found", http: 404 },
  conflict: { res: ResCode.ALREADY_EXISTS, connect: "already_exists", http: 409 },
  too_large: { res: ResCode.RESOURCE_EXHAUSTED, connect: "resource_exhausted", http: 429 },
  unsupported: { res: ResCode.UNIMPLEMENTED, connect: "unimplemented", http: 501 },
  unprocessable: { res: ResCode.FAILED_PRECONDITION, connect: "failed_precondition", http: 400 },
  rate_limited: { res: ResCode.RESOURCE_EXHAUSTED, connect: "resource_exhausted", http: 429 },
  internal: { res: ResCode.INTERNAL, connect: "internal", http: 500 },
  bad_gateway: { res: ResCode.UNAVAILABLE, connect: "unavailable", http: 503 },
  unavailable: { res: ResCode.UNAVAILABLE, connect: "unavailable", http: 503 },
};

function neutralCode(res: number): ErrorCode {
  for (const [code, m] of Object.entries(PLUGIN_CODES)) if (m.res === res) return code as ErrorCode;
  return res === ResCode.ABORTED ? "conflict" : "internal";
}

/** The Plugin family's wire error: a function's outcome with this Res.Code and Desc. */
export class PluginError extends AppError {
  constructor(
    readonly resCode: ResCodeValue,
    readonly desc: string,
  ) {
    super(neutralCode(resCode), desc);
    this.name = "PluginError";
  }
}

/** The Res.Code of any error of the family a function threw. */
export const resCodeOf = (err: AppError): ResCodeValue => (err instanceof PluginError ? err.resCode : PLUGIN_CODES[err.code].res);

export const invalidArgument = (desc: string) => new PluginError(ResCode.INVALID_ARGUMENT, desc);
export const notFound = (desc: string) => new PluginError(ResCode.NOT_FOUND, desc);
export const resourceExhausted = (desc: string) => new PluginError(ResCode.RESOURCE_EXHAUSTED, desc);
