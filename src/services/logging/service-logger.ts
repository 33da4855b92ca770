/**
 * The logger as services use it: a port, so that services name no logging library. The app passes its pino
 * logger (or a child of it), which has these methods.
 */
export interface ServiceLogger {
  debug?(meta: object, message: string): void;
  info(meta: object, message: string): void;
  warn(meta: object, message: string): void;
  error(meta: object, message: string): void;
}
