// HTTP status of each error code: the domain's error catalogue's (docs/errors.md).
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/error-catalogue.js';

export const ERROR_STATUS = Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, e.status])) as Record<ErrorCode, number>;
