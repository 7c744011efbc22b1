// The sizes a broadcast's stored items are cut to.

/** 500 addresses of at most 254 characters stay well under DynamoDB's 400 KB item limit. */
export const RECIPIENTS_PER_CHUNK = 500;
/** A recipient chunk with data stays under this, well below DynamoDB's 400 KB item limit. */
export const CHUNK_BYTES = 300 * 1024;
/** One recipient's `data` as JSON; bounded so that it always fits a chunk. Recorded in docs/api-decisions.md. */
export const MAX_RECIPIENT_DATA_BYTES = 16 * 1024;
/** Content is stored on the broadcast's content item and on every message; bounded so both items fit. */
export const MAX_CONTENT_BYTES = 256 * 1024;
