/**
 * The device authorization grant's timing (RFC 8628 §3.2): device codes live five minutes and
 * clients poll every five seconds (GitLab's defaults). A poll sooner than the interval is
 * slow_down and adds five seconds to that grant's interval (§3.5; src/db/device-grants.ts).
 */
export const DEVICE_CODE_TTL_SECONDS = 300;
export const POLL_INTERVAL_SECONDS = 5;
