// Where a received message's parts lie in the object store: beside its raw object, whose key SES
// (or the local listener) chose. Apart from receive.ts so the read routes' bundle stays free of the
// MIME parser.
export const attachmentKey = (rawKey: string, index: number): string => `${rawKey}#attachments/${index}`;
export const contentKey = (rawKey: string): string => `${rawKey}#content.json`;
